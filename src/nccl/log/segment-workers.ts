import type { Worker } from "node:worker_threads";
import { startModuleWorker } from "../../core/worker.js";
import type { LogState } from "./state.js";

type Pending = { resolve: (st: LogState) => void; reject: (err: Error) => void };
type Reply = { seq: number; state?: LogState; error?: string; buf?: ArrayBuffer };

/**
 * A pool of threads that scan NCCL log segments (segment-worker.ts). A segment's buffer moves to its thread without
 * a copy and comes back with the state, to be filled again (`takeBuffer`). Segments go round-robin.
 */
export class SegmentWorkers {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, Pending>();
  private readonly spare: ArrayBuffer[] = [];
  private seq = 0;
  private failure: Error | null = null;

  constructor(
    count: number,
    private readonly size: number,
  ) {
    this.workers = Array.from({ length: count }, () => this.start());
  }

  private start(): Worker {
    // A small young generation: the scan makes only short-lived strings, and each thread's heap stays ~10 MB smaller.
    const w = startModuleWorker(import.meta.url, "segment-worker", { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    w.on("message", (m: Reply) => this.settle(m));
    w.on("error", (err) => this.fail(new Error(`an NCCL log scanning thread failed: ${err.message}`)));
    w.on("exit", (code) => {
      if (this.pending.size > 0) this.fail(new Error(`an NCCL log scanning thread stopped (exit ${code})`));
    });
    return w;
  }

  private settle(m: Reply): void {
    const p = this.pending.get(m.seq);
    this.pending.delete(m.seq);
    if (m.buf && m.buf.byteLength === this.size) this.spare.push(m.buf);
    if (m.state) p?.resolve(m.state);
    else p?.reject(new Error(`NCCL log scanning thread failed: ${m.error}`));
  }

  private fail(err: Error): void {
    this.failure = err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  /** An empty segment buffer: one handed back by a thread, or a new one. */
  takeBuffer(): Buffer {
    const ab = this.spare.pop();
    return ab ? Buffer.from(ab) : Buffer.allocUnsafeSlow(this.size);
  }

  /** Scans `lines` (a buffer from `takeBuffer` or `Buffer.allocUnsafeSlow`, given away: do not use it after). */
  scan(lines: Buffer): Promise<LogState> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.seq++;
    const w = this.workers[seq % this.workers.length] as Worker;
    return new Promise<LogState>((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      const buf = lines.buffer as ArrayBuffer;
      w.postMessage({ seq, buf, offset: lines.byteOffset, length: lines.byteLength }, [buf]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

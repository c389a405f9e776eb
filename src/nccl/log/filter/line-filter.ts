/**
 * The NCCL log's byte filter (wasm/nccl-line-filter/filter.ts, compiled to WebAssembly): it counts the bulk lines of a
 * large INFO log (connections over P2P, SHM and IB; set-up lines that name no fact) exactly as the line scanner would,
 * and passes every other line through for the scanner to read. A 256 MB log's scan then reads about one line in
 * eight. Where WebAssembly cannot run (`node --jitless`), `lineFilter()` is null and every line is scanned.
 */
import type { LogState } from "../state.js";
import { FILTER_WASM_BASE64 } from "./wasm-bytes.js";

type Exports = {
  memory: { buffer: ArrayBuffer };
  inputPtr(): number;
  outputPtr(): number;
  countsPtr(): number;
  pieceBytes(): number;
  reset(): void;
  run(n: number): number;
};

/** One thread's filter: `input` takes a piece of the log, `run` returns the bytes to scan (valid until the next run). */
export class LineFilter {
  /** Where a piece of up to `pieceBytes` bytes is put before `run`. */
  readonly input: Buffer;
  readonly pieceBytes: number;
  private readonly out: number;
  private readonly counts: Int32Array;

  constructor(private readonly x: Exports) {
    this.pieceBytes = x.pieceBytes();
    const buf = x.memory.buffer;
    this.input = Buffer.from(buf, x.inputPtr(), this.pieceBytes);
    this.out = x.outputPtr();
    this.counts = new Int32Array(buf, x.countsPtr(), 8);
  }

  /** A new state: the hosts noted and the counts start again (one filter serves one LogState at a time). */
  reset(): void {
    this.x.reset();
  }

  /** Filters the first `n` bytes of `input`; the lines to scan, in order (a view, overwritten by the next run). */
  run(n: number): Buffer {
    const kept = this.x.run(n);
    return Buffer.from(this.x.memory.buffer, this.out, kept);
  }

  /** Adds what the dropped lines counted to `st` (once, after the last piece of the state). */
  addCountsTo(st: LogState): void {
    const c = this.counts;
    st.lines += c[0]!;
    st.ncclLines += c[0]!;
    st.conn.p2p += c[1]!;
    st.conn.shm += c[2]!;
    st.conn.net += c[3]!;
    st.conn.netGdr += c[4]!;
    st.conn.netRecv += c[5]!;
    st.conn.netRecvGdr += c[6]!;
    st.ibConns += c[7]!;
  }
}

/** The part of the WebAssembly API used here (this project's type libraries do not declare it). */
type WasmApi = {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
};

let shared: LineFilter | null | undefined;

/**
 * This thread's filter, or null where WebAssembly is not available (or KUBE_RDMA_NO_LINE_FILTER=1, which scans every
 * line: the reference the filter is tested against). Scans are synchronous, so one instance serves them in turn.
 */
export function lineFilter(): LineFilter | null {
  if (process.env.KUBE_RDMA_NO_LINE_FILTER === "1") return null;
  if (shared === undefined) {
    try {
      // Absent under `node --jitless`: the reference below throws, and every line is scanned.
      const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
      const module = new wasm.Module(Buffer.from(FILTER_WASM_BASE64, "base64"));
      shared = new LineFilter(new wasm.Instance(module, {}).exports as unknown as Exports);
    } catch {
      shared = null;
    }
  }
  return shared;
}

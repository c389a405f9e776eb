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
  roomPtr(): number;
  roomBytes(): number;
  outputPtr(): number;
  countsPtr(): number;
  ranksPtr(): number;
  netsPtr(): number;
  netsUsed(): number;
  reset(): void;
  run(n: number): number;
  flush(): number;
};

/**
 * One thread's filter: the next piece of the log goes into `room()`, `run` returns the lines to scan (a view,
 * overwritten by the next run), and `flush` the last line when the text ends without a newline.
 */
export class LineFilter {
  private readonly out: number;
  private readonly counts: Int32Array;
  private readonly ranks: Int32Array;
  private st: LogState | null = null;

  constructor(private readonly x: Exports) {
    this.out = x.outputPtr();
    this.counts = new Int32Array(x.memory.buffer, x.countsPtr(), 14);
    this.ranks = new Int32Array(x.memory.buffer, x.ranksPtr(), 2048);
  }

  /** Where the next piece of the log goes (after the unfinished line the last one ended in), as long as it may be. */
  room(): Buffer {
    return Buffer.from(this.x.memory.buffer, this.x.roomPtr(), this.x.roomBytes());
  }

  /** Starts on a new state: the hosts noted and the counts start again (one filter serves one state at a time). */
  begin(st: LogState): void {
    this.x.reset();
    this.st = st;
  }

  /** Filters the first `n` bytes put in `room()`; the lines to scan, in order (a view, overwritten by the next run). */
  run(n: number): Buffer {
    const kept = this.x.run(n);
    this.takeRanks();
    return Buffer.from(this.x.memory.buffer, this.out, kept);
  }

  /**
   * The ranks of the `Init COMPLETE` lines dropped from the last piece, not named by one before: added to the state's
   * completed ranks (a set: only its size is read; the filter drops only ranks below 2^20, so the set's cap of 2^20 is
   * reached the same way only by a log of over a million ranks).
   */
  private takeRanks(): void {
    const n = this.counts[12]!;
    if (n === 0) return;
    const done = this.st!.completedRanks;
    for (let i = 0; i < n; i++) if (done.size < 1 << 20) done.add(this.ranks[i]!);
    this.counts[12] = 0;
  }

  /** The line kept back from the last piece, to scan when the text ends (empty when it ended in a newline). */
  flush(): Buffer {
    return Buffer.from(this.x.memory.buffer, this.out, this.x.flush());
  }

  /**
   * Connections over other networks, by name: each name went through on a line first, so the scanner holds it unless
   * its map was full (then it would not have counted the dropped lines either).
   */
  private addNetNames(st: LogState): void {
    const mem = this.x.memory.buffer;
    const base = this.x.netsPtr();
    for (let i = 0; i < this.x.netsUsed(); i++) {
      const entry = new DataView(mem, base + i * 48, 48);
      const count = entry.getInt32(4, true);
      const name = Buffer.from(mem, base + i * 48 + 8, entry.getUint32(0, true)).toString("latin1");
      const held = st.netNames.get(name);
      if (count > 0 && held !== undefined) st.netNames.set(name, held + count);
    }
  }

  /** Adds what the dropped lines counted to the state (once, after the last piece of the state). */
  finish(): void {
    const st = this.st!;
    this.st = null;
    const c = this.counts;
    st.initComplete += c[11]!;
    st.lines += c[0]!;
    st.ncclLines += c[0]!;
    st.conn.p2p += c[1]!;
    st.conn.shm += c[2]!;
    st.conn.net += c[3]!;
    st.conn.netGdr += c[4]!;
    st.conn.netRecv += c[5]!;
    st.conn.netRecvGdr += c[6]!;
    st.ibConns += c[7]!;
    st.conn.socket += c[13]!;
    this.addNetNames(st);
    // The largest counts of the `comm 0x…` lines dropped (commSummary keeps maxima).
    if (c[8]! > st.nNodes) st.nNodes = c[8]!;
    if (c[9]! > st.localRanks) st.localRanks = c[9]!;
    if (c[10]! > st.nranks) st.nranks = c[10]!;
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

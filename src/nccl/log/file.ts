/**
 * A large NCCL log file, analysed in parts: the file is cut at line boundaries into ranges, several per thread; this
 * thread and the workers take the next unscanned range from a shared counter until none is left, each range scanned
 * into its own state (64 KiB reads, no line strings), and the states are merged in file order (`mergeInto`), which
 * gives exactly the report one pass would. A thread that starts late (a worker's ~50 ms start-up) or runs slower (a
 * shared machine) takes fewer ranges, so no thread waits on another's last big part. Memory per thread stays bounded
 * like the stream's.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { availableParallelism } from "node:os";
import { StringDecoder } from "node:string_decoder";
import type { AnalyzeContext, AnalyzeOutcome } from "../../analyze/types.js";
import { startModuleWorker } from "../../core/worker.js";
import { ChunkFeeder } from "./feeder.js";
import { type NcclLogData, reportLog } from "./report.js";
import { LogState, mergeInto } from "./state.js";

const READ_BYTES = 64 << 10;
/** Below this, one thread: starting a worker costs more than it saves. */
export const PARALLEL_MIN_BYTES = 64 << 20;
/** Ranges per thread: enough for the threads to even out, few enough that each range's state costs nothing. */
const RANGES_PER_THREAD = 8;

export type ByteRange = { start: number; end: number };

/** Scans bytes [start, end) of an open file (UTF-8, split sequences handled) into a fresh state. */
export function scanRange(fd: number, range: ByteRange): LogState {
  const feeder = new ChunkFeeder(new LogState());
  const decoder = new StringDecoder("utf8");
  const buf = Buffer.allocUnsafe(READ_BYTES);
  for (let pos = range.start; pos < range.end; ) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, range.end - pos), pos);
    if (n === 0) break;
    pos += n;
    feeder.write(decoder.write(n === buf.length ? buf : buf.subarray(0, n)));
  }
  const tail = decoder.end();
  if (tail) feeder.write(tail);
  return feeder.finish();
}

/** The offset of the first line that starts at or after `at` (the byte after a newline), or `size`. */
function lineStartAtOrAfter(fd: number, at: number, size: number): number {
  if (at <= 0) return 0;
  const buf = Buffer.allocUnsafe(READ_BYTES);
  for (let pos = at - 1; pos < size; pos += buf.length) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) break;
    const nl = buf.subarray(0, n).indexOf(10);
    if (nl >= 0) return pos + nl + 1;
  }
  return size;
}

/** `parts` consecutive ranges covering [0, size), each starting at a line start (some may be empty). */
export function lineAlignedRanges(fd: number, size: number, parts: number): ByteRange[] {
  const starts = [0];
  for (let i = 1; i < parts; i++) {
    starts.push(Math.max(starts[i - 1]!, lineStartAtOrAfter(fd, Math.floor((size * i) / parts), size)));
  }
  return starts.map((start, i) => ({ start, end: starts[i + 1] ?? size }));
}

/** Threads worth using for a file of `size` bytes. */
export function defaultLogThreads(size: number): number {
  return size < PARALLEL_MIN_BYTES ? 1 : Math.max(1, Math.min(8, availableParallelism()));
}

/** The ranges still to scan, shared by the threads: each takes the next index with `Atomics.add`. */
export type RangeQueue = { ranges: readonly ByteRange[]; next: Int32Array };

/** Scans ranges taken from `queue` until none is left; the states by range index. */
export function scanQueued(fd: number, queue: RangeQueue): Map<number, LogState> {
  const states = new Map<number, LogState>();
  for (;;) {
    const i = Atomics.add(queue.next, 0, 1);
    if (i >= queue.ranges.length) return states;
    states.set(i, scanRange(fd, queue.ranges[i]!));
  }
}

function scanInWorker(path: string, queue: RangeQueue): Promise<Map<number, LogState>> {
  const w = startModuleWorker(import.meta.url, "range-worker");
  return new Promise<Map<number, LogState>>((resolve, reject) => {
    w.once("message", (m: { states?: Map<number, LogState>; error?: string }) => {
      if (m.states) resolve(m.states);
      else reject(new Error(`NCCL log worker failed: ${m.error}`));
    });
    w.once("error", reject);
    w.postMessage({ path, queue });
  }).finally(() => void w.terminate());
}

/** Analyses a log file with `threads` threads (default: one per core, up to 8, for files ≥ 64 MiB). */
export async function analyzeNcclLogFile(
  path: string,
  ctx: AnalyzeContext = {},
  opts: { threads?: number } = {},
): Promise<AnalyzeOutcome & { data: NcclLogData }> {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const threads = Math.max(1, opts.threads ?? defaultLogThreads(size));
    const ranges = lineAlignedRanges(fd, size, threads === 1 ? 1 : threads * RANGES_PER_THREAD);
    const queue: RangeQueue = { ranges, next: new Int32Array(new SharedArrayBuffer(4)) };
    // The workers start first (their start-up overlaps this thread's scanning), then this thread takes ranges too.
    const workers = Array.from({ length: threads - 1 }, () => scanInWorker(path, queue));
    const states = scanQueued(fd, queue);
    for (const part of await Promise.all(workers)) for (const [i, st] of part) states.set(i, st);
    let acc = new LogState();
    for (let i = 0; i < ranges.length; i++) {
      const st = states.get(i);
      if (st) acc = mergeInto(acc, st);
    }
    return reportLog(acc, ctx.inventory, ctx.communicatorRan);
  } finally {
    closeSync(fd);
  }
}

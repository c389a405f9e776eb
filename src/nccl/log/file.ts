/**
 * A large NCCL log file, analysed in parts: the file is cut at line boundaries into ranges, several per thread; this
 * thread and the workers take the next unscanned range from a shared counter until none is left, each range scanned
 * into its own state (64 KiB reads, no line strings), and the states are merged in file order (`mergeInto`), which
 * gives exactly the report one pass would. A thread that starts late (a worker's ~50 ms start-up) or runs slower (a
 * shared machine) takes fewer ranges, so no thread waits on another's last big part. Memory per thread stays bounded
 * like the stream's.
 */
import { closeSync, fstatSync, openSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { AnalyzeContext, AnalyzeOutcome } from "../../analyze/types.js";
import { startModuleWorker } from "../../core/worker.js";
import { lineAlignedRanges, type RangeQueue, scanQueued } from "./ranges.js";
import { type NcclLogData, reportLog } from "./report.js";
import { LogState, mergeInto } from "./state.js";

export { type ByteRange, lineAlignedRanges, type RangeQueue, scanQueued, scanRange } from "./ranges.js";

/** Below this, one thread: starting a worker costs more than it saves. */
export const PARALLEL_MIN_BYTES = 64 << 20;
/**
 * Ranges per thread: enough for the threads to even out (a worker starts ~50 ms after this thread), few enough that
 * each range's state costs nothing. Each range starts the line filter afresh (every host's and process's first lines
 * go to the scanner again): a 256 MB log on two threads took 252 ms in 8 ranges per thread, 237 ms in 4.
 */
const RANGES_PER_THREAD = 4;

/** Threads worth using for a file of `size` bytes. */
export function defaultLogThreads(size: number): number {
  return size < PARALLEL_MIN_BYTES ? 1 : Math.max(1, Math.min(8, availableParallelism()));
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

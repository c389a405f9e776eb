/**
 * A large NCCL log file, analysed in parts: the file is cut at line boundaries into one byte range per core, each
 * range is scanned in its own thread (64 KiB reads, no line strings), and the parts' states are merged in file order
 * (`mergeInto`), which gives exactly the report one pass would. Memory per thread stays bounded like the stream's.
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

function scanInWorker(path: string, range: ByteRange): Promise<LogState> {
  const w = startModuleWorker(import.meta.url, "range-worker");
  return new Promise<LogState>((resolve, reject) => {
    w.once("message", (m: { state?: LogState; error?: string }) => {
      if (m.state) resolve(m.state);
      else reject(new Error(`NCCL log worker failed: ${m.error}`));
    });
    w.once("error", reject);
    w.postMessage({ path, range });
  }).finally(() => void w.terminate());
}

/** Analyses a log file, in `threads` parts (default: one per core for files ≥ 64 MiB). */
export async function analyzeNcclLogFile(
  path: string,
  ctx: AnalyzeContext = {},
  opts: { threads?: number } = {},
): Promise<AnalyzeOutcome & { data: NcclLogData }> {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const ranges = lineAlignedRanges(fd, size, Math.max(1, opts.threads ?? defaultLogThreads(size)));
    // Part 0 here, the others in workers, all at once.
    const others = ranges.slice(1).map((r) => (r.end > r.start ? scanInWorker(path, r) : new LogState()));
    const first = scanRange(fd, ranges[0]!);
    const parts = await Promise.all(others);
    const st = parts.reduce((acc, part) => mergeInto(acc, part), first);
    return reportLog(st, ctx.inventory);
  } finally {
    closeSync(fd);
  }
}

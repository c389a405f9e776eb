/**
 * A large NCCL log arriving as a stream (`kubectl logs -f … | kube-rdma analyze -`), analysed in parallel as it
 * arrives: the bytes are cut into line-aligned segments of a few MiB, each segment is scanned into its own state by
 * a worker thread, and the states are merged in arrival order (`mergeInto`), which gives exactly the report one pass
 * gives. This thread only reads and cuts, so reading the pipe overlaps the scanning; at most one segment per thread
 * is in flight, so memory stays bounded whatever the size.
 */
import { availableParallelism } from "node:os";
import type { AnalyzeContext, AnalyzeOutcome } from "../../analyze/types.js";
import { type NcclLogData, reportLog } from "./report.js";
import { scanSegment } from "./segment-scan.js";
import { SegmentWorkers } from "./segment-workers.js";
import { LogState, mergeInto } from "./state.js";

/** Whole lines (the input's last segment may end in a cut line), in a buffer of its own the consumer may keep. */
export type Segment = { lines: Buffer } | { overlong: true };

/**
 * Each segment's state starts empty, so the line filter passes each host's and each process's first lines of every
 * segment to the scanner again: on two cores a 256 MB log from a pipe took 419 ms in 4 MiB segments, 391 ms in 8 MiB
 * (119 MB peak RSS) and no less in 16 MiB (144 MB).
 */
export const SEGMENT_BYTES = 8 << 20;

/**
 * Cuts a byte stream into segments of whole lines of up to `size` bytes. A "line" longer than a whole segment is not
 * a log line (binary data, a dump without newlines): it is reported once as `overlong` and skipped to its end, so
 * memory stays bounded. `take` gives an empty buffer of `size` bytes (recycled ones welcome).
 */
export async function* lineSegments(
  chunks: AsyncIterable<Uint8Array | string>,
  size: number,
  take: () => Buffer = () => Buffer.allocUnsafeSlow(size),
): AsyncGenerator<Segment> {
  let seg = take();
  let fill = 0;
  let skipping = false;
  for await (const chunk of chunks) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    let off = 0;
    while (off < bytes.length) {
      if (skipping) {
        const nl = bytes.indexOf(10, off);
        if (nl < 0) break;
        off = nl + 1;
        skipping = false;
        continue;
      }
      const n = Math.min(bytes.length - off, size - fill);
      seg.set(bytes.subarray(off, off + n), fill);
      fill += n;
      off += n;
      if (fill < size) continue;
      const nl = seg.lastIndexOf(10);
      if (nl < 0) {
        fill = 0;
        skipping = true;
        yield { overlong: true };
        continue;
      }
      const next = take();
      seg.copy(next, 0, nl + 1, size); // the cut line starts the next segment
      fill = size - nl - 1;
      const lines = seg.subarray(0, nl + 1);
      seg = next;
      yield { lines };
    }
  }
  if (fill > 0) yield { lines: seg.subarray(0, fill) };
}

function overlongState(): LogState {
  const st = new LogState();
  st.binaryLines = 1;
  return st;
}

export type ChunkScanOptions = {
  /**
   * Worker threads (0: this thread scans everything). They start with the stream: standard input only streams past
   * its first 8 MiB, where starting them (~50 ms each) pays.
   */
  threads?: number;
  segmentBytes?: number;
};

/**
 * Worker threads worth using on this machine: one per core but the one this thread reads the stream on, up to 8;
 * none on a single core. (The line filter made scanning cheap enough that the reading thread is busy: on two cores,
 * two scanning threads beside it took 494 ms for a 256 MB log from a pipe, one took 403 ms.)
 */
export function defaultStreamThreads(): number {
  const cores = availableParallelism();
  return cores < 2 ? 0 : Math.min(8, cores - 1);
}

/** Analyses an NCCL log arriving in chunks (standard input), its segments scanned in worker threads. */
export async function analyzeNcclLogChunks(
  chunks: AsyncIterable<Uint8Array | string>,
  ctx: AnalyzeContext = {},
  opts: ChunkScanOptions = {},
): Promise<AnalyzeOutcome & { data: NcclLogData }> {
  const threads = opts.threads ?? defaultStreamThreads();
  const size = opts.segmentBytes ?? SEGMENT_BYTES;
  const acc = new LogState();
  const queue: Promise<LogState>[] = [];
  const workers = threads > 0 ? new SegmentWorkers(threads, size) : null;
  try {
    for await (const seg of lineSegments(chunks, size, () => workers?.takeBuffer() ?? Buffer.allocUnsafeSlow(size))) {
      if ("overlong" in seg) queue.push(Promise.resolve(overlongState()));
      else {
        const scanned = workers ? workers.scan(seg.lines) : Promise.resolve(scanSegment(seg.lines));
        scanned.catch(() => {}); // awaited in order below; a failure surfaces there, not as an unhandled rejection
        queue.push(scanned);
      }
      // Merge in order, one segment in flight per thread at most: memory stays bounded, and a slow scan slows the
      // reading (the pipe's writer waits) rather than piling segments up.
      while (queue.length > (workers ? threads : 0)) mergeInto(acc, await (queue.shift() as Promise<LogState>));
    }
    while (queue.length > 0) mergeInto(acc, await (queue.shift() as Promise<LogState>));
  } finally {
    await workers?.close();
  }
  return reportLog(acc, ctx.inventory, ctx.communicatorRan);
}

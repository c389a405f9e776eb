/**
 * The scanning half of analyzeNcclLogFile (file.ts), the only part its worker threads load (range-worker.ts): a log
 * file cut at line boundaries into byte ranges, and each range taken from a shared queue scanned into its own state
 * (64 KiB reads, no line strings). Nothing here builds the report, so a worker compiles only the scanner.
 */
import { readSync } from "node:fs";
import { scanBytes } from "./feeder.js";
import type { LogState } from "./state.js";

const READ_BYTES = 64 << 10;

export type ByteRange = { start: number; end: number };

/** Scans bytes [start, end) of an open file into a fresh state (scanBytes: the line filter, then the scanner). */
export function scanRange(fd: number, range: ByteRange): LogState {
  let pos = range.start;
  return scanBytes((into) => {
    const n = pos < range.end ? readSync(fd, into, 0, Math.min(into.length, range.end - pos), pos) : 0;
    pos += n;
    return n;
  });
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

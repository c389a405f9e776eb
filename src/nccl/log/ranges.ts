/**
 * The scanning half of analyzeNcclLogFile (file.ts), the only part its worker threads load (range-worker.ts): a log
 * file cut at line boundaries into byte ranges, and each range taken from a shared queue scanned into its own state
 * (64 KiB reads, no line strings). Nothing here builds the report, so a worker compiles only the scanner.
 */
import { readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { ChunkFeeder } from "./feeder.js";
import { lineFilter } from "./filter/line-filter.js";
import { LogState } from "./state.js";

const READ_BYTES = 64 << 10;

export type ByteRange = { start: number; end: number };

/**
 * Scans bytes [start, end) of an open file (UTF-8, split sequences handled) into a fresh state. The bytes are read
 * into the line filter's memory, and only the lines it passes through are decoded and scanned.
 */
export function scanRange(fd: number, range: ByteRange): LogState {
  const st = new LogState();
  const feeder = new ChunkFeeder(st);
  const decoder = new StringDecoder("utf8");
  const filter = lineFilter();
  if (filter) {
    filter.begin(st);
    for (let pos = range.start; pos < range.end; ) {
      const room = filter.room();
      const n = readSync(fd, room, 0, Math.min(room.length, range.end - pos), pos);
      if (n === 0) break;
      pos += n;
      feeder.write(decoder.write(filter.run(n)));
    }
    feeder.write(decoder.write(filter.flush()));
    filter.finish();
  } else {
    const buf = Buffer.allocUnsafe(READ_BYTES);
    for (let pos = range.start; pos < range.end; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, range.end - pos), pos);
      if (n === 0) break;
      pos += n;
      feeder.write(decoder.write(n === buf.length ? buf : buf.subarray(0, n)));
    }
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

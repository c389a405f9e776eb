import { StringDecoder } from "node:string_decoder";
import { ChunkFeeder } from "./feeder.js";
import { lineFilter } from "./filter/line-filter.js";
import { LogState } from "./state.js";

/**
 * Text is decoded and scanned 64 KiB at a time: V8 makes short strings in its young space, cheaply, while one
 * multi-MiB string costs about four times as much per byte to make and to collect.
 */
const PIECE_BYTES = 64 << 10;

/**
 * The state of one segment of whole lines. Kept apart from segments.ts so that a scanning thread loads only the
 * scanner, not the report.
 */
export function scanSegment(lines: Uint8Array): LogState {
  const st = new LogState();
  const feeder = new ChunkFeeder(st);
  const decoder = new StringDecoder("utf8");
  const bytes = Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength);
  // The line filter (filter/line-filter.ts) counts the bulk lines; the scanner reads the rest.
  const filter = lineFilter();
  if (filter) {
    filter.begin(st);
    for (let at = 0; at < bytes.length; ) {
      const room = filter.room();
      const n = bytes.copy(room, 0, at, Math.min(bytes.length, at + room.length));
      at += n;
      feeder.write(decoder.write(filter.run(n)));
    }
    feeder.write(decoder.write(filter.flush()));
    filter.finish();
  } else {
    for (let at = 0; at < bytes.length; at += PIECE_BYTES)
      feeder.write(decoder.write(bytes.subarray(at, at + PIECE_BYTES)));
  }
  const tail = decoder.end();
  if (tail) feeder.write(tail);
  return feeder.finish();
}

import { scanBytes } from "./feeder.js";
import type { LogState } from "./state.js";

/**
 * The state of one segment of whole lines. Kept apart from segments.ts so that a scanning thread loads only the
 * scanner, not the report.
 */
export function scanSegment(lines: Uint8Array): LogState {
  const bytes = Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength);
  let at = 0;
  return scanBytes((into) => {
    const n = bytes.copy(into, 0, at, Math.min(bytes.length, at + into.length));
    at += n;
    return n;
  });
}

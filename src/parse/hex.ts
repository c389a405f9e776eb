/** Hex digits read in place, by character code: no slices, no parseInt. Pure. */

/** The value of a hex digit's character code (`0-9`, `a-f`, `A-F`), or -1. */
export function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/** The byte written by the two hex digits at `i` of `s`, or -1 when either is not one (or `s` ends first). */
export function hexByteAt(s: string, i: number): number {
  const hi = hexValue(s.charCodeAt(i));
  const lo = hexValue(s.charCodeAt(i + 1));
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

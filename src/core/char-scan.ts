/**
 * Reading a line by index, within its end: the primitives the wrapper readers (line-prefixes.ts,
 * service-prefixes.ts) are made of. No regex, no string made.
 */

/**
 * The character code at `i` when it lies inside the line (`i < end`), else -1. A look past the line's end would see
 * the next line when the text holds it and nothing when it ends there: a damaged line must read the same either way.
 */
export const code = (s: string, i: number, end: number): number => (i < end ? s.charCodeAt(i) : -1);

export const isDigit = (c: number): boolean => c >= 48 && c <= 57;
export const isWord = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95; /* _ */

/** The end of the run of digits that starts at `i` (`i` itself when there is none). */
export function digitRun(s: string, i: number, end: number): number {
  let j = i;
  while (j < end && isDigit(s.charCodeAt(j))) j++;
  return j;
}

/** The end of a run of `min` to `max` digits from `i`, or -1 (a longer run is no match either). */
export function digitsTo(s: string, i: number, end: number, min: number, max: number): number {
  const j = digitRun(s, i, end);
  return j - i >= min && j - i <= max ? j : -1;
}

/** `text` at `i`, wholly inside the line: the index after it, or -1. */
export function lit(s: string, i: number, end: number, text: string): number {
  return i >= 0 && i + text.length <= end && s.startsWith(text, i) ? i + text.length : -1;
}

/** `\d\d:\d\d:\d\d` at `i`: the index after it, or -1. */
export function time(s: string, i: number, end: number): number {
  if (i < 0 || i + 8 > end || s.charCodeAt(i + 2) !== 58 || s.charCodeAt(i + 5) !== 58) return -1;
  for (const k of [0, 1, 3, 4, 6, 7]) if (!isDigit(s.charCodeAt(i + k))) return -1;
  return i + 8;
}

/**
 * Small pure helpers on one NCCL log line addressed as `s[start, end)` inside a larger chunk: bounded searches,
 * numbers after labels, the `host:pid` key (the wrappers before a line are read by src/core/log-line-prefixes.ts). Every search stays within its line.
 */

/** The integer after `label` within s[from, end), or -1. */
export function intAfter(s: string, label: string, from: number, end: number): number {
  const at = indexInLine(s, label, from, end);
  if (at < 0) return -1;
  let i = at + label.length;
  let n = 0;
  let digits = 0;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
    digits++;
  }
  return digits ? n : -1;
}

/**
 * The first `needle` in `s[from, end)`, or -1. A plain `s.indexOf(needle, from)` runs on to the end of the chunk when
 * the line lacks the needle: on a whole 20 MB input (standard input, a file read whole) one `comm 0x…` line without
 * ` nNodes ` (NCCL before 2.9) searched the rest of the log, and a 1,024-rank log took minutes. Searching a slice of
 * the line (a V8 sliced string: no copy) keeps every line's work proportional to the line.
 */
export function indexInLine(s: string, needle: string, from: number, end: number): number {
  if (end - from < needle.length) return -1;
  const at = s.slice(from, end).indexOf(needle);
  return at < 0 ? -1 : from + at;
}

/**
 * A copy that does not pin the multi-MiB chunk it was sliced from (V8 sliced strings keep their parent alive). Strings
 * under 13 characters are copies already; a longer one is joined to a space (a cons string), which slicing flattens
 * into a fresh string: the result points into that, not into the chunk. (Six times faster than copying per character.)
 */
export function keep(str: string): string {
  return str.length < 13 ? str : ` ${str}`.slice(1);
}

/** `host:pid` of a `host:pid:tid [dev] …` line; `k` is where the prefix ends. */
export function processKey(s: string, p: number, k: number, end = k): string {
  const sp = indexInLine(s, " ", p, Math.min(k, end));
  const stop = sp >= 0 ? sp : k;
  // Backwards within the prefix only: lastIndexOf(":", stop) would walk back through the whole chunk.
  const head = s.slice(p, stop);
  const last = head.lastIndexOf(":");
  return last > 0 ? head.slice(0, last) : head;
}

export function hostOf(key: string): string {
  const c = key.indexOf(":");
  return c >= 0 ? key.slice(0, c) : key;
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

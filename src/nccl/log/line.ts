import {
  bracketDatetimeAt,
  commentStarAt,
  editorLineNumberAt,
  kubectlPrefixAt,
  kubectlTimestampAt,
  loggerAt,
  rayActorAt,
  rfc3339End,
  srunLabelAt,
  tagOutputAt,
} from "../../core/line-prefixes.js";

/**
 * Small pure helpers on one NCCL log line addressed as `s[start, end)` inside a larger chunk: bounded searches,
 * numbers after labels, the `host:pid` key, launcher and timestamp prefixes. Every search stays within its line.
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

/**
 * Skips launcher and timestamp prefixes, stacked ones too. The wrapper families a pasted capture is normalised for are
 * read by the one line reader (src/core/line-prefixes.ts): Open MPI `[1,0]<stdout>:`, srun `  0: `, NCCL ≥ 2.26
 * `[2026-05-05 06:16:47] `, kubectl `--timestamps` `2026-05-05T06:16:47.123Z ` and `--prefix`
 * `[pod/name/container] `, a Ray actor's `(RayWorkerWrapper pid=336, ip=…) `, an editor's line number `12 | `, C comment
 * stars ` * `, a Python logger's `2025-06-11 09:12:05,301 - name - INFO - `. An NCCL line also loses what only a log
 * line can carry: ANSI colour, torchrun's `[default0]:`, a launcher's rank `[3] `, a table's bar `| `, NCCL's
 * `%F %T ` time stamp without brackets, indentation. Returns the index where the NCCL line proper starts.
 */
export function skipPrefixes(s: string, start: number, end: number): number {
  let i = start;
  for (let round = 0; round < 8 && i < end; round++) {
    const c = s.charCodeAt(i);
    let j = -1;
    if (c === 27 /* ESC: an ANSI colour, ECMA-48 CSI */) {
      if (s.charCodeAt(i + 1) !== 91) return i;
      j = i + 2;
      while (j < end && j - i < 16 && !(s.charCodeAt(j) >= 64 && s.charCodeAt(j) <= 126)) j++;
      j++;
    } else if (c === 91 /* [ */) j = bracketPrefixEnd(s, i, end);
    else if (c === 40 /* ( */) j = rayActorAt(s, i, end);
    else if (c === 42 /* * */) j = commentStarAt(s, i, end);
    else if (c === 124 /* | */)
      j = charIn(s, i + 1, end) === 32 ? i + 2 : -1; // a table or editor gutter's bar
    else if (c === 32 || isDigit(c)) j = numberPrefixEnd(s, i, end);
    if (j <= i) return i;
    i = j;
  }
  return i;
}

/** A prefix that starts with `[`: Open MPI's tag, NCCL's time stamp, kubectl's pod, torchrun's `[default0]:`, `[3] `. */
function bracketPrefixEnd(s: string, i: number, end: number): number {
  const dated = charIn(s, i + 5, end) === 45;
  let known = dated ? bracketDatetimeAt(s, i, end) : tagOutputAt(s, i, end);
  if (known < 0 && !dated) known = kubectlPrefixAt(s, i, end);
  if (known >= 0) return known;
  const close = indexInLine(s, "]", i, Math.min(end, i + 41));
  if (close < 0) return -1;
  const after = s.charCodeAt(close + 1);
  // torchrun `[default0]:`
  if (after === 58 && !s.startsWith(" NCCL ", close + 2)) return close + 2;
  // `[3] host:…` (a launcher's rank); not `[3] NCCL …`, `[host:pid] …`
  if (after === 32 && s.charCodeAt(close + 2) !== 78 && indexInLine(s, ":", i, close) < 0) return close + 2;
  return -1;
}

/** A prefix that starts with a space or a digit: srun's task, a gutter's line number, a time stamp, indentation. */
function numberPrefixEnd(s: string, i: number, end: number): number {
  // A date (`2026-…`) starts a time stamp or a logger's prefix; anything else a task, a line number or a star.
  const dated = charIn(s, i + 4, end) === 45 && isDigit(s.charCodeAt(i)) && isDigit(charIn(s, i + 3, end));
  let known = dated ? kubectlTimestampAt(s, i, end) : srunLabelAt(s, i, end);
  if (known < 0) known = dated ? loggerAt(s, i, end) : editorLineNumberAt(s, i, end);
  // A log export that glues its RFC 3339 time to the line (`…05.612-08:00host:1:2 [0] NCCL …`): the time alone.
  if (known < 0 && dated) known = rfc3339End(s, i, end);
  if (known < 0 && !dated) known = commentStarAt(s, i, end);
  if (known >= 0) return known;
  let j = i;
  while (j < end && s.charCodeAt(j) === 32) j++;
  if (j > i) return isDigit(charIn(s, j, end)) ? -1 : j; // indentation
  // `2026-05-07 19:22:05 host:…` (NCCL_DEBUG_TIMESTAMP_FORMAT="%F %T ", or a logger's own date and time)
  if (
    charIn(s, i + 4, end) === 45 /* - */ &&
    charIn(s, i + 10, end) === 32 &&
    charIn(s, i + 13, end) === 58 /* : */ &&
    charIn(s, i + 16, end) === 58
  ) {
    const sp = indexInLine(s, " ", i + 11, end);
    return sp < 0 ? -1 : sp + 1;
  }
  return -1;
}

/**
 * The character code at `i` when it lies inside the line (`i < end`), else -1. A look past the line's end would see
 * the next line when the chunk holds it and nothing when the chunk ends there: a damaged line must read the same
 * either way (streamed in chunks or read whole).
 */
export function charIn(s: string, i: number, end: number): number {
  return i < end ? s.charCodeAt(i) : -1;
}

/**
 * pdsh/clush put `host: ` before each line (https://linux.die.net/man/1/pdsh): the line's first space comes right
 * after a colon. An NCCL line's first word is `host:pid:tid`, never ending in a colon.
 */
export function pdshPrefixed(s: string, start: number, end: number, space = s.indexOf(" ", start)): boolean {
  // The first space by the native search (this runs on every line of multi-GB logs; the caller may have it already);
  // a newline, a '[' or 256 characters before it mean no `host: ` prefix.
  const stop = Math.min(end, start + 256);
  if (space < 0 || space >= stop || space <= start + 1 || s.charCodeAt(space - 1) !== 58 /* : */) return false;
  const bracket = s.indexOf("[", start);
  const newline = s.indexOf("\n", start);
  return (bracket < 0 || bracket > space) && (newline < 0 || newline > space);
}

/** The end of a line without the ANSI colour reset (`ESC[0m`) a coloured log puts after it. */
export function beforeColourReset(s: string, start: number, end: number): number {
  const from = Math.max(start, end - 8);
  const esc = s.lastIndexOf("\u001b[", end - 1);
  if (esc < from) return end;
  for (let i = esc + 2; i < end - 1; i++) {
    const c = s.charCodeAt(i);
    if (!(c === 59 || isDigit(c))) return end;
  }
  return esc;
}

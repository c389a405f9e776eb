/**
 * The one line reader's rules for a log read line by line (the NCCL log's hot path, and nccl-tests' text beside it):
 * the wrapper families of line-prefixes.ts, stacked, and the wrappers only a log line carries, each one function
 * `(s, i, end) → where it ends, or -1`: ANSI colour (ECMA-48 CSI), torchrun's `[default0]:`, a launcher's rank
 * `[3] `, a table's or gutter's bar `| `, a bare `%F %T ` time stamp (NCCL_DEBUG_TIMESTAMP_FORMAT, src/debug.cc in
 * https://github.com/NVIDIA/nccl), indentation, a Markdown quote's `> `, and pdsh/clush's `host: ` read laxly (any first word ending in a
 * colon). A pasted capture is normalised only for the families its lines prove (src/analyze/normalise.ts); a log's
 * line loses these wherever they appear.
 */
import {
  bracketDatetimeAt,
  charIn,
  commentStarAt,
  editorLineNumberAt,
  kubectlPrefixAt,
  kubectlTimestampAt,
  loggerAt,
  markdownQuoteAt,
  paneBorderAt,
  rayActorAt,
  rfc3339End,
  srunLabelAt,
  tagOutputAt,
} from "./line-prefixes.js";
import { catNumberAt } from "./service-prefixes.js";

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** The first `needle` in `s[from, end)`, or -1 (a search that never runs past the line). */
function indexIn(s: string, needle: string, from: number, end: number): number {
  if (end - from < needle.length) return -1;
  const at = s.slice(from, end).indexOf(needle);
  return at < 0 ? -1 : from + at;
}

/**
 * The commonest wrappers of a large log in their exact, plainest shapes, read by one compiled pattern each (a sticky
 * regular expression runs in native code, at a third of the cost of the character-by-character readers). Each is a
 * strict subset of its family's reader with the same end, so a match answers what the reader would; anything else
 * goes to the reader. Open MPI `[1,0]<stdout>:`, NCCL's `[2026-05-05 06:16:47] `, kubectl's RFC 3339 time and a space.
 */
const TAG_OUTPUT = /\[\d+,\d+\]<std(?:out|err)>:[ \t]?/y;
const BRACKET_DATETIME = /\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?\] ?/y;
const KUBECTL_TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d(?!\d)) /y;

/** Each plain shape with the family reader it stands in for (the property test checks they agree). */
export const PLAIN_SHAPES: readonly { re: RegExp; reader: (s: string, i: number, end: number) => number }[] = [
  { re: TAG_OUTPUT, reader: tagOutputAt },
  { re: BRACKET_DATETIME, reader: bracketDatetimeAt },
  { re: KUBECTL_TIMESTAMP, reader: kubectlTimestampAt },
];

export function plainShapeAt(re: RegExp, s: string, i: number): number {
  re.lastIndex = i;
  return re.test(s) ? re.lastIndex : -1;
}

/** An ANSI colour or cursor sequence (`ESC[32m`). */
export function ansiEscapeAt(s: string, i: number, end: number): number {
  if (charIn(s, i, end) !== 27 || s.charCodeAt(i + 1) !== 91) return -1;
  let j = i + 2;
  while (j < end && j - i < 16 && !(s.charCodeAt(j) >= 64 && s.charCodeAt(j) <= 126)) j++;
  return j + 1;
}

/**
 * A colour sequence whose ESC was lost on the way (`[0m `, `[36m`, `[1;32m`: a terminal's log copied as text, a
 * collector that drops control characters): the rest of an SGR sequence, digits and `;` then `m`. No record starts
 * so (a host-stripped record is `[0] NCCL …`).
 */
export function lostEscapeColourAt(s: string, i: number, end: number): number {
  if (charIn(s, i, end) !== 91 /* [ */) return -1;
  let j = i + 1;
  while (j < end && j - i < 12 && (s.charCodeAt(j) === 59 || isDigit(s.charCodeAt(j)))) j++;
  // At least one digit: a bare `[m` would take `[mlx5_0]`.
  return j > i + 1 && j < end && s.charCodeAt(j) === 109 /* m */ ? j + 1 : -1;
}

/** torchrun's `[default0]:` (its `--tee`/`--redirects` local rank tag); not `[0]: NCCL …`. */
export function torchrunTagAt(s: string, i: number, end: number): number {
  const close = indexIn(s, "]", i, Math.min(end, i + 41));
  if (close < 0 || s.charCodeAt(close + 1) !== 58) return -1;
  return s.startsWith(" NCCL ", close + 2) ? -1 : close + 2;
}

/** A launcher's rank `[3] host:…`; not `[3] NCCL …`, nor `[host:pid] …`. */
export function launcherRankAt(s: string, i: number, end: number): number {
  const close = indexIn(s, "]", i, Math.min(end, i + 41));
  if (close < 0 || s.charCodeAt(close + 1) !== 32 || s.charCodeAt(close + 2) === 78) return -1;
  return indexIn(s, ":", i, close) < 0 ? close + 2 : -1;
}

/** A table's or a gutter's bar `| `. */
export function tableBarAt(s: string, i: number, end: number): number {
  return charIn(s, i, end) === 124 && charIn(s, i + 1, end) === 32 ? i + 2 : -1;
}

/** Indentation: spaces or tabs not followed by a digit (that is a label or a line number). */
export function indentAt(s: string, i: number, end: number): number {
  let j = i;
  while (j < end && (s.charCodeAt(j) === 32 || s.charCodeAt(j) === 9)) j++;
  return j > i && !isDigit(charIn(s, j, end)) ? j : -1;
}

/** `2026-05-07 19:22:05 ` up to the next space (NCCL_DEBUG_TIMESTAMP_FORMAT="%F %T ", or a logger's date and time). */
export function bareDatetimeAt(s: string, i: number, end: number): number {
  if (
    charIn(s, i + 4, end) !== 45 /* - */ ||
    charIn(s, i + 10, end) !== 32 ||
    charIn(s, i + 13, end) !== 58 /* : */ ||
    charIn(s, i + 16, end) !== 58
  )
    return -1;
  const sp = indexIn(s, " ", i + 11, end);
  return sp < 0 ? -1 : sp + 1;
}

/** A prefix that starts with `[`: Open MPI's tag, NCCL's time stamp, kubectl's pod, torchrun's tag, a rank. */
function bracketPrefixEnd(s: string, i: number, end: number): number {
  const dated = charIn(s, i + 5, end) === 45;
  let known = plainShapeAt(dated ? BRACKET_DATETIME : TAG_OUTPUT, s, i);
  if (known >= 0 && known <= end) return known;
  known = dated ? bracketDatetimeAt(s, i, end) : tagOutputAt(s, i, end);
  if (known < 0 && !dated) known = kubectlPrefixAt(s, i, end);
  if (known >= 0) return known;
  const lost = lostEscapeColourAt(s, i, end);
  if (lost >= 0) return lost;
  const torchrun = torchrunTagAt(s, i, end);
  return torchrun >= 0 ? torchrun : launcherRankAt(s, i, end);
}

/** A prefix that starts with a space or a digit: srun's task, a gutter's line number, a time stamp, indentation. */
function numberPrefixEnd(s: string, i: number, end: number): number {
  // A date (`2026-…`) starts a time stamp or a logger's prefix; anything else a task, a line number or a star.
  const dated = charIn(s, i + 4, end) === 45 && isDigit(s.charCodeAt(i)) && isDigit(charIn(s, i + 3, end));
  if (dated) {
    const plain = plainShapeAt(KUBECTL_TIMESTAMP, s, i);
    if (plain >= 0 && plain <= end) return plain;
  }
  let known = dated ? kubectlTimestampAt(s, i, end) : srunLabelAt(s, i, end);
  if (known < 0) known = dated ? loggerAt(s, i, end) : editorLineNumberAt(s, i, end);
  // A log export that glues its RFC 3339 time to the line (`…05.612-08:00host:1:2 [0] NCCL …`): the time alone.
  if (known < 0 && dated) known = rfc3339End(s, i, end);
  if (known < 0 && !dated) known = commentStarAt(s, i, end);
  if (known < 0 && !dated) known = catNumberAt(s, i, end);
  if (known >= 0) return known;
  const indent = indentAt(s, i, end);
  if (indent >= 0) return indent;
  if (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) return indentBeforeRecordAt(s, i, end);
  return bareDatetimeAt(s, i, end);
}

/**
 * Indentation before a record whose host starts with a digit (`  104-171-203-18:xxx [0] NCCL INFO …`, hosts named by
 * their address): the first word holds a colon and a space then `[` follows it. Else -1 (a label or a line number).
 */
function indentBeforeRecordAt(s: string, i: number, end: number): number {
  let j = i;
  while (j < end && (s.charCodeAt(j) === 32 || s.charCodeAt(j) === 9)) j++;
  const space = indexIn(s, " ", j, Math.min(end, j + 128));
  if (space < 0 || indexIn(s, ":", j, space) < 0) return -1;
  return deviceAfterSpaces(s, space) >= 0 ? j : -1;
}

/** Most spaces between a record's `host:pid:tid` and its `[dev]`: NCCL prints one, a page may align with more. */
const ALIGNING_SPACES = 4;

/**
 * Where the `[` of a record's `[dev]` stands after the spaces that start at `space` (one, or a few a page set to align
 * the devices: `host-b:xxx  [0]`), else -1. The one reader of that gap for every place a record's prefix ends.
 */
export function deviceAfterSpaces(s: string, space: number): number {
  let k = space;
  while (s.charCodeAt(k) === 32 && k - space < ALIGNING_SPACES) k++;
  return k > space && s.charCodeAt(k) === 91 /* [ */ ? k : -1;
}

/**
 * Skips every launcher, collector and time stamp prefix of a log line `s[start, end)`, stacked ones too (up to
 * eight): the index where the line proper starts.
 */
export function logLineStart(s: string, start: number, end: number): number {
  let i = start;
  for (let round = 0; round < 8 && i < end; round++) {
    const c = s.charCodeAt(i);
    let j = -1;
    if (c === 27) j = ansiEscapeAt(s, i, end);
    else if (c === 91 /* [ */) j = bracketPrefixEnd(s, i, end);
    else if (c === 40 /* ( */) j = rayActorAt(s, i, end);
    else if (c === 42 /* * */) j = commentStarAt(s, i, end);
    else if (c === 124 /* | */) j = tableBarAt(s, i, end);
    else if (c === 62 /* > */) j = markdownQuoteAt(s, i, end);
    else if (c === 0x2502 || c === 0x2503 || c === 0x2551) j = paneBorderAt(s, i, end);
    else if (c === 32 || c === 9 || isDigit(c)) j = numberPrefixEnd(s, i, end);
    if (j <= i) return i;
    i = j;
  }
  return i;
}

/**
 * pdsh/clush put `host: ` before each line (https://linux.die.net/man/1/pdsh), read laxly here: the line's first space
 * comes right after a colon (an NCCL line's first word is `host:pid:tid`, never ending in a colon), with no `[` or
 * newline before it, within 256 characters. `space` is the first space at or after `start` when the caller has it.
 */
export function pdshLaxAt(s: string, start: number, end: number, space = s.indexOf(" ", start)): number {
  const stop = Math.min(end, start + 256);
  if (space < 0 || space >= stop || space <= start + 1 || s.charCodeAt(space - 1) !== 58 /* : */) return -1;
  const bracket = s.indexOf("[", start);
  const newline = s.indexOf("\n", start);
  return (bracket < 0 || bracket > space) && (newline < 0 || newline > space) ? space + 1 : -1;
}

/**
 * Where a line ends without the ANSI colour reset (`ESC[0m`) a coloured log puts after it. The reset is looked for in
 * the line's last 8 characters only: a search back from the line's end (lastIndexOf) would walk through every line
 * before it in the chunk whenever none is there, so a log whose lines end in `m` without colour read in quadratic time.
 */
export function colourResetStart(s: string, start: number, end: number): number {
  const from = Math.max(start, end - 8);
  let esc = end - 2;
  while (esc >= from && !(s.charCodeAt(esc) === 27 && s.charCodeAt(esc + 1) === 91)) esc--;
  if (esc < from) return end;
  for (let i = esc + 2; i < end - 1; i++) {
    const c = s.charCodeAt(i);
    if (!(c === 59 || isDigit(c))) return end;
  }
  return esc;
}

/**
 * The one reader of the per-line wrappers that launchers, log collectors and pastes put in front of a line: each
 * family is one function `(s, i, end) → where the prefix ends, or -1`, reading `s[i, end)` by index (no regex, no
 * string made), so that the NCCL log's hot path (src/nccl/log/line.ts, a line inside a multi-MiB chunk) and the
 * normalisation of a pasted capture (src/analyze/normalise.ts, line by line) remove a wrapper with the same code.
 * Every look stays within the line.
 *
 * Shapes: Open MPI `mpirun --tag-output` `[JOBID,RANK]<stdout>:`
 * (https://docs.open-mpi.org/en/v5.0.x/man-openmpi/man1/mpirun.1.html); Slurm `srun --label` `TASK: `
 * (https://slurm.schedmd.com/srun.html#OPT_label); `kubectl logs --prefix` `[pod/NAME/CONTAINER] ` and `--timestamps`
 * (an RFC 3339 time, then a space; https://kubernetes.io/docs/reference/kubectl/generated/kubectl_logs/); NCCL's own
 * `[%F %T] ` (NCCL_DEBUG_TIMESTAMP_FORMAT, src/debug.cc in https://github.com/NVIDIA/nccl); Ray's actor prefix
 * `(RayWorkerWrapper pid=336, ip=10.1.2.3) `
 * (https://docs.ray.io/en/latest/ray-observability/user-guides/configure-logging.html); Python logging's
 * `%(asctime)s - %(name)s - %(levelname)s - ` (https://docs.python.org/3/library/logging.html#logrecord-attributes) and
 * glog's `I0611 09:12:01.118220 140211 file.py:757] `; pdsh/clush `HOST: ` (https://linux.die.net/man/1/pdsh); an
 * editor's gutter `  12 | `; C comment stars ` * `; a Markdown blockquote's `> `; a text UI pane's `│ ` border. The wrappers only a log line carries, and the stacked reading of a
 * log line, are in log-line-prefixes.ts.
 */

import { code, digitRun, digitsTo, isDigit, isWord, lit, time } from "./char-scan.js";
import {
  catNumberAt,
  composeServiceAt,
  grepFileAt,
  grepPrefixAt,
  horovodTagAt,
  prependRankAt,
  syslogAt,
  timeOfDayAt,
  torchrunRankAt,
} from "./service-prefixes.js";

export type WrapperName =
  | "tag_output"
  | "srun_label"
  | "kubectl_prefix"
  | "kubectl_timestamp"
  | "bracket_datetime"
  | "pdsh_host"
  | "editor_line_number"
  | "ray_actor"
  | "comment_star"
  | "logger"
  | "compose_service"
  | "syslog"
  | "time_of_day"
  | "torchrun_rank"
  | "horovod_tag"
  | "prepend_rank"
  | "grep_prefix"
  | "cat_number"
  | "markdown_quote"
  | "pane_border";

/** A wrapper family: where its prefix at `i` ends (-1: none there), and the fact the prefix names, if any. */
export type PrefixFamily = {
  name: WrapperName;
  at: (s: string, i: number, end: number) => number;
  fact?: { kind: "rank" | "task" | "host"; of: (s: string, i: number) => string };
  /**
   * The prefix without the part only some of its forms carry (grep's `-n` line number after `-H`'s file name): what
   * comes off where most lines carry none, so a number that starts a few lines' own text stays.
   */
  lean?: (s: string, i: number, end: number) => number;
};

export { code as charIn };

/** A regular expression's `\s`. */
const isSpace = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 160 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;

/** Not a digit at `k` (a code below '0' wraps to a large unsigned number). */
const nd = (s: string, k: number): boolean => (s.charCodeAt(k) - 48) >>> 0 > 9;

/**
 * `\d{4}-\d\d-\d\d` + `sep` + `\d\d:\d\d:\d\d` at `i` (`sep` a character code, or -1 for a space or `T`): the
 * index after it, or -1. The separators first (most lines fail there), then the digits: this runs on every prefixed
 * log line.
 */
function dateTimeAt(s: string, i: number, end: number, sep: number): number {
  if (i < 0 || i + 19 > end) return -1;
  if (s.charCodeAt(i + 4) !== 45 || s.charCodeAt(i + 7) !== 45) return -1;
  if (s.charCodeAt(i + 13) !== 58 || s.charCodeAt(i + 16) !== 58) return -1;
  const t = s.charCodeAt(i + 10);
  if (sep >= 0 ? t !== sep : t !== 32 && t !== 84) return -1;
  // Unrolled: this runs on every prefixed log line.
  if (nd(s, i) || nd(s, i + 1) || nd(s, i + 2) || nd(s, i + 3) || nd(s, i + 5) || nd(s, i + 6)) return -1;
  if (nd(s, i + 8) || nd(s, i + 9) || nd(s, i + 11) || nd(s, i + 12) || nd(s, i + 14) || nd(s, i + 15)) return -1;
  if (nd(s, i + 17) || nd(s, i + 18)) return -1;
  return i + 19;
}

/** An optional `[.,]\d+` (or `.\d+` when `comma` is false) at `i`: the index after it, else `i`. */
function fraction(s: string, i: number, end: number, comma: boolean): number {
  const c = code(s, i, end);
  if (!(c === 46 || (comma && c === 44))) return i;
  const j = digitRun(s, i + 1, end);
  if (j === i + 1) return i;
  return j < 0 ? i : j;
}

/**
 * `[JOBID,RANK]<stdout>:` or `<stderr>:`, then an optional space or tab. The tag may be indented (a paste quoted or
 * nested in a list, every line `        [1,0]<stdout>:…`): the indentation goes with it.
 */
export function tagOutputAt(s: string, i: number, end: number): number {
  while (i < end && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
  if (code(s, i, end) !== 91) return -1;
  let j = i + 1;
  while (j < end && isDigit(s.charCodeAt(j))) j++;
  if (j === i + 1 || code(s, j, end) !== 44) return -1;
  const rank = ++j;
  while (j < end && isDigit(s.charCodeAt(j))) j++;
  // `]<std` then `out>:` or `err>:`, by character code: a tagged line reads this on every line of a job's log, and a
  // call to startsWith costs more than the ten comparisons.
  if (j === rank || j + 10 > end || s.charCodeAt(j) !== 93 || s.charCodeAt(j + 1) !== 60 /* < */) return -1;
  if (s.charCodeAt(j + 2) !== 115 || s.charCodeAt(j + 3) !== 116 || s.charCodeAt(j + 4) !== 100 /* std */) return -1;
  const o = s.charCodeAt(j + 5);
  const out = o === 111 && s.charCodeAt(j + 6) === 117 && s.charCodeAt(j + 7) === 116; /* out */
  if (!out && !(o === 101 && s.charCodeAt(j + 6) === 114 && s.charCodeAt(j + 7) === 114) /* err */) return -1;
  if (s.charCodeAt(j + 8) !== 62 || s.charCodeAt(j + 9) !== 58 /* >: */) return -1;
  const c = code(s, j + 10, end);
  return c === 32 || c === 9 ? j + 11 : j + 10;
}

/** `[pod/NAME/CONTAINER]`, then an optional space. */
export function kubectlPrefixAt(s: string, i: number, end: number): number {
  const from = lit(s, i, end, "[pod/");
  if (from < 0) return -1;
  let j = from;
  while (j < end && s.charCodeAt(j) !== 93 && s.charCodeAt(j) !== 47 && !isSpace(s.charCodeAt(j))) j++;
  if (j === from || code(s, j, end) !== 47) return -1;
  const name = j + 1;
  j = name;
  while (j < end && s.charCodeAt(j) !== 93 && !isSpace(s.charCodeAt(j))) j++;
  if (j === name || code(s, j, end) !== 93) return -1;
  return code(s, j + 1, end) === 32 ? j + 2 : j + 1;
}

/** An RFC 3339 time (`2026-03-13T22:26:02.123456789Z`, or with an offset `+02:00`) and a space. */
export function kubectlTimestampAt(s: string, i: number, end: number): number {
  const j = rfc3339End(s, i, end);
  return j >= 0 && code(s, j, end) === 32 ? j + 1 : -1;
}

/** The index after an RFC 3339 time (`2026-03-13T22:26:02.123Z`, `…+02:00`) at `i`, whatever follows; else -1. */
export function rfc3339End(s: string, i: number, end: number): number {
  let j = dateTimeAt(s, i, end, 84 /* T */);
  if (j < 0) return -1;
  j = fraction(s, j, end, false);
  const c = code(s, j, end);
  if (c === 90 /* Z */) j++;
  else if (c === 43 || c === 45) {
    j = digitsTo(s, j + 1, end, 2, 2);
    if (j < 0 || code(s, j, end) !== 58) return -1;
    j = digitsTo(s, j + 1, end, 2, 2);
    if (j < 0) return -1;
  } else return -1;
  return j;
}

/** `[2026-03-13 22:26:02]` (a `T` between, a fraction after the seconds allowed), then an optional space. */
export function bracketDatetimeAt(s: string, i: number, end: number): number {
  if (code(s, i, end) !== 91) return -1;
  let j = dateTimeAt(s, i + 1, end, -1);
  if (j < 0) return -1;
  j = fraction(s, j, end, true);
  if (code(s, j, end) !== 93) return -1;
  return code(s, j + 1, end) === 32 ? j + 2 : j + 1;
}

/** Up to three spaces, a task number of up to five digits, `: `. */
export function srunLabelAt(s: string, i: number, end: number): number {
  let j = i;
  while (j < end && j - i < 3 && s.charCodeAt(j) === 32) j++;
  j = digitsTo(s, j, end, 1, 5);
  return j >= 0 && code(s, j, end) === 58 && code(s, j + 1, end) === 32 ? j + 2 : -1;
}

/** An editor's or viewer's gutter: spaces, a line number of up to seven digits, an optional space, `|`, an optional space. */
export function editorLineNumberAt(s: string, i: number, end: number): number {
  let j = i;
  while (j < end && s.charCodeAt(j) === 32) j++;
  j = digitsTo(s, j, end, 1, 7);
  if (j < 0) return -1;
  if (code(s, j, end) === 32) j++;
  if (code(s, j, end) !== 124) return -1;
  return code(s, j + 1, end) === 32 ? j + 2 : j + 1;
}

/** One Ray actor prefix `(Name pid=336, ip=10.1.2.3)` or `(name, rank=1, pid=336, ip=…)` (name, rank and ip optional) and an optional space, or -1. */
function rayGroupAt(s: string, i: number, end: number): number {
  if (code(s, i, end) !== 40) return -1;
  let j = i + 1;
  while (j < end && (isWord(s.charCodeAt(j)) || s.charCodeAt(j) === 46 || s.charCodeAt(j) === 45)) j++;
  let pid = j > i + 1 && code(s, j, end) === 32 ? lit(s, j + 1, end, "pid=") : -1;
  if (pid < 0 && j > i + 1 && code(s, j, end) === 32) pid = secondWordThenPid(s, j + 1, end);
  if (pid < 0 && j > i + 1) pid = rankThenPid(s, j, end);
  if (pid < 0) pid = lit(s, i + 1, end, "pid=");
  j = pid < 0 ? -1 : digitsTo(s, pid, end, 1, Number.MAX_SAFE_INTEGER);
  if (j < 0) return -1;
  const ip = lit(s, j, end, ", ip=");
  if (ip >= 0) {
    let k = ip;
    for (let c = code(s, k, end); isDigit(c) || c === 46 || c === 58 || (c >= 97 && c <= 102); c = code(s, ++k, end));
    if (k > ip) j = k;
  }
  if (code(s, j, end) !== 41) return -1;
  return code(s, j + 1, end) === 32 ? j + 2 : j + 1;
}

/**
 * One more word between the name and `pid=`, as vLLM's worker processes put it (`(VllmWorker rank=0 pid=403)`,
 * `(VllmWorker TP0 pid=403)`, seen at https://github.com/vllm-project/vllm/issues/17756): the index after `pid=`, or -1.
 */
function secondWordThenPid(s: string, i: number, end: number): number {
  let k = i;
  for (let c = code(s, k, end); isWord(c) || c === 46 || c === 45 || c === 61; c = code(s, ++k, end));
  return k > i && code(s, k, end) === 32 ? lit(s, k + 1, end, "pid=") : -1;
}

/**
 * `, rank=N, pid=` or `, pid=` after a task's name (a launcher that runs one Ray task per node: `(head, rank=0,
 * pid=21170)`, and `(batch-eval, pid=7812)` for a one-node job, shape seen in SkyPilot's job logs): the index after
 * `pid=`, or -1.
 */
function rankThenPid(s: string, i: number, end: number): number {
  const comma = lit(s, i, end, ", ");
  if (comma < 0) return -1;
  const r = lit(s, comma, end, "rank=");
  if (r < 0) return lit(s, comma, end, "pid=");
  const k = digitsTo(s, r, end, 1, 9);
  const c = k < 0 ? -1 : lit(s, k, end, ", ");
  return c < 0 ? -1 : lit(s, c, end, "pid=");
}

/** Ray's actor prefixes, nested ones too. */
export function rayActorAt(s: string, i: number, end: number): number {
  let j = rayGroupAt(s, i, end);
  if (j < 0) return -1;
  for (let next = rayGroupAt(s, j, end); next >= 0; next = rayGroupAt(s, j, end)) j = next;
  return j;
}

/**
 * A Markdown blockquote's marker: up to three spaces, `>`, an optional space (CommonMark, Block quotes:
 * https://spec.commonmark.org/0.31.2/#block-quotes). A quoted paste carries it on every line; a nested quote twice.
 */
export function markdownQuoteAt(s: string, i: number, end: number): number {
  let j = i;
  while (j - i < 3 && code(s, j, end) === 32) j++;
  if (code(s, j, end) !== 62 /* > */) return -1;
  return code(s, j + 1, end) === 32 ? j + 2 : j + 1;
}

/**
 * A terminal pane's left border: `│` (or the heavy `┃`, the double `║`) and a space, as a log viewer in a text UI
 * draws it beside every line (k9s' log view copied with its frame, shape seen in https://github.com/NVIDIA/nccl/issues/733).
 */
export function paneBorderAt(s: string, i: number, end: number): number {
  const c = code(s, i, end);
  if (c !== 0x2502 && c !== 0x2503 && c !== 0x2551) return -1;
  return code(s, i + 1, end) === 32 ? i + 2 : i + 1;
}

/** C comment stars: an optional space, `*`, an optional space. */
export function commentStarAt(s: string, i: number, end: number): number {
  const j = code(s, i, end) === 32 ? i + 1 : i;
  if (code(s, j, end) !== 42) return -1;
  return code(s, j + 1, end) === 32 ? j + 2 : j + 1;
}

const LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"];

/** `LEVEL - ` at `i`: the index after it, or -1. */
function levelAt(s: string, i: number, end: number): number {
  for (const l of LEVELS) {
    const j = lit(s, i, end, l);
    if (j >= 0) return lit(s, j, end, " - ");
  }
  return -1;
}

/** Python logging `2025-06-11 09:12:05,301 - name - INFO - ` (the name optional). */
function pythonLoggerAt(s: string, i: number, end: number): number {
  let j = dateTimeAt(s, i, end, 32);
  const c = j < 0 ? -1 : code(s, j, end);
  if (c !== 44 && c !== 46) return -1;
  j = digitsTo(s, j + 1, end, 1, Number.MAX_SAFE_INTEGER);
  j = j < 0 ? -1 : lit(s, j, end, " - ");
  if (j < 0) return -1;
  // `name - LEVEL - ` first, as the pattern's optional name is tried first; then `LEVEL - `.
  let n = j;
  while (n < end && (isWord(s.charCodeAt(n)) || s.charCodeAt(n) === 46 || s.charCodeAt(n) === 45)) n++;
  const named = n > j ? lit(s, n, end, " - ") : -1;
  const withName = named < 0 ? -1 : levelAt(s, named, end);
  return withName >= 0 ? withName : levelAt(s, j, end);
}

/** glog `I0611 09:12:01.118220 140211 file.py:757] `. */
function glogAt(s: string, i: number, end: number): number {
  const c = code(s, i, end);
  if (c !== 73 && c !== 87 && c !== 69 && c !== 70) return -1;
  let j = digitsTo(s, i + 1, end, 4, 4);
  if (j < 0 || code(s, j, end) !== 32) return -1;
  j = time(s, j + 1, end);
  if (j < 0 || code(s, j, end) !== 46) return -1;
  j = digitsTo(s, j + 1, end, 1, Number.MAX_SAFE_INTEGER);
  if (j < 0 || code(s, j, end) !== 32) return -1;
  while (code(s, j, end) === 32) j++;
  j = digitsTo(s, j, end, 1, Number.MAX_SAFE_INTEGER);
  if (j < 0 || code(s, j, end) !== 32) return -1;
  const file = ++j;
  for (let k = code(s, j, end); isWord(k) || k === 46 || k === 47 || k === 45; k = code(s, ++j, end));
  if (j === file || code(s, j, end) !== 58) return -1;
  j = digitsTo(s, j + 1, end, 1, Number.MAX_SAFE_INTEGER);
  return j >= 0 && code(s, j, end) === 93 && code(s, j + 1, end) === 32 ? j + 2 : -1;
}

/** A logger's own prefix: Python logging's or glog's. */
export function loggerAt(s: string, i: number, end: number): number {
  const c = code(s, i, end);
  return isDigit(c) ? pythonLoggerAt(s, i, end) : glogAt(s, i, end);
}

/**
 * pdsh/clush `HOST: `. A host name has a digit, `-` or `.` after its first letter, so that a capture's own
 * `Key: value` lines are never taken for one. Hosts given to pdsh by address (`pdsh -w 10.9.35.83`) print as a
 * dotted IPv4 quad: `10.9.35.83: `.
 */
export function pdshHostAt(s: string, i: number, end: number): number {
  const c0 = code(s, i, end);
  if (isDigit(c0)) return ipv4HostAt(s, i, end);
  if (!((c0 >= 65 && c0 <= 90) || (c0 >= 97 && c0 <= 122))) return -1;
  let j = i + 1;
  let marked = false;
  for (let c = code(s, j, end); isWord(c) || c === 46 || c === 45; c = code(s, ++j, end)) {
    if (isDigit(c) || c === 46 || c === 45) marked = true;
  }
  return marked && code(s, j, end) === 58 && code(s, j + 1, end) === 32 ? j + 2 : -1;
}

/** `10.9.35.83: `: four dot-separated groups of 1–3 digits, then `: `; the index after it, or -1. */
function ipv4HostAt(s: string, i: number, end: number): number {
  let j = i;
  for (let group = 0; group < 4; group++) {
    if (group > 0) {
      if (code(s, j, end) !== 46) return -1;
      j++;
    }
    const from = j;
    while (isDigit(code(s, j, end)) && j - from < 4) j++;
    if (j === from || j - from > 3) return -1;
  }
  return code(s, j, end) === 58 && code(s, j + 1, end) === 32 ? j + 2 : -1;
}

/** The digits that end just before `stop` (the rank of `[1,7]<stdout>:`, the task of `  3: `). */
function digitsBefore(s: string, i: number, stop: number): string {
  let k = stop;
  while (k > i && isDigit(s.charCodeAt(k - 1))) k--;
  return s.slice(k, stop);
}

/** The rank a launcher's tag names: the digits before its first `]` (`[1,12]<stdout>:`, `[3]<stdout>:`, `[3] `). */
const RANK_IN_BRACKETS: PrefixFamily["fact"] = { kind: "rank", of: (s, i) => digitsBefore(s, i, s.indexOf("]", i)) };

/**
 * The families a pasted capture's lines are checked for, in the order they are tried. A family is removed only when
 * the lines prove it (normalise.ts); the NCCL log reader removes them line by line (logLineStart).
 */
export const PREFIX_FAMILIES: readonly PrefixFamily[] = [
  { name: "tag_output", at: tagOutputAt, fact: RANK_IN_BRACKETS },
  { name: "kubectl_prefix", at: kubectlPrefixAt },
  { name: "kubectl_timestamp", at: kubectlTimestampAt },
  { name: "bracket_datetime", at: bracketDatetimeAt },
  { name: "srun_label", at: srunLabelAt, fact: { kind: "task", of: (s, i) => digitsBefore(s, i, s.indexOf(":", i)) } },
  { name: "editor_line_number", at: editorLineNumberAt },
  { name: "ray_actor", at: rayActorAt },
  { name: "comment_star", at: commentStarAt },
  { name: "logger", at: loggerAt },
  { name: "pdsh_host", at: pdshHostAt, fact: { kind: "host", of: (s, i) => s.slice(i, s.indexOf(":", i)) } },
  { name: "compose_service", at: composeServiceAt },
  { name: "syslog", at: syslogAt },
  { name: "time_of_day", at: timeOfDayAt },
  { name: "torchrun_rank", at: torchrunRankAt },
  { name: "horovod_tag", at: horovodTagAt, fact: RANK_IN_BRACKETS },
  { name: "prepend_rank", at: prependRankAt, fact: RANK_IN_BRACKETS },
  { name: "grep_prefix", at: grepPrefixAt, lean: grepFileAt },
  { name: "cat_number", at: catNumberAt },
  { name: "markdown_quote", at: markdownQuoteAt },
  { name: "pane_border", at: paneBorderAt },
];

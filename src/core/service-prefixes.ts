/**
 * Wrappers that the services a job's output passes through put in front of each line, read by index like the
 * families of line-prefixes.ts:
 * - docker compose `trainer-1  | ` (v2; `trainer_1  | ` in v1): the service, padded, a bar
 *   (https://docs.docker.com/reference/cli/docker/compose/logs/);
 * - syslog and `journalctl` (short, short-precise) `Dec  5 12:00:01 gpu-node-7 python3[4121]: `, and moreutils' `ts`
 *   (default format `%b %d %H:%M:%S `), the time alone
 *   (https://man7.org/linux/man-pages/man1/journalctl.1.html, https://manpages.debian.org/moreutils/ts.1.en.html);
 * - torchrun's `[default0]:` (`--tee`/`--redirects`, the local rank) and `[rank0]:` (the global rank PyTorch puts on
 *   each line of a worker's failure) (https://docs.pytorch.org/docs/stable/elastic/run.html);
 * - Horovod's `[0]<stdout>:`, after `time.asctime()` when asked for (`Sat Dec  5 12:00:01 2026[0]<stdout>:`,
 *   `{time}[{rank}]<{prefix}>:` in horovod/runner/common/util/safe_shell_exec.py);
 * - Intel MPI's and MPICH's `-prepend-rank` `[0] ` (https://www.intel.com/content/www/us/en/docs/mpi-library/developer-reference-linux/2021-8/global-hydra-options.html);
 * - grep's `-H` file name and `-n` line number (`logs/rank0.log:12:`, `12:`), cat -n's and nl's `     1<TAB>`
 *   (https://www.gnu.org/software/grep/manual/grep.html#Output-Line-Prefix-Control).
 * Pure.
 */
import { code, digitsTo, isDigit, isWord, lit, time } from "./char-scan.js";

/** The service name, one or more spaces, `|`, then a space (or the end of an empty line). */
export function composeServiceAt(s: string, i: number, end: number): number {
  const c0 = code(s, i, end);
  if (!(isWord(c0) && c0 !== 95)) return -1;
  let j = i + 1;
  for (let c = code(s, j, end); isWord(c) || c === 45 || c === 46; c = code(s, ++j, end));
  if (code(s, j, end) !== 32) return -1;
  while (code(s, j, end) === 32) j++;
  if (code(s, j, end) !== 124) return -1;
  const after = code(s, j + 1, end);
  return after === 32 ? j + 2 : after === -1 ? j + 1 : -1;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `host ident[pid]: ` or `host ident: ` (no colon in the host, so an NCCL line's `host:pid:tid` is never one). */
function hostIdentAt(s: string, i: number, end: number): number {
  let j = i;
  for (let c = code(s, j, end); c > 32 && c !== 58 && c !== 91; c = code(s, ++j, end));
  if (j === i || code(s, j, end) !== 32) return -1;
  const ident = ++j;
  for (let c = code(s, j, end); isWord(c) || c === 45 || c === 46 || c === 47; c = code(s, ++j, end));
  if (j === ident) return -1;
  if (code(s, j, end) === 91) {
    j = digitsTo(s, j + 1, end, 1, 10);
    if (j < 0 || code(s, j, end) !== 93) return -1;
    j++;
  }
  return code(s, j, end) === 58 && code(s, j + 1, end) === 32 ? j + 2 : -1;
}

/** `Mmm dd hh:mm:ss[.ffffff] host ident[pid]: ` (syslog, journalctl). */
export function syslogAt(s: string, i: number, end: number): number {
  const t = timeOfDayAt(s, i, end);
  return t < 0 ? -1 : hostIdentAt(s, t, end);
}

/**
 * `Mmm dd hh:mm:ss[.ffffff] ` alone (moreutils' ts). Apart from syslog's family: a line's own `Key word: value`
 * after a bare time would read as a host and an ident, so each family is proven on the lines as a whole.
 */
export function timeOfDayAt(s: string, i: number, end: number): number {
  if (i + 15 > end || !MONTHS.some((m) => s.startsWith(m, i)) || s.charCodeAt(i + 3) !== 32) return -1;
  let j = i + 4;
  if (code(s, j, end) === 32) j++;
  j = digitsTo(s, j, end, 1, 2);
  if (j < 0 || code(s, j, end) !== 32) return -1;
  j = time(s, j + 1, end);
  if (j < 0) return -1;
  if (code(s, j, end) === 46 && isDigit(code(s, j + 1, end))) j = digitsTo(s, j + 1, end, 1, 9);
  return j < 0 || code(s, j, end) !== 32 ? -1 : j + 1;
}

/** `[default0]:` or `[rank12]:`, then an optional space. */
export function torchrunRankAt(s: string, i: number, end: number): number {
  if (code(s, i, end) !== 91) return -1;
  let j = lit(s, i + 1, end, "default");
  if (j < 0) j = lit(s, i + 1, end, "rank");
  j = j < 0 ? -1 : digitsTo(s, j, end, 1, 6);
  if (j < 0 || code(s, j, end) !== 93 || code(s, j + 1, end) !== 58) return -1;
  return code(s, j + 2, end) === 32 ? j + 3 : j + 2;
}

const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/** `Sat Dec  5 12:00:01 2026` (C's asctime): the index after it, or -1. */
function asctimeAt(s: string, i: number, end: number): number {
  if (!DAYS.some((d) => s.startsWith(d, i)) || code(s, i + 3, end) !== 32) return -1;
  const t = timeOfDayAt(s, i + 4, end);
  return t < 0 ? -1 : digitsTo(s, t, end, 4, 4);
}

/** Horovod's `[RANK]<stdout>:` or `<stderr>:`, after an asctime when there. */
export function horovodTagAt(s: string, i: number, end: number): number {
  const t = asctimeAt(s, i, end);
  let j = t < 0 ? i : t;
  if (code(s, j, end) !== 91) return -1;
  j = digitsTo(s, j + 1, end, 1, 9);
  if (j < 0) return -1;
  const out = lit(s, j, end, "]<stdout>:");
  return out >= 0 ? out : lit(s, j, end, "]<stderr>:");
}

/** NCCL's own levels after its `[dev] ` (a record whose host a collector dropped). */
const NCCL_LEVELS = ["NCCL INFO", "NCCL WARN", "NCCL TRACE", "NCCL CALL"];

/**
 * `[RANK] ` before a line that is not NCCL's own `[dev] NCCL INFO …`. A tag that comes back glued to the text before it
 * and followed by spaces and a number (`…  -1[0]   104.45`: a launcher that tagged each write of a row printed in
 * pieces) is left to the reader of that output, which takes every one out; NCCL's own ` [0] ` device after a space,
 * or `12[4] -> 11[3]` in a channel line, is not such a tag.
 */
export function prependRankAt(s: string, i: number, end: number): number {
  if (code(s, i, end) !== 91) return -1;
  const j = digitsTo(s, i + 1, end, 1, 6);
  if (j < 0 || code(s, j, end) !== 93 || code(s, j + 1, end) !== 32) return -1;
  if (NCCL_LEVELS.some((l) => lit(s, j + 2, end, l) >= 0)) return -1;
  const tag = s.slice(i, j + 1);
  for (let k = s.indexOf(tag, j + 1); k >= 0 && k < end; k = s.indexOf(tag, k + 1)) {
    const glued = s.charCodeAt(k - 1) !== 32 && s.charCodeAt(k - 1) !== 9;
    let n = k + tag.length;
    while (code(s, n, end) === 32) n++;
    if (glued && n > k + tag.length && isDigit(code(s, n, end))) return -1;
  }
  return j + 2;
}

/** A line number and a colon not followed by a digit (`12:` but not a time's `12:00`). */
function lineNumberColonAt(s: string, i: number, end: number): number {
  const j = digitsTo(s, i, end, 1, 9);
  return j >= 0 && code(s, j, end) === 58 && !isDigit(code(s, j + 1, end)) ? j + 1 : -1;
}

/**
 * grep's `-H` file name (`logs/rank0.log:`), then its `-n` line number when there; or the line number alone. A file
 * name has a `/` or ends in `.log`, `.txt`, `.out` or `.err` (a number after allowed, `.log.1`): a host name never has a
 * slash, and NCCL's `host.domain:pid:tid` has no such ending.
 */
export function grepPrefixAt(s: string, i: number, end: number): number {
  const n = lineNumberColonAt(s, i, end);
  if (n >= 0) return n;
  const file = grepFileAt(s, i, end);
  if (file < 0) return -1;
  const line = lineNumberColonAt(s, file, end);
  return line >= 0 ? line : file;
}

/**
 * grep's `-H` file name alone (`logs/rank0.log:`), without the `-n` line number after it: where the file's lines carry
 * no such number, a number and colon after the name on a few lines is the text's own (`8:` of a viewer's numbers).
 */
export function grepFileAt(s: string, i: number, end: number): number {
  let j = i;
  let slash = false;
  for (let c = code(s, j, end); isWord(c) || c === 45 || c === 46 || c === 47; c = code(s, ++j, end))
    if (c === 47) slash = true;
  if (j === i || code(s, j, end) !== 58) return -1;
  const tail = s.slice(Math.max(i, j - 12), j);
  // A log file's name: `….log`, `….txt`, `….out`, `….err` (rotated `.1` too), or one that ends in `log` after a
  // separator (`10.20.1.11_run_log`, `worker-log`).
  if (!slash && !/(?:\.(?:log|txt|out|err)(?:\.\d+)?|[_-]log)$/.test(tail)) return -1;
  // `include/socket.h:344 WARN …`: a source file and line, as NCCL prints them, not a file grep named.
  if (SOURCE_FILE.test(tail)) return -1;
  return j + 1;
}

const SOURCE_FILE = /\.(?:h|hh|hpp|c|cc|cpp|cu|cuh|py)$/;

/** cat -n's and nl's right-aligned number and a tab. */
export function catNumberAt(s: string, i: number, end: number): number {
  let j = i;
  while (code(s, j, end) === 32) j++;
  j = digitsTo(s, j, end, 1, 9);
  return j >= 0 && code(s, j, end) === 9 ? j + 1 : -1;
}

/**
 * Wrappers that the services a job's output passes through put in front of each line, read by index like the
 * families of line-prefixes.ts:
 * - docker compose `trainer-1  | ` (v2; `trainer_1  | ` in v1): the service, padded, a bar
 *   (https://docs.docker.com/reference/cli/docker/compose/logs/);
 * - syslog and `journalctl` (short, short-precise) `Dec  5 12:00:01 gpu-node-7 python3[4121]: `, and moreutils' `ts`
 *   (default format `%b %d %H:%M:%S `), the time alone
 *   (https://man7.org/linux/man-pages/man1/journalctl.1.html, https://manpages.debian.org/moreutils/ts.1.en.html);
 * - torchrun's `[default0]:` (`--tee`/`--redirects`, the local rank) and `[rank0]:` (the global rank PyTorch puts on
 *   each line of a worker's failure) (https://docs.pytorch.org/docs/stable/elastic/run.html).
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

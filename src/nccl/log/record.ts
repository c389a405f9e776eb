/**
 * Where one NCCL record starts inside a line, read backwards from its level marker so that any prefix in front of it
 * — known or not — is left behind: a Ray actor's `(RayWorkerWrapper pid=336, ip=…)`, an editor's `12 | `, a logger's
 * `2025-06-11 09:12:05,301 - trainer - INFO - `, C comment stars, another rank's record written into the same line.
 * The record is `host:pid:tid [dev] NCCL …` (src/debug.cc in https://github.com/NVIDIA/nccl), with the host masked
 * (`<node>:<pid>:<tid>`, `host:XXXX:XXXX`) or stripped to `[dev] NCCL …` in pastes, or a fork's
 * `[host:pid:tid] [file.cc:123] NCCL …`. Every look stays within [p, k): linear in the line, no allocation.
 */

import { indexInLine } from "./line.js";

const SPACE = 32;
const OPEN = 91; // [
const CLOSE = 93; // ]
const COLON = 58;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isAlnum(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * The start of the word that ends before `i` (not before `p`): after the last space or tab, after a launcher's or
 * logger's closing `>`, `]`, `)` or `|` glued to it (`[1,0]<stdout>:host:…`), or after a character no host name holds
 * (a sentence's glued word, Markdown's `**`); a closing bracket that ends the word itself (a fork's `[host:pid:tid]`)
 * is part of it.
 */
function tokenStart(s: string, p: number, i: number): number {
  let j = i;
  if (j > p && s.charCodeAt(j - 1) === CLOSE) j--;
  while (j > p) {
    const c = s.charCodeAt(j - 1);
    if (c === SPACE || c === 9 || c === CLOSE || c === 41 /* ) */ || c === 124 /* | */) break;
    // A host name is ASCII (RFC 1123): a sentence's own word glued before it (`在于**host:…`, Markdown's bold) is not.
    if (c > 127 || (c === 42 /* * */ && isAlnum(s.charCodeAt(j)))) break;
    // Open MPI's `<stdout>:` / `<stderr>:` tag ends here; a masked `<pid>` does not.
    if (c === 62 /* > */ && (s.startsWith("<stdout", j - 8) || s.startsWith("<stderr", j - 8))) break;
    j--;
  }
  // `[1,0]<stdout>:host:…`: the tag's colon is not the host's.
  while (j < i && s.charCodeAt(j) === COLON) j++;
  return j;
}

/**
 * `host:pid:tid` (pid and tid digits, or masked as `XXXX`, `***`, `<pid>`), optionally in brackets: at least two
 * colons, and the tail after the last one a number or a mask.
 */
function hostToken(s: string, from: number, to: number): boolean {
  let colons = 0;
  let last = -1;
  for (let i = from; i < to; i++) {
    if (s.charCodeAt(i) === COLON) {
      colons++;
      last = i;
    }
  }
  if (colons < 2) return false;
  const c = s.charCodeAt(last + 1);
  return isDigit(c) || c === 88 /* X */ || c === 120 /* x */ || c === 42 /* * */ || c === 60 /* < */;
}

/**
 * Where `[host][pid:tid][dev]` starts when those three brackets are glued before the one at `open` (a fork's
 * `[host][pid:tid][dev][file.cc:123] NCCL …`), else -1. Each bracket is at most 255 characters, none with a blank.
 */
function gluedBracketsStart(s: string, p: number, open: number): number {
  let at = open;
  for (let n = 0; n < 3; n++) {
    if (at - 1 < p || s.charCodeAt(at - 1) !== CLOSE) return -1;
    let o = at - 2;
    while (o >= p && s.charCodeAt(o) !== OPEN && s.charCodeAt(o) !== SPACE && at - o < 256) o--;
    if (o < p || s.charCodeAt(o) !== OPEN) return -1;
    at = o;
  }
  return at;
}

/** Where `[digits]` ending at `close` starts, or -1. */
function deviceBefore(s: string, p: number, close: number): number {
  let o = close - 1;
  while (o >= p && close - o <= 6 && isDigit(s.charCodeAt(o))) o--;
  return o >= p && o < close - 1 && s.charCodeAt(o) === OPEN ? o : -1;
}

/**
 * The start of the record whose `NCCL` level follows the space at `k` (INFO lines: `] NCCL`; WARN lines:
 * `] file.cc:12 NCCL`), never before `p`: its `host:pid:tid`, else its `[dev]` when the host was stripped, else `p`.
 */
export function recordStart(s: string, p: number, k: number): number {
  let i = k - 1;
  if (i < p) return p;
  // A WARN names where NCCL raised it (`file.cc:123`) between the device and `NCCL`.
  if (s.charCodeAt(i) !== CLOSE) {
    const t = tokenStart(s, p, i + 1);
    if (t <= p) return p;
    i = t - 2;
    if (i < p || s.charCodeAt(i) !== CLOSE) return p;
  }
  let open = i - 1;
  while (open >= p && s.charCodeAt(open) !== OPEN && i - open < 64) open--;
  if (open < p || s.charCodeAt(open) !== OPEN) return p;
  // A fork's brackets glued together, `[host][pid:tid][dev][file.cc:123] NCCL …`: the record starts at the host's.
  const glued = gluedBracketsStart(s, p, open);
  if (glued >= 0) return glued;
  // A thread's name after the device (`host:pid:tid [0][main] NCCL …`): the device's bracket is the one before.
  const named = s.charCodeAt(open - 1) === CLOSE ? deviceBefore(s, p, open - 1) : -1;
  if (named >= 0) open = named;
  if (open - 2 < p || s.charCodeAt(open - 1) !== SPACE) return open;
  // A page may align the devices after the prefixes (`host-b:xxx  [0]`): the prefix ends at the first of the spaces.
  let gap = open - 1;
  while (gap - 1 > p && s.charCodeAt(gap - 1) === SPACE && open - gap < 4) gap--;
  const ts = tokenStart(s, p, gap);
  if (!hostToken(s, ts, gap)) {
    // A fork's `[host:pid:tid] [file.cc:123] NCCL …`: the bracket just read was the source location.
    return hostToken(s, open + 1, i) ? p : open;
  }
  // `[host:pid:tid]` of a fork: the host starts inside the bracket.
  return s.charCodeAt(ts) === OPEN ? ts + 1 : ts;
}

/** A source file name's character: letters, digits, `_ . / -`. */
function fileChar(c: number): boolean {
  return isAlnum(c) || c === 95 || c === 46 || c === 47 || c === 45;
}

/**
 * The space before the `NCCL WARN` of a WARN record located by its source (`host:pid:tid [0] bootstrap.cc:77 NCCL
 * WARN …`, src/debug.cc prints `[dev] file:line NCCL WARN` for warnings) inside `s[from, to)`, or -1: a record glued
 * into a line after another one's message (a log flattened to one paragraph), which has no `] NCCL ` to be found by.
 */
export function locatedWarnIn(s: string, from: number, to: number): number {
  const needle = " NCCL WARN";
  for (let at = indexInLine(s, needle, from, to); at >= 0; at = indexInLine(s, needle, at + 1, to)) {
    let j = at;
    while (j > from && isDigit(s.charCodeAt(j - 1))) j--;
    if (j === at || s.charCodeAt(j - 1) !== COLON) continue;
    let f = j - 1;
    while (f > from && fileChar(s.charCodeAt(f - 1))) f--;
    if (f < j - 1 && s.charCodeAt(f - 1) === SPACE && s.charCodeAt(f - 2) === CLOSE) return at;
  }
  return -1;
}

/**
 * Where a second record written into the same line starts (`…via NET/IB/0/GDRDMAtr-0:812:851 [1] NCCL INFO …`):
 * before its `host:pid:tid`, whose host is glued to the end of the first record. The host is the longest known one
 * (seen before, or the first record's) that ends the glued word; else the whole run of host characters. Always in
 * (k, again].
 */
export function splitPoint(s: string, k: number, again: number, hosts: ReadonlySet<string>, firstHead: string): number {
  let open = again - 1;
  while (open > k && s.charCodeAt(open) !== OPEN) open--;
  if (open <= k + 1 || s.charCodeAt(open - 1) !== SPACE) return Math.max(open, k + 1);
  // tid, pid: back over `:digits:digits` (or masks) to the host's end.
  let j = open - 1;
  let colons = 0;
  let hostEnd = -1;
  while (j > k) {
    const c = s.charCodeAt(j - 1);
    if (c === COLON) {
      colons++;
      if (colons === 2) {
        hostEnd = j - 1;
        break;
      }
    } else if (!(isDigit(c) || c === 88 || c === 120 || c === 42)) break;
    j--;
  }
  if (hostEnd <= k) return open;
  let hs = hostEnd;
  while (hs > k + 1) {
    const c = s.charCodeAt(hs - 1);
    const hostChar = isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 46 || c === 95;
    if (!hostChar) break;
    hs--;
  }
  const glued = s.slice(hs, hostEnd);
  const firstHost = firstHead.slice(0, Math.max(0, firstHead.indexOf(":")));
  let best = "";
  for (const h of [firstHost, ...hosts]) {
    if (h.length > best.length && glued.endsWith(h)) best = h;
  }
  return best ? hostEnd - best.length : hs;
}

/**
 * The index of an `NCCL version X.Y.Z` that is the banner or an error's quote of it — at the start of the text, or
 * after a logger's or launcher's punctuation (`- `, `] `, `: `, `, `, `) `, `> `, `| `, `* `) — or -1. A sentence
 * that mentions one ("upgrade to NCCL version 2.20") is not it.
 */
export function bannerAt(text: string): number {
  const at = text.indexOf("NCCL version ");
  if (at < 0 || !isDigit(text.charCodeAt(at + 13))) return -1;
  let j = at;
  while (j > 0 && text.charCodeAt(j - 1) === SPACE) j--;
  if (j === 0) return at;
  // After a punctuation mark ending a wrapper (grep -H's `file.log:` too), or after a time of day (`Dec  5 12:00:01 `,
  // moreutils' ts).
  return "-]):>,|*:".includes(text[j - 1]!) || CLOCK_BEFORE.test(text.slice(Math.max(0, j - 16), j)) ? at : -1;
}

/** A time of day at the end of what precedes the banner: `12:00:01` or `12:00:01.123456`. */
const CLOCK_BEFORE = /(?:^|\s)\d\d:\d\d:\d\d(?:\.\d{1,9})?$/;

/**
 * The end of an `NCCL version X.Y.Z+cudaA.B` banner with another record glued to it (`NCCL version
 * 2.7.8+cuda10.2gpunode031:771303:771303 [1] NCCL INFO …`: rank 0 printf()s the banner to stdout while the others
 * write their records to stderr, and a paste of both streams loses the newline), or -1 when `s` at `p` is no such
 * banner. The banner is `"NCCL version " STR(NCCL_MAJOR) "." STR(NCCL_MINOR) "." STR(NCCL_PATCH) NCCL_SUFFIX "+cuda"
 * STR(CUDA_MAJOR) "." STR(CUDA_MINOR)` (VERSION_STRING in src/init.cc, v2.7.8-1 to today,
 * https://github.com/NVIDIA/nccl): CUDA's minor ends it. A host made of digits could continue those digits; the
 * split leaves a known host when one fits, else one minor digit (every CUDA release so far, 10.0 to 13.0, has one).
 */
export function gluedBannerEnd(s: string, p: number, end: number, hosts: ReadonlySet<string>): number {
  const m = /^NCCL version \d+\.\d+\.\d+[^\s+]*\+cuda\d+\.(\d+)/.exec(s.slice(p, Math.min(end, p + 64)));
  if (!m) return -1;
  const digitsAt = p + m[0].length - m[1]!.length;
  const colon = s.indexOf(":", p + m[0].length);
  const space = s.indexOf(" ", p + m[0].length);
  // A record follows at once: `host:pid:tid [dev]` with its first colon before any space.
  if (colon < 0 || colon >= end || (space >= 0 && space < colon)) return -1;
  for (let n = m[1]!.length; n >= 1; n--) if (hosts.has(s.slice(digitsAt + n, colon))) return digitsAt + n;
  return digitsAt + 1;
}

/**
 * `NCCL error: ` and one of NCCL's own error strings, whole (ncclGetErrorString in src/init.cc,
 * https://github.com/NVIDIA/nccl): how a framework reports the NCCL call that failed (vLLM's pynccl raises exactly
 * this, with no version). The strings that end `(run with NCCL_DEBUG=… for details)` are NCCL's even alone (older
 * pynccl raised `RuntimeError: b'unhandled cuda error (run with NCCL_DEBUG=INFO for details)'`, shape in
 * https://github.com/vllm-project/vllm/issues/4411). A sentence that names an error without NCCL's wording is not one.
 */
export const NCCL_ERROR_STRING =
  /NCCL error: (?:unhandled (?:cuda|system) error \(run with NCCL_DEBUG=INFO for details\)|invalid (?:argument|usage) \(run with NCCL_DEBUG=WARN for details\)|internal error - please report this issue to the NCCL developers|remote process exited or there was a network error)|\b(?:unhandled (?:cuda|system) error \(run with NCCL_DEBUG=INFO for details\)|invalid (?:argument|usage) \(run with NCCL_DEBUG=WARN for details\))/;

/**
 * PyTorch's reading of an NCCL result (getNcclErrorDetailStr, torch/csrc/distributed/c10d/NCCLUtils.cpp in
 * https://github.com/pytorch/pytorch): `ncclInternalError: Internal check failed.` and the like, printed on its own
 * line under the `NCCL error in: …` report, then `Last error:` and NCCL's last WARN message (ncclGetLastError). At a
 * line's start (after a launcher's `[rank0]: `): a sentence that quotes it is not the report.
 */
export const NCCL_ERROR_DETAIL =
  /^(?:.{0,40}?[\]:>])?\s*nccl(?:InternalError: Internal check failed\.|SystemError: System call \(e\.g\. socket, malloc\)|UnhandledCudaError: Call to CUDA function failed\.|InvalidArgument: Invalid value for an argument\.|InvalidUsage: This usually reflects invalid usage of NCCL library\.|RemoteError: A call failed possibly due to)/;

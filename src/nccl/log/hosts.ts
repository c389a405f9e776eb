import { deviceAfterSpaces, logLineStart } from "../../core/log-line-prefixes.js";
import { grepPrefixAt } from "../../core/service-prefixes.js";
import { isDigit, keep } from "./line.js";
import { type LogState, MAX_KEYS, setCapped } from "./state.js";

/** Slots of the table of hosts seen (a power of two). */
const HOST_SLOTS = 4096;

/**
 * `text` is in `s` at `at` (`s` long enough). A loop of charCodeAt, which the compiler inlines: a call to startsWith
 * costs more than comparing a host name's dozen characters (this runs once per record of multi-GB logs). From the end:
 * names that differ differ in their last characters.
 */
function sameAt(s: string, at: number, text: string): boolean {
  for (let i = text.length - 1; i >= 0; i--) if (s.charCodeAt(at + i) !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * `host:XXXXXX [3] …`: the pid and the tid masked as one run of `X` before ` [dev]` (a paste that hid them,
 * https://github.com/NVIDIA/nccl/issues/2013). `colon` is the host's colon, `q` where the run after it ends. Digits
 * are not a mask: `host0722410:22467 [6]` lost a character and names no host.
 */
function maskedProcess(s: string, colon: number, q: number): boolean {
  if (q - colon < 4 || deviceAfterSpaces(s, q) < 0) return false;
  for (let i = colon + 1; i < q; i++) if ((s.charCodeAt(i) | 32) !== 120 /* x */) return false;
  return true;
}

/**
 * The hosts of an NCCL log's records (`host:pid:tid [dev] NCCL …`, a fork's `[host:pid=N]`), added to the state's
 * hosts as they are first seen. Every record names its host, so this runs once per record: a host seen before costs
 * two native searches and one comparison, no string made and no set lookup.
 */
export class HostTable {
  private lastHost = "";
  /** Where the host of the last record asked for starts (after a grep file name, when one was before it). */
  start = 0;
  /** Hosts seen, by a hash of their length and some of their characters. */
  private readonly hostSlots: (string | undefined)[] = new Array(HOST_SLOTS).fill(undefined);

  constructor(private readonly st: LogState) {}

  /**
   * Where the last colon search started and the colon it found (the text's length: none to its end). Its answer serves
   * every record starting between the two: records are read left to right, so no search runs over the same characters
   * twice (a line of many glued records and no colon would otherwise search to its end once per record: quadratic).
   */
  private colonFrom = 0;
  private colonFound = -1;

  /** A new text (chunk or line): the kept colon was in the one before. */
  reset(): void {
    this.colonFrom = 0;
    this.colonFound = -1;
  }

  /**
   * The host of the record starting at `p` ("" when it has no `host:pid:tid` prefix), added to the hosts seen.
   * `lineEnd` is where its line ends, `space` the first space at or after `p` (-1: none).
   */
  at(s: string, p: number, lineEnd: number, space: number): string {
    this.start = p;
    // A fork's bracketed process, `[host:pid=2210431] NCCL WARN …` or `[host][pid:tid][dev][file.cc:12] NCCL WARN …`.
    if (s.charCodeAt(p) === 91 /* [ */) return this.forkHost(s, p);
    // A native search for the colon (a loop over the host's characters costs several times more); the colon must come
    // first, within the line and its first 256 characters.
    let colon = this.colonFound;
    if (colon < p || p < this.colonFrom) {
      colon = s.indexOf(":", p);
      if (colon < 0) colon = s.length;
      this.colonFrom = p;
      this.colonFound = colon;
    }
    if (space > p && (space < colon || colon >= lineEnd)) return this.bareHost(s, p, space, lineEnd);
    if (colon <= p || colon >= lineEnd || colon - p >= 256) return "";
    // `host:1234:…`, or `host:XXXXXX:…` with the pid masked in a pasted log.
    // A line that lost a character (`host0722410:22467 [6]`, no tid) names no host: only the full `host:pid:tid`.
    let q = colon + 1;
    for (let c = s.charCodeAt(q); isDigit(c) || c === 88 /* X */ || c === 120 /* x */; c = s.charCodeAt(++q));
    if (!maskedProcess(s, colon, q) && (colon <= p || q === colon + 1 || s.charCodeAt(q) !== 58) /* : */) {
      // grep -H's file name before the record (`logs/rank0.log:host:pid:tid [0] …`): the record starts after it.
      const g = grepPrefixAt(s, p, lineEnd);
      if (g <= p) {
        if (q > colon + 1 && s.charCodeAt(q) === 32 && s.charCodeAt(q + 1) === 91 /* [ */) this.pidOnly(s, p, colon);
        return "";
      }
      // Other wrappers may follow the file name (`rank0.log:[1,0]<stdout>:host:…`).
      const r = logLineStart(s, g, lineEnd);
      return this.at(s, r, lineEnd, s.indexOf(" ", r));
    }
    // A log interleaves its ranks' lines, so the host before is seldom this one: the hosts seen are kept in a table by
    // their length and last characters, so that a host seen before costs one comparison, no string made and no set
    // lookup (a miss, or two hosts in one slot, only takes the path below).
    const n = colon - p;
    // Weights 1, 10, 100, 1000 on the last four characters: hosts numbered in decimal (`node-0017`, `gpu-node-127`) get
    // slots of their own (a thousand of them at least).
    const slot =
      (n * 131 +
        s.charCodeAt(colon - 1) +
        (n > 1 ? s.charCodeAt(colon - 2) * 10 : 0) +
        (n > 2 ? s.charCodeAt(colon - 3) * 100 : 0) +
        (n > 3 ? s.charCodeAt(colon - 4) * 1000 : 0) +
        s.charCodeAt(p) * 17) &
      (HOST_SLOTS - 1);
    const seen = this.hostSlots[slot];
    if (seen !== undefined && seen.length === n && sameAt(s, p, seen)) {
      this.lastHost = seen;
      return seen;
    }
    this.lastHost = keep(s.slice(p, colon));
    this.hostSlots[slot] = this.lastHost;
    if (this.st.hosts.size < MAX_KEYS) this.st.hosts.add(this.lastHost);
    if (!this.st.hostFirstProcess.has(this.lastHost)) {
      let t = q + 1;
      for (let c = s.charCodeAt(t); isDigit(c) || c === 88 /* X */ || c === 120 /* x */; c = s.charCodeAt(++t));
      setCapped(this.st.hostFirstProcess, this.lastHost, keep(s.slice(colon + 1, t)));
    }
    return this.lastHost;
  }

  /**
   * `host [dev] NCCL INFO …`: a record whose prefix kept the host and lost `:pid:tid` (a custom NCCL_DEBUG prefix or a
   * collector that drops them, https://github.com/NVIDIA/nccl/issues/1920; NCCL 2.1 printed `host [0] misc/ibvwrap.cu:269
   * WARN …`). The word must be a host name (RFC 1123: letters, digits, `-`, `.`, with a letter) right before ` [dev] `.
   */
  private bareHost(s: string, p: number, space: number, lineEnd: number): string {
    const n = space - p;
    if (n > 63 || s.charCodeAt(space + 1) !== 91 /* [ */ || !isDigit(s.charCodeAt(space + 2))) return "";
    const close = s.indexOf("] ", space + 2);
    if (close < 0 || close > space + 5 || close >= lineEnd) return "";
    for (let i = space + 2; i < close; i++) if (!isDigit(s.charCodeAt(i))) return "";
    const last = this.lastBare;
    if (last.length === n && sameAt(s, p, last)) {
      this.lastHost = last;
      return last;
    }
    const word = s.slice(p, space);
    if (!/^[A-Za-z0-9][A-Za-z0-9.-]*$/.test(word) || !/[A-Za-z]/.test(word)) return "";
    this.lastHost = keep(word);
    this.lastBare = this.lastHost;
    if (this.st.hosts.size < MAX_KEYS) this.st.hosts.add(this.lastHost);
    return this.lastHost;
  }

  private lastBare = "";

  /**
   * `host:pid [dev] NCCL …`: a record that shows one number after its host, where NCCL prints two (a book's or a
   * collector's trimmed prefix; or a line that lost a character, `host0722410:22467 [6]`). Weaker than a whole
   * `host:pid:tid`: its host counts only where no record names one so (evidence.ts, hostCountOf).
   */
  private pidOnly(s: string, p: number, colon: number): void {
    if (this.st.pidOnlyHosts.size >= MAX_KEYS || colon - p > 63) return;
    const word = s.slice(p, colon);
    if (/^[A-Za-z][A-Za-z0-9.-]*$/.test(word)) this.st.pidOnlyHosts.add(keep(word));
  }

  /** A launcher's `host: ` (pdsh, clush) before a record that lost its own `host:pid:tid`: the record's host. */
  launcherHost(name: string): void {
    if (this.st.hosts.has(name) || this.st.hosts.size >= MAX_KEYS) return;
    this.st.hosts.add(keep(name));
  }

  private forkHost(s: string, p: number): string {
    const m = /^\[([\w.-]+)(?::pid=\d+\] |\]\[\d+:\d+\]\[)/.exec(s.slice(p, p + 300));
    if (!m) return "";
    this.lastHost = keep(m[1]!);
    if (this.st.hosts.size < MAX_KEYS) this.st.hosts.add(this.lastHost);
    return this.lastHost;
  }
}

import { charIn, kubectlPrefixAt } from "../../core/line-prefixes.js";
import { colourResetStart, logLineStart, pdshLaxAt } from "../../core/log-line-prefixes.js";
import { causeOf } from "./causes.js";
import { hostOf, indexInLine, intAfter, isDigit, keep, processKey } from "./line.js";
import { bannerAt, recordStart, splitPoint } from "./record.js";
import { bump, type LogState, MAX_KEYS, MAX_SAMPLES, setCapped } from "./state.js";

export { logLineStart as skipPrefixes } from "../../core/log-line-prefixes.js";
export { indexInLine, keep } from "./line.js";

/**
 * `text` is in `s` at `at` (`s` long enough). A loop of charCodeAt, which the compiler inlines: a call to startsWith
 * costs more than comparing a host name's dozen characters (this runs once per record of multi-GB logs). From the end:
 * names that differ differ in their last characters.
 */
function sameAt(s: string, at: number, text: string): boolean {
  for (let i = text.length - 1; i >= 0; i--) if (s.charCodeAt(at + i) !== text.charCodeAt(i)) return false;
  return true;
}

/** `text` starts at `at` and ends by `end` (the end of the line). */
function within(s: string, text: string, at: number, end: number): boolean {
  return at + text.length <= end && s.startsWith(text, at);
}

/** Slots of the table of hosts seen (a power of two). */
const HOST_SLOTS = 16384;

const TIME_STAMP = /\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d/;
// ANSI colour and cursor sequences (ECMA-48 CSI).
const COLOUR = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
/** An application's or nccl-tests' report that an NCCL call failed (`Test NCCL failure common.cu:908 '…'`). */
const FAILURE_LINE = /unhandled system error|NCCL error|ncclSystemError|ncclInternalError|Test NCCL failure/;
/** NCCL 2.0–2.2: `host:pid:tid [0] INFO ` or `host:pid:tid [0] include/socket.h:185 WARN `. */
/** `transport/net_ib.cc:95 NCCL WARN`, `misc/ibvwrap.cc:190 NCCL WARN Call to ibv_modify_qp failed`, `NET/IB : Got async event`. */
const IB_ACTIVITY = /\bnet_ib\.cc:|\bibvwrap\.cc?:|\bNCCL WARN NET\/IB\b|\bCall to ibv_\w+ failed/;
/** `RCCL version : 2.21.5-HEAD:5c1e0b2` (RCCL's banner), `… is using nccl==2.20.5` (vLLM, SGLang). */
const OTHER_VERSION = /^\s*RCCL version\s*:\s*(\d+\.\d+\.\d+)|\bnccl==(\d+\.\d+\.\d+)\b/i;
/** `include/socket.h:344 WARN `: an NCCL source file and line, then the level (no host, no `NCCL`). */
const SOURCE_WARN = /^[\w./-]+\.(?:h|cc|cu):\d+ WARN /;
const OLD_LINE = /^\S+:\d+:\d+ \[\d+\] (?:[\w./-]+:\d+ )?(INFO|WARN) /;

/**
 * The hot path: one NCCL log line at a time, addressed as `s[start, end)` inside a large chunk so that no per-line
 * string is made unless the line carries information (versions, devices, WARNs). Bulk lines (channel connections)
 * are classified with startsWith/charCodeAt only. Tech-spec §4 is the grammar.
 */
export class LineScanner {
  /** Cached next occurrences of markers (searches never rescan: linear in the chunk whatever the content). */
  private nextNccl = -1;
  private nextVia = -1;
  private chunk = "";

  constructor(private readonly st: LogState) {}

  /** Scans every complete line of `s`; returns the index after the last newline (the rest is a partial line). */
  scanChunk(s: string, from = 0): number {
    this.chunk = s;
    this.nextNccl = -1;
    this.nextVia = -1;
    this.nextGdr = -1;
    this.hostAt = -1;
    this.spaceAfter = -1;
    let pos = from;
    const len = s.length;
    while (pos < len) {
      const nl = s.indexOf("\n", pos);
      if (nl < 0) break;
      this.line(s, pos, nl);
      pos = nl + 1;
    }
    return pos;
  }

  /** Scans one line given on its own (the `push(line)` interface). */
  scanLine(line: string): void {
    this.chunk = line;
    this.nextNccl = -1;
    this.nextVia = -1;
    this.nextGdr = -1;
    this.hostAt = -1;
    this.spaceAfter = -1;
    this.line(line, 0, line.length);
  }

  private line(s: string, start: number, endRaw: number): void {
    const st = this.st;
    let end = endRaw;
    if (end > start && s.charCodeAt(end - 1) === 13) end--;
    if (end > start && s.charCodeAt(end - 1) === 109 /* m */) end = colourResetStart(s, start, end);
    if (end === start) return;
    st.lines++;
    this.lineEnd = endRaw;
    // pdsh/clush `host: ` first; then hostnames start with a letter: only other lines carry a launcher or time prefix.
    // The line's first space (one native search) serves both the pdsh check and, on the usual line, where its
    // `host:pid:tid` ends (startOf).
    const space = s.indexOf(" ", start);
    const pdsh = pdshLaxAt(s, start, end, space);
    const q = pdsh >= 0 ? pdsh : start;
    const c0 = s.charCodeAt(q);
    const p = (c0 >= 97 && c0 <= 122) || (c0 >= 65 && c0 <= 90 && c0 !== 78) ? q : logLineStart(s, q, end);
    this.spaceAfter = start;
    this.spaceAt = space;
    if (this.nextNccl < p) {
      // "] NCCL ": ']' is rare, so the search runs at memchr speed; WARN lines (`] file.cc:12 NCCL WARN`) and
      // other shapes are handled by plainLine.
      const at = s.indexOf("] NCCL ", p);
      this.nextNccl = at < 0 ? s.length : at + 1;
    }
    if (this.nextNccl >= end) {
      this.plainLine(s, start, p, end);
      return;
    }
    const k = this.nextNccl;
    // The marker after this one, found now rather than by the next line (the search is the same, so this costs
    // nothing): inside this line it starts another record — several ranks writing into one line (unbuffered writes to
    // one pipe), however short each record is — read on its own.
    const again = s.indexOf("] NCCL ", k + 1);
    this.nextNccl = again < 0 ? s.length : again + 1;
    if (again >= 0 && again < end) {
      this.glued(s, start, p, k, end);
      return;
    }
    this.record(s, start, this.startOf(s, p, k), k, end);
  }

  /** Where the record starts: the usual line is `host:pid:tid [dev] NCCL …` from `p` (a space right before `[dev]`). */
  private startOf(s: string, p: number, k: number): number {
    const open = s.charCodeAt(k - 3) === 91 ? k - 3 : s.charCodeAt(k - 4) === 91 ? k - 4 : -1;
    if (open <= p || s.charCodeAt(p) === 91) return recordStart(s, p, k);
    return this.spaceFrom(s, p) === open - 1 ? p : recordStart(s, p, k);
  }

  /** The first space in `s` at or after `p` (-1: none), kept for the last `p` asked (startOf and noteHost both ask). */
  private spaceFrom(s: string, p: number): number {
    // The first space after an earlier place is the first after `p` too when it lies at or after `p` (a line whose
    // prefix has no space, `[1,0]<stdout>:host:…`, searches once).
    if (p < this.spaceAfter || (this.spaceAt < p && this.spaceAt >= 0) || this.spaceAfter < 0) {
      this.spaceAfter = p;
      this.spaceAt = s.indexOf(" ", p);
    }
    return this.spaceAt;
  }

  private spaceAfter = -1;
  private spaceAt = -1;
  /** The end of the line being read (its newline, or the end of the text). */
  private lineEnd = 0;

  /** A line holding several records (ranks interleaved mid-line): each is read on its own, in order. */
  private glued(s: string, start: number, p0: number, k0: number, end: number): void {
    let from = start;
    let p = p0;
    let k = k0;
    for (;;) {
      const r = this.startOf(s, p, k);
      const next = this.nextNccl - 1;
      if (next < 0 || next >= end) {
        this.record(s, from, r, k, end);
        return;
      }
      const split = splitPoint(s, k, next, this.st.hosts, s.slice(r, k));
      this.record(s, from, r, k, split);
      from = split;
      p = split;
      k = this.nextNccl;
      const again = indexInLine(s, "] NCCL ", k + 1, end);
      // None left in this line: the next line searches from its own start.
      this.nextNccl = again < 0 ? -1 : again + 1;
    }
  }

  /** One `host:pid:tid [dev] NCCL LEVEL …` record: `p` is where its host starts, `k` the space before `NCCL`. */
  private record(s: string, start: number, p: number, k: number, end: number): void {
    this.st.ncclLines++;
    // Every record names its host, whatever it says (a host may print only Trees, comm or WARN lines).
    this.noteHost(s, p);
    const lvl = k + 6;
    const c = s.charCodeAt(lvl);
    if (c === 73 /* I */ && s.charCodeAt(lvl + 1) === 78 /* N */) {
      // A line cut inside "INFO" (a pasted log torn mid-line) has no message: its "message" would start on the next line.
      if (lvl + 5 <= end) this.info(s, p, k, lvl + 5, end);
    } else if (c === 87 /* W */ && s.startsWith("WARN", lvl)) this.warn(s, start, p, lvl + 5, end);
    else if (c === 101 /* e */ && s.startsWith("error", lvl)) this.failure(s, start, end);
    else if (c === 118 /* v */ && s.startsWith("version ", lvl)) this.version(s, k + 1, end, s.slice(start, p));
  }

  private plainLine(s: string, start: number, p: number, end: number): void {
    const st = this.st;
    if (s.startsWith("NCCL version ", p)) {
      st.ncclLines++;
      this.version(s, p, end, s.slice(start, p));
      return;
    }
    // A line cut down to its level and message (`NCCL INFO comm 0x… - Init COMPLETE`): a collector dropped the host.
    if (s.startsWith("NCCL INFO ", p) || s.startsWith("NCCL WARN ", p)) {
      st.ncclLines++;
      if (s.charCodeAt(p + 5) === 73 /* I */) this.info(s, p, p, p + 10, end);
      else this.warn(s, start, p, p + 10, end);
      return;
    }
    const text = s.slice(p, end);
    const w = text.indexOf(" NCCL WARN");
    if (w >= 0) {
      st.ncclLines++;
      const q = recordStart(s, p, p + w);
      this.noteHost(s, q);
      this.warn(s, start, q, p + w + 11, end);
      return;
    }
    // NCCL ≤ 2.3's WARN cut down to its source and message (`include/socket.h:344 WARN Socket creation failed …`).
    const src = SOURCE_WARN.exec(text);
    if (src) {
      st.ncclLines++;
      this.warn(s, start, p, p + src[0].length, end);
      return;
    }
    // NCCL 2.0–2.2 printed no `NCCL` before the level: `host:pid:tid [0] INFO …`, `host:pid:tid [0] file.cu:61 WARN …`.
    const old = OLD_LINE.exec(text);
    if (old) {
      st.ncclLines++;
      const lvl = p + old[0].length - 5;
      if (old[1] === "INFO") this.info(s, p, lvl - 1, lvl + 5, end);
      else this.warn(s, start, p, lvl + 5, end);
      return;
    }
    // The banner behind a logger's own prefix (`2025-06-11 09:12:05,302 - trainer - INFO - NCCL version …`), or the
    // version an application's NCCL error quotes (`…unhandled system error …, NCCL version 2.14.3`).
    const v = bannerAt(text);
    if (v >= 0) {
      st.ncclLines++;
      this.version(s, p + v, end, s.slice(start, p + v));
      if (FAILURE_LINE.test(text)) this.failure(s, p, end);
      return;
    }
    // The version in words other than NCCL's banner: RCCL's own banner (`RCCL version : 2.21.5-HEAD:…`, NCCL's version
    // it is built from) or a framework naming the library it loaded (`vLLM is using nccl==2.20.5`).
    const other = OTHER_VERSION.exec(text);
    if (other) {
      this.version(s, p + other.index, end, s.slice(start, p + other.index), other[1] ?? other[2]);
      return;
    }
    if (/ NCCL (?:INFO|TRACE|CALL) /.test(text)) {
      st.ncclLines++;
      return;
    }
    if (/[\u0000-\u0008\u000e-\u001a\ufffd]/.test(text)) st.binaryLines++;
    else if (FAILURE_LINE.test(text)) this.failure(s, p, end);
  }

  private info(s: string, p: number, k: number, msg: number, lineEnd: number): void {
    let end = lineEnd;
    const st = this.st;
    const c = s.charCodeAt(msg);
    if (c === 67 /* C */) {
      if (s.charCodeAt(msg + 1) === 104 /* h */ && charIn(s, msg + 7, end) === 32) this.channel(s, p, msg, end);
      return;
    }
    // NCCL_DEBUG_SUBSYS=COLL: `AllReduce: opCount 0 sendbuff … comm 0x… [nranks=8] stream …` (src/enqueue.cc).
    if (c !== 67 && c >= 65 && c <= 83 && this.collTrace(s, msg, end)) return;
    // Before NCCL 2.7 connections were printed as `Ring 00 : 0[0] -> 1[1] via P2P/IPC` (`Ring 00 : 0 1 2 3` is the order).
    if (c === 82 /* R */) {
      if (s.charCodeAt(msg + 1) === 105 /* i */ && charIn(s, msg + 4, end) === 32) this.channel(s, p, msg, end);
      return;
    }
    if (c === 70 /* F */ && s.startsWith("Failed to open libibverbs", msg)) {
      this.addWarning(s.slice(msg, end), this.noteHost(s, p));
      return;
    }
    if (s.charCodeAt(end - 1) === 69 /* E */ && s.startsWith("Init COMPLETE", end - 13)) {
      this.lineStart = p;
      this.initComplete(s, msg, end);
      return;
    }
    if (c === 78 /* N */) {
      if (s.startsWith("NET/", msg)) this.netLine(s, p, k, msg, end);
      else if (s.startsWith("NCCL version ", msg)) this.version(s, msg, end, processKey(s, p, k));
      else if (s.startsWith("NCCL_", msg)) this.envLine(s, msg, end);
      return;
    }
    // `ncclCommInitRank comm 0x… rank 4 nranks 16 cudaDev 4 … - Init START` (src/init.cc), also for a failed init.
    if (c === 110 /* n */ && s.startsWith("ncclCommInit", msg)) {
      const nr = intAfter(s, " nranks ", msg, end);
      if (nr > st.nranks) st.nranks = nr;
      return;
    }
    // NCCL 2.3: `rank 0 nranks 4` once per rank.
    if (c === 114 /* r */ && s.startsWith("rank ", msg)) {
      const nr = intAfter(s, " nranks ", msg, end);
      if (nr > st.nranks) st.nranks = nr;
      return;
    }
    if (c === 99 /* c */ && s.startsWith("comm 0x", msg)) {
      this.commSummary(s, msg, end);
      return;
    }
    // A return chain from inside the socket transport (`transport/net_socket.cu:118 -> 2`): sockets carried the data.
    if (c === 116 /* t */ && s.startsWith("transport/net_socket.c", msg)) {
      if (indexInLine(s, " -> ", msg, end) > 0) st.socketTransport++;
      return;
    }
    // A return chain through init.cc (`init.cc:1303 -> 2`, include/checks.h) before any Init COMPLETE: the
    // communicator's init failed, even where no WARN was printed (or kept in the paste).
    if (c === 105 /* i */ && s.startsWith("init.c", msg)) {
      const arrow = indexInLine(s, " -> ", msg, end);
      if (arrow > 0 && arrow - msg < 20 && st.initComplete === 0 && !s.startsWith("0", arrow + 4)) st.initChainFailed++;
      return;
    }
    // ncclCommDestroy of NCCL < 2.13 (`Destroyed comm 0x… rank 4`): the communicator had been built.
    if (c === 68 /* D */ && s.startsWith("Destroyed comm ", msg)) {
      st.commRan++;
      return;
    }
    if (c === 85 /* U */ && (s.startsWith("Using network ", msg) || s.startsWith("Using internal Network ", msg))) {
      const key = processKey(s, p, k);
      // NCCL < 2.4 said `Using internal Network IB`.
      const n = s.charCodeAt(msg + 6) === 105 /* i */ ? msg + 23 : msg + 14;
      // A short line another rank wrote into (`Using network IBhost:12:34 [1] NCCL INFO …`): the value ends at its host.
      const glued = indexInLine(s, "] NCCL ", n, end);
      if (glued >= 0) end = splitPoint(s, msg, glued, st.hosts, s.slice(p, k));
      const net =
        end - n === 2 && s.startsWith("IB", n)
          ? "IB"
          : end - n === 6 && s.startsWith("Socket", n)
            ? "Socket"
            : s.slice(n, end).trim();
      if (st.networkOf.get(key) !== net) {
        setCapped(st.networkOf, keep(key), keep(net));
        if (st.hosts.size < MAX_KEYS) st.hosts.add(keep(hostOf(key)));
      }
      return;
    }
    // `bootstrap.cc:77 -> 2`: the bootstrap (always over sockets) failed.
    if (c === 98 /* b */ && s.startsWith("bootstrap.cc:", msg)) {
      if (indexInLine(s, " -> ", msg, end) > 0) st.bootstrapFailed++;
      return;
    }
    if (c === 66 /* B */ && s.startsWith("Bootstrap", msg)) {
      const m = /Using (?:\[\d+\])?([^:\s]+):/.exec(s.slice(msg, end));
      if (m) bump(st.bootstrap, m[1]!);
      return;
    }
    if (c === 71 /* G */ && s.startsWith("GPU Direct RDMA Disabled", msg)) {
      st.gdrDisabled++;
      if (st.gdrDisabledSamples.length < MAX_SAMPLES) st.gdrDisabledSamples.push(s.slice(msg, end));
    }
  }

  /** A collective's trace line (`Broadcast: opCount 7 … [nranks=8] …`): its communicator's rank count. */
  private collTrace(s: string, msg: number, end: number): boolean {
    let i = msg;
    while (i < end && i - msg < 24 && s.charCodeAt(i) !== 58 /* : */) i++;
    if (!s.startsWith(": opCount ", i)) return false;
    const nr = intAfter(s, "[nranks=", i, end);
    if (nr > this.st.nranks) this.st.nranks = nr;
    return true;
  }

  private channel(s: string, p: number, msg: number, end: number): void {
    const conn = this.st.conn;
    this.noteHost(s, p);
    if (this.nextVia < msg) {
      const at = s.indexOf("via ", msg);
      this.nextVia = at < 0 ? s.length : at;
    }
    const via = this.nextVia;
    if (via >= end) return; // ring order line
    const t = via + 4;
    // Every look stays inside the line: a chunk holds the lines after it, and a damaged line ("via N" then a newline)
    // must read the same whether its chunk ends there or not.
    const c = t < end ? s.charCodeAt(t) : -1;
    if (c === 78 /* N */ && t + 4 <= end && s.charCodeAt(t + 3) === 47 /* / */) {
      const n = t + 4;
      if (within(s, "Socket", n, end)) {
        conn.socket++;
        return;
      }
      conn.net++;
      if (this.nextGdr < n) {
        const at = s.indexOf("GDRDMA", n);
        this.nextGdr = at < 0 ? s.length : at;
      }
      const gdr = this.nextGdr + 6 <= end;
      if (gdr) conn.netGdr++;
      // `[receive] via NET/…`: the receiving side, where NCCL writes into GPU memory (GDR write); the send side reads
      // GPU memory (GDR read), which NCCL turns off by default on some systems (src/transport/net.cc, paths.cc).
      // NCCL writes `… -> 11[3] [receive] via NET/…` (https://github.com/NVIDIA/nccl/issues/1667): the tag is looked for
      // right before `via`, then anywhere in the message; never before it (a search back through the chunk costs).
      if (s.startsWith("[receive] ", via - 10) ? via - 10 >= msg : indexInLine(s, "[receive]", msg, via) >= 0) {
        conn.netRecv++;
        if (gdr) conn.netRecvGdr++;
      }
      if (within(s, "IB/", n, end)) this.st.ibConns++;
      else {
        const slash = indexInLine(s, "/", n, end);
        bump(this.st.netNames, keep(s.slice(n, slash > 0 ? slash : end)));
      }
    } else if (c === 80 /* P */ && t + 2 <= end && s.charCodeAt(t + 1) === 50 /* 2 */) conn.p2p++;
    else if (c === 83 /* S */ && t + 2 <= end && s.charCodeAt(t + 1) === 72 /* H */) conn.shm++;
    else if (c === 100 /* d */ && within(s, "direct shared memory", t, end))
      conn.shm++; // NCCL < 2.5
    else conn.other++;
  }

  private nextGdr = -1;
  private lineStart = -1;
  private lastHost = "";

  /**
   * Adds the host of a `host:pid:tid [dev] NCCL …` line starting at `p` to the hosts seen, and returns it ("" when the
   * line has no such prefix). The common case — the same host as the line before — allocates nothing.
   */
  private noteHost(s: string, p: number): string {
    // A record's host is asked for again by the reader of its message: the answer for the same place is kept.
    if (p === this.hostAt) return this.hostThere;
    this.hostAt = p;
    this.hostThere = this.hostOfRecord(s, p);
    return this.hostThere;
  }

  /** Where noteHost last looked in this chunk (-1: nowhere yet) and what it found there. */
  private hostAt = -1;
  private hostThere = "";

  private hostOfRecord(s: string, p: number): string {
    // A fork's bracketed process, `[host:pid=2210431] NCCL WARN …`.
    if (s.charCodeAt(p) === 91 /* [ */) return this.forkHost(s, p);
    // Native searches for the colon and the space (a loop over the host's characters costs several times more); the
    // colon must come first, within the line and its first 256 characters.
    const colon = s.indexOf(":", p);
    if (colon <= p || colon >= this.lineEnd || colon - p >= 256) return "";
    const space = this.spaceFrom(s, p);
    if (space >= 0 && space < colon) return "";
    // `host:1234:…`, or `host:XXXXXX:…` with the pid masked in a pasted log.
    // A line that lost a character (`host0722410:22467 [6]`, no tid) names no host: only the full `host:pid:tid`.
    let q = colon + 1;
    for (let c = s.charCodeAt(q); isDigit(c) || c === 88 /* X */ || c === 120 /* x */; c = s.charCodeAt(++q));
    if (colon <= p || q === colon + 1 || s.charCodeAt(q) !== 58 /* : */) return "";
    // A log interleaves its ranks' lines, so the host before is seldom this one: the hosts seen are kept in a table by
    // their length and last characters, so that a host seen before costs one comparison, no string made and no set
    // lookup (a miss, or two hosts in one slot, only takes the path below).
    const n = colon - p;
    // Weights 1, 10, 100, 1000 on the last four characters: hosts numbered in decimal (`node-0017`, `gpu-node-127`) get
    // slots of their own, up to ten thousand of them.
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
    return this.lastHost;
  }

  /** Hosts seen, by a hash of their length and some of their characters (hostOfRecord). */
  private readonly hostSlots: (string | undefined)[] = new Array(HOST_SLOTS).fill(undefined);

  private forkHost(s: string, p: number): string {
    const m = /^\[([\w.-]+):pid=\d+\] /.exec(s.slice(p, p + 160));
    if (!m) return "";
    this.lastHost = keep(m[1]!);
    if (this.st.hosts.size < MAX_KEYS) this.st.hosts.add(this.lastHost);
    return this.lastHost;
  }

  private netLine(s: string, p: number, k: number, msg: number, end: number): void {
    const st = this.st;
    this.noteHost(s, p);
    const socket = s.startsWith("NET/Socket", msg);
    if (socket || s.startsWith("NET/IB : Using ", msg) || s.startsWith("NET/IB: Using ", msg)) {
      let semi = indexInLine(s, "; OOB ", msg, end);
      if (semi < 0) semi = end;
      else this.oob(s, semi + 6, end);
      // Every rank of every communicator prints the same list: parse each distinct list once.
      const last = this.lastList;
      if (last !== null && semi - msg === last.length && s.startsWith(last, msg)) {
        bump(st.deviceLists, this.lastListNames);
        return;
      }
      const list = keep(s.slice(msg, semi));
      this.lastList = list;
      this.lastListNames = keep(this.devicesOf(list, socket));
      bump(st.deviceLists, this.lastListNames);
      return;
    }
    if (s.startsWith("NET/IB: [", msg) || s.startsWith("NET/IB : [", msg)) {
      this.nicSpeed(s, p, msg, end);
      return;
    }
    if (s.startsWith("NET/IB : No device found", msg) || s.startsWith("NET/IB: No device found", msg)) {
      st.noDeviceFound++;
      this.addWarning(s.slice(msg, end), hostOf(processKey(s, p, k)));
      return;
    }
    // INFO lines that explain a slow or socket run by themselves (src/transport/net_ib.cc, src/misc/param.cc):
    // GPUDirect turned off for one HCA.
    if (
      s.startsWith("NET/IB : GPU Direct RDMA Disabled for HCA", msg) ||
      s.startsWith("NET/IB: GPU Direct RDMA Disabled for HCA", msg)
    ) {
      this.addWarning(s.slice(msg, end), hostOf(processKey(s, p, k)));
    }
  }

  /**
   * One device per line: `NET/IB: [3] mlx5_4:uverbs4:1/RoCE provider=Mlx5 speed=200000 context=0x… pciPath=… ar=0`
   * (NCCL ≥ 2.20), `NET/IB: [0] mlx5_1:1/IB` (NCCL 2.3).
   */
  private nicSpeed(s: string, p: number, msg: number, end: number): void {
    const m = /\] ([^:\s]+):(?:[^:\s]*:)?(\d+)\/(IB|RoCE)\b(?:.*?\bspeed=(\d+))?/.exec(s.slice(msg, end));
    if (!m) return;
    const dev = `${m[1]}:${m[2]}`;
    if (!this.st.devices.has(dev))
      setCapped(this.st.devices, keep(dev), {
        name: m[1]!,
        port: Number(m[2]),
        linkLayer: m[3] === "IB" ? "IB" : "RoCE",
      });
    const host = this.noteHost(s, p);
    if (m[4] === undefined) return;
    const key = `${host}\t${dev}`;
    if (!this.st.nicSpeeds.has(key)) setCapped(this.st.nicSpeeds, keep(key), Number(m[4]));
  }

  private lastList: string | null = null;
  private lastListNames = "";

  private devicesOf(list: string, socket: boolean): string {
    const st = this.st;
    const names: string[] = [];
    if (socket) {
      for (const m of list.matchAll(/\[\d+\]([^:\s[\]]+):/g)) {
        names.push(m[1]!);
        setCapped(st.devices, `${m[1]}/Socket`, { name: m[1]!, port: 0, linkLayer: "Socket" });
      }
      return `socket:${names.join(",")}`;
    }
    for (const m of list.matchAll(/([A-Za-z0-9_.-]+):(\d+)(?::\d*)*\/(IB|RoCE)/g)) {
      names.push(`${m[1]}:${m[2]}`);
      const linkLayer = m[3] === "IB" ? "IB" : "RoCE";
      setCapped(st.devices, `${m[1]}:${m[2]}`, { name: m[1]!, port: Number(m[2]), linkLayer });
    }
    return names.join(",");
  }

  /** `; OOB eth0:10.0.60.3<0>` → eth0. */
  private oob(s: string, at: number, end: number): void {
    let colon = indexInLine(s, ":", at, end);
    if (colon < 0) colon = end;
    const last = this.lastOob;
    if (last !== null && colon - at === last.length && s.startsWith(last, at)) {
      bump(this.st.oob, last);
      return;
    }
    this.lastOob = keep(s.slice(at, colon));
    bump(this.st.oob, this.lastOob);
  }

  private lastOob: string | null = null;

  private envLine(s: string, msg: number, end: number): void {
    const m = /^(NCCL_\w+) set (?:by environment )?to (.*)$/.exec(s.slice(msg, end));
    if (m && !this.st.env.has(m[1]!)) setCapped(this.st.env, m[1]!, m[2]!.trim().replace(/\.$/, ""));
    // RDMA turned off by the job itself: the socket verdict gets its cause.
    if (m && m[1] === "NCCL_IB_DISABLE" && /^1\b/.test(m[2]!.trim())) this.addWarning(s.slice(msg, end), "");
  }

  private version(s: string, at: number, end: number, key: string, given?: string): void {
    const v = given ?? /^NCCL version (\d+\.\d+\.\d+[^\s+]*)/.exec(s.slice(at, end))?.[1];
    if (v === undefined) return;
    // A launcher's tag (`[1,0]<stdout>:`, `0: `) names the process; a time stamp does not.
    const tag = key.replace(COLOUR, "").trim();
    // A prefix with no letter or digit (C comment stars, a bar) names no process either, nor does kubectl's
    // `[pod/NAME/CONTAINER]` (one container runs several processes).
    const anonymous = TIME_STAMP.test(tag) || !/[A-Za-z0-9]/.test(tag) || kubectlPrefixAt(tag, 0, tag.length) >= 0;
    const k = (anonymous ? "" : tag) || `unattributed#${this.st.unattributed++}`;
    setCapped(this.st.versionOf, k, v);
  }

  private commSummary(s: string, msg: number, end: number): void {
    const st = this.st;
    if (s.startsWith("Destroy COMPLETE", end - 16)) st.commRan++;
    const nn = intAfter(s, " nNodes ", msg, end);
    if (nn > st.nNodes) st.nNodes = nn;
    const lr = intAfter(s, " localRanks ", msg, end);
    if (lr > st.localRanks) st.localRanks = lr;
    // NCCL < 2.9 printed `comm 0x… rank 1 nranks 4` (no nRanks) when the communicator was made.
    let nr = intAfter(s, " nRanks ", msg, end);
    if (nr < 0) nr = intAfter(s, " nranks ", msg, end);
    if (nr > st.nranks) st.nranks = nr;
  }

  private initComplete(s: string, msg: number, end: number): void {
    const st = this.st;
    st.initComplete++;
    if (this.lineStart >= 0) this.noteHost(s, this.lineStart);
    const rank = intAfter(s, " rank ", msg - 1, end);
    const nranks = intAfter(s, " nranks ", msg, end);
    if (rank < 0 || nranks < 0) return;
    if (nranks > st.nranks) st.nranks = nranks;
    if (st.completedRanks.size < 1 << 20) st.completedRanks.add(rank);
  }

  private warn(s: string, start: number, p: number, msg: number, end: number): void {
    const sp = indexInLine(s, " ", p, end);
    const key = processKey(s, p, sp < 0 ? end : sp, end);
    // A WARN from the IB transport or the verbs wrapper: NCCL was using (or opening) IB devices.
    if (IB_ACTIVITY.test(s.slice(p, end))) this.st.ibWarnings++;
    else if (indexInLine(s, "net_socket.c", p, msg) >= 0) this.st.socketTransport++;
    // A failed work completion (`NET/IB : Got completion from peer … with error 12`, net_ib.cc) comes from a transfer
    // a collective posted: the communicator had been built and was running.
    if (indexInLine(s, "Got completion ", msg, end) >= 0) this.st.commRan++;
    this.addWarning(s.slice(msg, end), hostOf(key), s.slice(start, end));
  }

  private failure(s: string, start: number, end: number): void {
    this.addWarning(s.slice(start, end).trim(), "");
  }

  private addWarning(text: string, host: string, sample = text): void {
    const cause = causeOf(text, sample);
    let agg = this.st.warnings.get(cause.id);
    if (!agg) {
      agg = {
        id: cause.id,
        severity: cause.severity,
        cause: cause.cause,
        fix: cause.fix,
        followOn: cause.followOn === true,
        count: 0,
        samples: [],
        hosts: new Set(),
      };
      this.st.warnings.set(cause.id, agg);
    }
    agg.count++;
    if (this.st.initComplete === 0 && cause.severity === "error" && cause.followOn !== true) {
      this.st.errorsBeforeInit++;
    }
    if (agg.samples.length < MAX_SAMPLES) agg.samples.push(sample.length > 400 ? `${sample.slice(0, 400)}…` : sample);
    if (host && agg.hosts.size < 64) agg.hosts.add(host);
  }

  get current(): string {
    return this.chunk;
  }
}

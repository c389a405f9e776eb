import { charIn, pdshHostAt } from "../../core/line-prefixes.js";
import { colourResetStart, deviceAfterSpaces, logLineStart, pdshLaxAt } from "../../core/log-line-prefixes.js";
import { BARE_INFO, CONNECTION_TAIL } from "./bare-messages.js";
import { failureOrCallerLine, workLaunchedAfterOthers } from "./caller-lines.js";
import { ChannelLines } from "./channel-lines.js";
import { HostTable } from "./hosts.js";
import { envLine, initComplete, nicDistance, noteVersion } from "./info-facts.js";
import { collTrace, infoMessage } from "./info-messages.js";
import { indexInLine, processKey } from "./line.js";
import { ELIDED_CHAIN_HEAD, OLD_LINE, OLD_NET_MESSAGE, RETURN_STEP, SOURCE_WARN, underSrc } from "./line-shapes.js";
import { enterNetPhase, NetLines } from "./net-lines.js";
import { gluedBannerEnd, locatedWarnIn, recordStart, splitPoint } from "./record.js";
import type { LogState } from "./state.js";
import { VersionLines } from "./version-lines.js";
import { addWarning, failureLine, warnRecord } from "./warnings.js";

export { logLineStart as skipPrefixes } from "../../core/log-line-prefixes.js";
export { indexInLine, keep } from "./line.js";

/**
 * The hot path: one NCCL log line at a time, addressed as `s[start, end)` inside a large chunk so that no per-line
 * string is made unless the line carries information (versions, devices, WARNs). Bulk lines (channel connections)
 * are classified with startsWith/charCodeAt only. Tech-spec §4 is the grammar.
 */
export class LineScanner {
  /** Cached next occurrences of markers (searches never rescan: linear in the chunk whatever the content). */
  private nextNccl = -1;
  private chunk = "";

  constructor(private readonly st: LogState) {
    this.hosts = new HostTable(st);
    this.net = new NetLines(st);
    this.channels = new ChannelLines(st);
    this.versions = new VersionLines(st);
  }

  /** Scans every complete line of `s`; returns the index after the last newline (the rest is a partial line). */
  scanChunk(s: string, from = 0): number {
    this.chunk = s;
    this.nextNccl = -1;
    this.channels.reset();
    this.hosts.reset();
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
    this.channels.reset();
    this.hosts.reset();
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
    // A device list wrapped onto the lines after its `NET/IB : Using` line.
    if (this.net.open !== null && this.net.continued(s, start, end)) {
      st.ncclLines++;
      return;
    }
    // pdsh/clush `host: ` first; then hostnames start with a letter: only other lines carry a launcher or time prefix.
    // The line's first space (one native search) serves both the pdsh check and, on the usual line, where its
    // `host:pid:tid` ends (startOf).
    const space = s.indexOf(" ", start);
    const pdsh = pdshLaxAt(s, start, end, space);
    const q = pdsh >= 0 ? pdsh : start;
    // `gpu-7: NCCL INFO …`: the record kept no host of its own, the launcher's prefix names it (a host-shaped word; not
    // before rank 0's banner, which NCCL prints with no host of its own).
    if (
      pdsh >= 0 &&
      (s.startsWith("NCCL INFO ", q) || s.startsWith("NCCL WARN ", q)) &&
      pdshHostAt(s, start, end) === pdsh
    )
      this.hosts.launcherHost(s.slice(start, pdsh - 2));
    const c0 = s.charCodeAt(q);
    let p = (c0 >= 97 && c0 <= 122) || (c0 >= 65 && c0 <= 90 && c0 !== 78) ? q : logLineStart(s, q, end);
    // Rank 0's banner with another rank's record glued to it: the banner is read, the record after it on its own.
    if (s.charCodeAt(p) === 78 /* N */) {
      const banner = gluedBannerEnd(s, p, end, st.hosts);
      if (banner > p) {
        st.ncclLines++;
        noteVersion(st, s, p, banner, s.slice(start, p));
        p = banner;
      }
    }
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
    // The first space right before `[dev]`, or a few a page set to align the devices (`host-b:xxx  [0]`).
    const space = this.spaceFrom(s, p);
    return space > p && deviceAfterSpaces(s, space) === open ? p : recordStart(s, p, k);
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
    // A WARN located by its source opens the line, before the first `] NCCL ` marker (`host:1:1 [0] misc/cudawrap.cc:179
    // NCCL WARN … host:1:2 [0] NCCL INFO …`, a log flattened to one paragraph): read first, on its own.
    const lead = locatedWarnIn(s, p0, this.startOf(s, p0, k0));
    if (lead >= 0) {
      const head = recordStart(s, p0, lead);
      const split = splitPoint(s, lead, k0, this.st.hosts, s.slice(head, lead));
      this.record(s, from, head, lead, split);
      this.bannerInside(s, lead, split);
      from = split;
      p = split;
    }
    for (;;) {
      const r = this.startOf(s, p, k);
      const marker = this.nextNccl - 1;
      const last = marker < 0 || marker >= end;
      // A WARN located by its source has no `] NCCL ` marker: it may start before the next one.
      const located = locatedWarnIn(s, k + 6, last ? end : marker);
      if (last && located < 0) {
        this.record(s, from, r, k, end);
        return;
      }
      const split = splitPoint(s, k, located >= 0 ? located : marker, this.st.hosts, s.slice(r, k));
      this.record(s, from, r, k, split);
      this.bannerInside(s, k, split);
      from = split;
      p = split;
      if (located >= 0) {
        // The marker found before stays the next one after this WARN.
        k = located;
        continue;
      }
      k = this.nextNccl;
      const again = indexInLine(s, "] NCCL ", k + 1, end);
      // None left in this line: the next line searches from its own start.
      this.nextNccl = again < 0 ? -1 : again + 1;
    }
  }

  /**
   * Rank 0's banner (`NCCL version 2.20.5+cuda12.4`, printed with no prefix) inside a line of glued records, after
   * another record's message (`… NCCL INFO cudaDriverVersion 12040 NCCL version 2.20.5+cuda12.4 host:…`): a log whose
   * line breaks were lost (a paste flattened to one paragraph, https://github.com/vllm-project/vllm/issues/12292).
   * Only the banner's whole shape, `+cuda` included, counts (src/init.cc: `"NCCL version %s\n"` with
   * `NCCL_VERSION_STRING "+cuda" CUDA_VERSION`).
   */
  private bannerInside(s: string, k: number, end: number): void {
    const at = indexInLine(s, " NCCL version ", k + 6, end);
    if (at < 0) return;
    if (/^NCCL version \d+\.\d+\.\d+\+cuda\d/.test(s.slice(at + 1, Math.min(end, at + 48))))
      noteVersion(this.st, s, at + 1, end, "");
  }

  /** One `host:pid:tid [dev] NCCL LEVEL …` record: `p` is where its host starts, `k` the space before `NCCL`. */
  private record(s: string, start: number, p0: number, k: number, end: number): void {
    this.st.ncclLines++;
    this.versions.recordSeen();
    // Every record names its host, whatever it says (a host may print only Trees, comm or WARN lines); a grep file
    // name before it is not part of the record.
    const p = this.noteHost(s, p0) === "" ? p0 : this.hostStart;
    const lvl = k + 6;
    const c = s.charCodeAt(lvl);
    if (c === 73 /* I */ && s.charCodeAt(lvl + 1) === 78 /* N */) {
      // A line cut inside "INFO" (a pasted log torn mid-line) has no message: its "message" would start on the next line.
      if (lvl + 5 <= end) this.info(s, p, k, lvl + 5, end);
    } else if (c === 87 /* W */ && s.startsWith("WARN", lvl)) warnRecord(this.st, s, start, p, lvl + 5, end);
    else if (c === 101 /* e */ && s.startsWith("error", lvl)) failureLine(this.st, s, start, end);
    else if (c === 118 /* v */ && s.startsWith("version ", lvl)) noteVersion(this.st, s, k + 1, end, s.slice(start, p));
  }

  private plainLine(s: string, start: number, p: number, end: number): void {
    const st = this.st;
    if (s.startsWith("NCCL version ", p)) {
      st.ncclLines++;
      noteVersion(this.st, s, p, end, s.slice(start, p));
      return;
    }
    // A line cut down to its level and message (`NCCL INFO comm 0x… - Init COMPLETE`): a collector dropped the host.
    if (s.startsWith("NCCL INFO ", p) || s.startsWith("NCCL WARN ", p)) {
      st.ncclLines++;
      if (s.charCodeAt(p + 5) === 73 /* I */) this.info(s, p, p, p + 10, end);
      else warnRecord(this.st, s, start, p, p + 10, end);
      return;
    }
    // NCCL ≤ 2.4's record with its host cut off (`INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'`, no
    // `NCCL` before the level then): a question quoting it inline.
    if (OLD_NET_MESSAGE.test(s.slice(p, Math.min(end, p + 16)))) {
      st.ncclLines++;
      if (s.charCodeAt(p) === 73 /* I */) this.info(s, p, p, p + 5, end);
      else warnRecord(this.st, s, start, p, p + 5, end);
      return;
    }
    const text = s.slice(p, end);
    // A WARN quoted inline after a sentence's full-width colon (`…报错：NCCL WARN Duplicate GPU detected : …`, shape seen
    // in notes committed to a public repository, index-file 37047300136): the record, with no host.
    const inline = text.indexOf("：NCCL WARN ");
    if (inline >= 0) {
      st.ncclLines++;
      warnRecord(this.st, s, start, p + inline + 1, p + inline + 11, end);
      return;
    }
    const w = text.indexOf(" NCCL WARN");
    if (w >= 0) {
      st.ncclLines++;
      const q = recordStart(s, p, p + w);
      this.noteHost(s, q);
      warnRecord(this.st, s, start, q, p + w + 11, end);
      return;
    }
    // NCCL ≤ 2.3's WARN cut down to its source and message (`include/socket.h:344 WARN Socket creation failed …`).
    const src = SOURCE_WARN.exec(text);
    if (src) {
      st.ncclLines++;
      warnRecord(this.st, s, start, p, p + src[0].length, end);
      return;
    }
    // NCCL 2.0–2.2 printed no `NCCL` before the level: `host:pid:tid [0] INFO …`, `host:pid:tid [0] file.cu:61 WARN …`.
    const old = OLD_LINE.exec(text);
    if (old) {
      st.ncclLines++;
      // Its `host:pid:tid` names the host, as on every later record.
      this.noteHost(s, p);
      const lvl = p + old[0].length - 5;
      if ((old[1] ?? old[2]) === "INFO") this.info(s, p, lvl - 1, lvl + 5, end);
      else warnRecord(this.st, s, start, p, lvl + 5, end);
      return;
    }
    workLaunchedAfterOthers(st, text);
    if (this.versions.read(s, start, p, end, text)) return;
    // An INFO message kept without its record's prefix and level (`Using network IBext_v8`): read as that record.
    if (BARE_INFO.test(text)) {
      st.ncclLines++;
      this.info(s, p, p, p, end);
      return;
    }
    // A return chain whose head a page elided (`... -> enqueue.cc:3053 -> 2`): read from the step it kept.
    const elided = ELIDED_CHAIN_HEAD.exec(text);
    if (elided && RETURN_STEP.test(text.slice(elided[0].length))) {
      st.ncclLines++;
      this.info(s, p, p, p + elided[0].length, end);
      return;
    }
    if (CONNECTION_TAIL.test(text)) {
      st.ncclLines++;
      this.channels.read(s, p, end);
      return;
    }
    if (/ NCCL (?:INFO|TRACE|CALL) /.test(text)) {
      st.ncclLines++;
      return;
    }
    const quoted = this.lastErrorNext;
    this.lastErrorNext = failureOrCallerLine(st, s, start, p, end, text, quoted);
  }

  /** The line before was PyTorch's `Last error:` alone: this one is NCCL's last WARN message. */
  private lastErrorNext = false;

  /**
   * One INFO message. Large logs reach here through the line filter (filter/line-filter.ts), which counts some lines
   * itself and never passes them: connection lines, the set-up lines of its `noFact`, repeated `comm 0x…`, `Using
   * network`, `Assigned NET plugin` and `Init COMPLETE` lines. A rule that reads more from such a line must take it
   * out of the filter first (wasm/nccl-line-filter/filter.ts); `npx vitest run src/nccl/log/filter` fails otherwise.
   */
  private info(s: string, p: number, k: number, msg0: number, end: number): void {
    const st = this.st;
    // A return chain printed with the source's whole build path (`/data/build/hipify/src/init.cc:1448 -> 3`, RCCL's
    // builds; shape seen at https://github.com/ROCm/rccl/issues/1261) is read from its path under `src/`.
    const msg = s.charCodeAt(msg0) === 47 /* / */ ? underSrc(s, msg0, end) : msg0;
    const c = s.charCodeAt(msg);
    if (c === 67 /* C */) {
      if (s.charCodeAt(msg + 1) === 104 /* h */ && charIn(s, msg + 7, end) === 32) this.channelLine(s, p, msg, end);
      else if (s.startsWith("CUDA Dev ", msg)) nicDistance(st, s, msg, end);
      return;
    }
    // NCCL_DEBUG_SUBSYS=COLL: `AllReduce: opCount 0 sendbuff … comm 0x… [nranks=8] stream …` (src/enqueue.cc).
    if (c !== 67 && c >= 65 && c <= 83 && collTrace(st, s, msg, end)) return;
    // RCCL's banner inside its INFO record (`RCCL version : 2.22.3-HEAD:5a1b9c0`, `RCCL version 2.20.5+hip6.2 HEAD`
    // in rocm-6.2.2; src/init.cc, VERSION_STRING, in https://github.com/ROCm/rccl): the NCCL version it is built from.
    if (c === 82 /* R */ && s.startsWith("RCCL version ", msg)) {
      const v = /^(?:: )?(\d+\.\d+\.\d+)/.exec(s.slice(msg + 13, end))?.[1];
      if (v !== undefined) noteVersion(this.st, s, msg, end, processKey(s, p, k), v);
      return;
    }
    // Before NCCL 2.7 connections were printed as `Ring 00 : 0[0] -> 1[1] via P2P/IPC` (`Ring 00 : 0 1 2 3` is the order).
    if (c === 82 /* R */) {
      if (s.charCodeAt(msg + 1) === 105 /* i */ && charIn(s, msg + 4, end) === 32) this.channelLine(s, p, msg, end);
      return;
    }
    if (c === 70 /* F */ && s.startsWith("Failed to open libibverbs", msg)) {
      addWarning(this.st, s.slice(msg, end), this.noteHost(s, p));
      return;
    }
    if (s.charCodeAt(end - 1) === 69 /* E */ && s.startsWith("Init COMPLETE", end - 13)) {
      initComplete(this.st, s, msg, end);
      this.noteHost(s, p);
      return;
    }
    if (c === 78 /* N */) {
      if (s.startsWith("NET/", msg)) this.net.read(s, p, k, msg, end, this.noteHost(s, p));
      else if (s.startsWith("NCCL version ", msg)) noteVersion(this.st, s, msg, end, processKey(s, p, k));
      else if (s.startsWith("NCCL_", msg)) {
        envLine(this.st, s, msg, end);
        // The network plugin's own setting, read when the network is set up.
        if (s.startsWith("NCCL_NET_PLUGIN ", msg)) enterNetPhase(st, processKey(s, p, k));
      }
      return;
    }
    infoMessage(st, s, p, k, msg, end);
  }

  /**
   * Adds the host of a `host:pid:tid [dev] NCCL …` record starting at `p` to the hosts seen, and returns it ("" when
   * the record has no such prefix). A record's host is asked for again by the reader of its message: the answer for
   * the same place is kept.
   */
  private noteHost(s: string, p: number): string {
    if (p === this.hostAt) return this.hostThere;
    this.hostAt = p;
    this.hostThere = this.hosts.at(s, p, this.lineEnd, this.spaceFrom(s, p));
    this.hostStart = this.hostThere === "" ? p : this.hosts.start;
    return this.hostThere;
  }
  /** Where the host noteHost last found starts. */
  private hostStart = 0;

  private readonly hosts: HostTable;
  private readonly net: NetLines;
  private readonly channels: ChannelLines;
  private readonly versions: VersionLines;

  private channelLine(s: string, p: number, msg: number, end: number): void {
    this.noteHost(s, p);
    this.channels.read(s, msg, end);
  }
  /** Where noteHost last looked in this chunk (-1: nowhere yet) and what it found there. */
  private hostAt = -1;
  private hostThere = "";

  get current(): string {
    return this.chunk;
  }
}

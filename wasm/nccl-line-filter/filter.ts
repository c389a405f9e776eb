/**
 * The NCCL log's byte filter, in AssemblyScript (compiled to WebAssembly by `node wasm/build.mjs`; the bytes are kept
 * in src/nccl/log/filter/wasm-bytes.ts and a test checks that they are what this source compiles to).
 *
 * Most lines of a large NCCL INFO log carry nothing the analyser keeps beyond a count: each rank prints a connection
 * line per channel and peer (`host:pid:tid [d] NCCL INFO Channel 03/0 : 5[5] -> 6[6] via P2P/CUMEM/read`, src/transport.cc
 * in https://github.com/NVIDIA/nccl) and a handful of set-up lines that name no fact (`Trees …`, `threadThresholds …`,
 * `Connected all rings`, src/init.cc, src/graph/*.cc). This filter reads the bytes 16 at a time, counts those lines
 * exactly as the analyser's line scanner would count them (src/nccl/log/scan.ts and channel-lines.ts: the reference),
 * and passes every other line through unchanged, in order, for the scanner to read.
 *
 * A line is dropped only when the scanner's reading of it is known in full:
 * - it is one whole record, `host:pid:tid [d] NCCL INFO …`, pure printable ASCII, at the start of the line or after a
 *   space or an Open MPI `[j,r]<stdout>:` tag, with no other `] NCCL ` in the line and no colour at its end;
 * - its host was already named by a line passed through since the last `reset` (the scanner noted it there: dropping
 *   a later record of the same host changes no set of hosts);
 * - its message is a connection line over P2P, SHM or the internal IB network, or one of the set-up lines in NO_FACT.
 * Every other line, a line cut by the end of a piece included, goes through: keeping a line is always right.
 */

// Counts, as i32 at COUNTS: the fields of LogState they are added to (src/nccl/log/filter/line-filter.ts).
const C_LINES = 0; // lines and NCCL lines
const C_P2P = 1;
const C_SHM = 2;
const C_NET = 3;
const C_NET_GDR = 4;
const C_NET_RECV = 5;
const C_NET_RECV_GDR = 6;
const C_IB = 7;

/** The largest piece `run` takes, in bytes. */
const PIECE: i32 = 65536;
/** Host table: open addressing, a slot is (offset into STORE + 1, length) as two u32; 0 is empty. */
const SLOT_BITS: u32 = 12;
const SLOTS_N: u32 = 1 << SLOT_BITS;
/** Hosts kept at most (the table stays under three quarters full); past that lines of new hosts go through. */
const HOSTS_MAX: u32 = 3000;
const STORE_BYTES: u32 = 65536;

const COUNTS: usize = memory.data(64, 16);
const SLOTS: usize = memory.data(SLOTS_N * 8, 16);
const STORE: usize = memory.data(STORE_BYTES, 16);
// 16 bytes of slack after each buffer: the last block's load may read past the piece (those bytes are masked).
const IN: usize = memory.data(PIECE + 32, 16);
const OUT: usize = memory.data(PIECE + 32, 16);

let hosts: u32 = 0;
let storeUsed: u32 = 0;
/** The last piece ended inside a line: the next piece's bytes up to its first newline finish it (passed through). */
let midLine: bool = false;
let outLen: usize = 0;
/** Start of the run of passed-through bytes not yet copied to OUT. */
let keepFrom: usize = 0;

export function inputPtr(): usize {
  return IN;
}
export function outputPtr(): usize {
  return OUT;
}
export function countsPtr(): usize {
  return COUNTS;
}
export function pieceBytes(): i32 {
  return PIECE;
}

/** A new state: no host noted, no count, no line open. */
export function reset(): void {
  memory.fill(SLOTS, 0, SLOTS_N * 8);
  memory.fill(COUNTS, 0, 64);
  hosts = 0;
  storeUsed = 0;
  midLine = false;
}

@inline function at(p: usize): u32 {
  return <u32>load<u8>(p);
}

@inline function bump(i: i32): void {
  store<i32>(COUNTS + (<usize>i << 2), load<i32>(COUNTS + (<usize>i << 2)) + 1);
}

/** The ASCII text `word` (at most 8 bytes, little-endian in `w`, `n` long) is at `p`. */
@inline function wordAt(p: usize, w: u64, n: u32): bool {
  const mask: u64 = n >= 8 ? <u64>-1 : ((<u64>1 << (<u64>n * 8)) - 1);
  return (load<u64>(p) & mask) == w;
}

/** `text` (ASCII) starts at `p` and ends by `e`. Read as the UTF-16 code units of the literal, no call. */
@inline function textAt(p: usize, e: usize, text: string): bool {
  const n = <usize>text.length;
  if (p + n > e) return false;
  const t = changetype<usize>(text);
  for (let i: usize = 0; i < n; i++) if (at(p + i) != <u32>load<u16>(t + (i << 1))) return false;
  return true;
}

/** The first `text` wholly inside [from, to), or 0 (no real place is 0: buffers sit above the data). */
function find(from: usize, to: usize, text: string): usize {
  const n = <usize>text.length;
  if (to < from + n) return 0;
  const t = changetype<usize>(text);
  const c0 = <u32>load<u16>(t);
  const last = to - n;
  for (let p = from; p <= last; p++) {
    if (at(p) != c0) continue;
    let i: usize = 1;
    while (i < n && at(p + i) == <u32>load<u16>(t + (i << 1))) i++;
    if (i == n) return p;
  }
  return 0;
}

/** The first `via ` wholly inside [from, to), or 0: 16 bytes at a time (a connection line's `via` is near its end). */
function findVia(from: usize, to: usize): usize {
  const v = i8x16.splat(118);
  for (let b = from; b + 4 <= to; b += 16) {
    let m = i8x16.bitmask(i8x16.eq(v128.load(b), v));
    while (m != 0) {
      const p = b + <usize>ctz(m);
      m &= m - 1;
      if (p + 4 > to) return 0;
      if (load<u32>(p) == 0x20616976) return p;
    }
  }
  return 0;
}

@inline function isDigit(c: u32): bool {
  return c - 48 < 10;
}

@inline function isHostChar(c: u32): bool {
  return (c | 32) - 97 < 26 || c - 48 < 10 || c == 46 || c == 95 || c == 45;
}

/** `[d+,d+]<stdout>:` or `<stderr>:` ends at `e` and starts at `a` or after a space: Open MPI's --tag-output tag. */
function mpiTagBefore(a: usize, e: usize): bool {
  if (e < a + 14 || at(e - 1) != 58 || at(e - 2) != 62) return false;
  if (!textAt(e - 9, e, "<stdout>:") && !textAt(e - 9, e, "<stderr>:")) return false;
  let p = e - 9;
  if (at(p - 1) != 93) return false;
  p -= 2;
  let digits = 0;
  while (p > a && isDigit(at(p))) {
    p--;
    digits++;
  }
  if (digits == 0 || at(p) != 44) return false;
  p--;
  digits = 0;
  while (p > a && isDigit(at(p))) {
    p--;
    digits++;
  }
  if (digits == 0 || at(p) != 91) return false;
  return p == a || at(p - 1) == 32;
}

/** FNV-1a over [p, p + n). */
function hashOf(p: usize, n: usize): u32 {
  let h: u32 = 2166136261;
  for (let i: usize = 0; i < n; i++) h = (h ^ at(p + i)) * 16777619;
  return h;
}

/**
 * Looks the host [p, p + n) up; adds it when `add`. True when it was there before this call.
 * A full table or store adds nothing (the host's later lines then go through).
 */
function hostSeen(p: usize, n: usize, add: bool): bool {
  let slot = hashOf(p, n) & (SLOTS_N - 1);
  for (;;) {
    const s = SLOTS + (<usize>slot << 3);
    const off = load<u32>(s);
    if (off == 0) break;
    if (load<u32>(s, 4) == <u32>n && memory.compare(STORE + <usize>off - 1, p, n) == 0) return true;
    slot = (slot + 1) & (SLOTS_N - 1);
  }
  if (add && hosts < HOSTS_MAX && storeUsed + <u32>n <= STORE_BYTES) {
    const s = SLOTS + (<usize>slot << 3);
    memory.copy(STORE + storeUsed, p, n);
    store<u32>(s, storeUsed + 1);
    store<u32>(s, <u32>n, 4);
    storeUsed += <u32>n;
    hosts++;
  }
  return false;
}

/**
 * The host of the record whose `[d]` opens at `open` in the line starting at `a`: its `host:pid:tid` (host a letter
 * then letters, digits, `.`, `_`, `-`; pid and tid digits) ends at the space before `open`. Returns the host's start
 * and sets hostLen, or 0 when the record is not that shape or stands after anything but the line's start, a space or
 * an Open MPI tag.
 */
let hostLen: usize = 0;
function hostOfRecord(a: usize, open: usize): usize {
  const te = open - 1;
  // tid, then pid: digits back to a colon each.
  let p = te;
  for (let part = 0; part < 2; part++) {
    const stop = p;
    while (p > a && isDigit(at(p - 1))) p--;
    if (p == stop || p <= a || at(p - 1) != 58) return 0;
    p--;
  }
  const hostEnd = p;
  while (p > a && isHostChar(at(p - 1))) p--;
  const n = hostEnd - p;
  if (n == 0 || n > 255 || (at(p) | 32) - 97 >= 26) return 0;
  if (p > a && at(p - 1) != 32) {
    // Only an Open MPI tag may be glued to the host (`[1,3]<stdout>:host:…`).
    if (at(p - 1) != 58 || !mpiTagBefore(a, p)) return 0;
  }
  hostLen = n;
  return p;
}

/** Messages (after `NCCL INFO `) that name no fact the scanner keeps: it only counts their lines. */
function noFact(msg: usize, e: usize): bool {
  const c = at(msg);
  // The scanner reads a collective's trace (`AllReduce: opCount …`) from the first colon of such a message's first 24
  // characters: a message with a colon there goes through.
  for (let p = msg; p < msg + 24 && p < e; p++) if (at(p) == 58) return false;
  if (c == 67) return textAt(msg, e, "Connected all "); // Connected all rings / trees (src/init.cc)
  if (c == 84) return textAt(msg, e, "Trees "); // src/graph/connect.cc
  if (c == 116) return textAt(msg, e, "threadThresholds "); // src/graph/tuning.cc
  if (c == 80) return textAt(msg, e, "P2P Chunksize set to "); // src/init.cc
  if (c == 83) return textAt(msg, e, "Setting affinity for GPU "); // src/misc/cudawrap.cc, src/init.cc
  if (c == 78) return textAt(msg, e, "NVLS multicast support is not available"); // src/transport/nvls.cc
  if (isDigit(c)) {
    // `16 coll channels, 16 collnet channels, 0 nvls channels, …` (src/init.cc)
    let p = msg;
    while (p < e && isDigit(at(p))) p++;
    return textAt(p, e, " coll channels, ");
  }
  return false;
}

/**
 * A connection line's transport, counted as ChannelLines.read counts it; false (not counted) for any other shape,
 * which then goes through to the scanner.
 */
function connection(msg: usize, e: usize): bool {
  if (msg + 8 > e || load<u64>(msg) != 0x206c656e6e616843) return false; // "Channel "
  const via = findVia(msg, e);
  if (via == 0) return false; // a ring order line: the scanner reads the rank count from it
  const t = via + 4;
  if (t >= e) return false;
  const c = at(t);
  if (c == 80) {
    if (t + 2 > e || at(t + 1) != 50) return false;
    bump(C_P2P);
  } else if (c == 83) {
    if (t + 2 > e || at(t + 1) != 72) return false;
    bump(C_SHM);
  } else if (c == 78) {
    if (t + 4 > e || at(t + 3) != 47) return false;
    const n = t + 4;
    if (n + 3 > e || (load<u32>(n) & 0xffffff) != 0x2f4249) return false; // not "IB/": the scanner keeps the name
    const gdr = find(n, e, "GDRDMA") != 0;
    // "[receive] " right before `via`, else anywhere before it
    const tagged = via >= msg + 10 && load<u64>(via - 10) == 0x657669656365725b && load<u16>(via - 2) == 0x205d;
    const recv = tagged || find(msg, via, "[receive]") != 0;
    bump(C_NET);
    bump(C_IB);
    if (gdr) bump(C_NET_GDR);
    if (recv) {
      bump(C_NET_RECV);
      if (gdr) bump(C_NET_RECV_GDR);
    }
  } else return false;
  return true;
}

/**
 * Reads the whole line [a, e) (e is its newline) whose only `] NCCL ` is at `k - 1`: true when it is counted and may
 * be dropped. Notes the host of any well-formed INFO record, so that its later records may be dropped.
 */
function readLine(a: usize, k: usize, e: usize): bool {
  const lvl = k + 6;
  // "INFO " after "NCCL "
  if (lvl + 5 > e || load<u32>(lvl) != 0x4f464e49 || at(lvl + 4) != 32) return false;
  const msg = lvl + 5;
  const last = at(e - 1);
  if (last == 109) return false; // `m`: maybe a colour's end, which the scanner takes off first
  const close = k - 1;
  let open = close - 2;
  if (at(open) != 91) {
    open = close - 3;
    if (at(open) != 91 || !isDigit(at(close - 2))) return false;
  }
  if (!isDigit(at(open + 1)) || open < a + 6 || at(open - 1) != 32) return false;
  const host = hostOfRecord(a, open);
  if (host == 0) return false;
  if (!hostSeen(host, hostLen, true)) return false;
  if (last == 69) return false; // `E`: maybe `Init COMPLETE`, read from the line's end
  if (msg >= e) return false;
  if (connection(msg, e)) return true;
  return noFact(msg, e);
}

/** Copies the kept run [keepFrom, to) to OUT. */
@inline function flushKept(to: usize): void {
  const n = to - keepFrom;
  if (n > 0) {
    memory.copy(OUT + outLen, keepFrom, n);
    outLen += n;
  }
}

/**
 * Filters the `n` bytes at IN (a piece of the log, n ≤ PIECE); the kept bytes are at OUT. Returns their length.
 * Lines cut by the piece's end go through whole, across pieces.
 */
export function run(n: i32): i32 {
  const end = IN + <usize>n;
  outLen = 0;
  keepFrom = IN;
  let a = IN; // the line's start
  let k: usize = 0; // the space after the line's `] NCCL ` (0: none yet)
  let records = 0;
  let clean = true;
  let open = midLine;
  const nl = i8x16.splat(10);
  const close = i8x16.splat(93);
  const space = i8x16.splat(32);
  for (let b = IN; b < end; b += 16) {
    const v = v128.load(b);
    // Control bytes (a newline among them) and bytes ≥ 0x80, and `]`.
    const ctl = v128.or(i8x16.lt_u(v, space), i8x16.lt_s(v, i8x16.splat(0)));
    let events = i8x16.bitmask(v128.or(ctl, i8x16.eq(v, close)));
    const newlines = i8x16.bitmask(i8x16.eq(v, nl));
    const ctls = i8x16.bitmask(ctl);
    if (b + 16 > end) events &= (1 << <i32>(end - b)) - 1;
    while (events != 0) {
      const i = ctz(events);
      events &= events - 1;
      const p = b + <usize>i;
      const bit = 1 << i;
      if (newlines & bit) {
        if (!open && clean && records == 1 && readLine(a, k, p)) {
          bump(C_LINES);
          flushKept(a);
          keepFrom = p + 1;
        }
        a = p + 1;
        k = 0;
        records = 0;
        clean = true;
        open = false;
      } else if (ctls & bit) clean = false;
      else if (p + 7 <= end && wordAt(p + 1, 0x204c43434e20, 6)) {
        // `] NCCL `
        records++;
        if (k == 0) k = p + 1;
      }
    }
  }
  midLine = a < end;
  flushKept(end);
  return <i32>outLen;
}

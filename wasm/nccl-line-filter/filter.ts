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
 *   space, an Open MPI `[j,r]<stdout>:` tag or a launcher's `[default0]:`, with no other `] NCCL ` in the line and no
 *   colour at its end;
 * - its host was already named by a line passed through since the last `reset` (the scanner noted it there: dropping
 *   a later record of the same host changes no set of hosts);
 * - its message is a connection line over P2P, SHM, sockets, the internal IB network or a network whose name a line
 *   passed through already gave the scanner; a set-up line that names no fact (noFact); a `comm 0x…` line (its
 *   counts are kept as maxima); an `Init COMPLETE` after the first (counted, its rank kept); or a process's `Using
 *   network X` / `Assigned NET plugin X` naming the network the scanner already holds for it.
 * What the filter remembers follows the lines it passes: a line that may name another network, in a form it does not
 * read, makes it forget every process's network. Every other line, and a line longer than half a piece, goes
 * through: keeping a line is always right.
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
// Maxima: nNodes, localRanks, nRanks of the `comm 0x…` lines dropped.
const C_NNODES = 8;
const C_LOCAL_RANKS = 9;
const C_NRANKS = 10;
// `Init COMPLETE` lines dropped, and how many ranks they named that were not named before (listed at RANKS).
const C_INIT_COMPLETE = 11;
const C_NEW_RANKS = 12;
// Connections over NET/Socket dropped.
const C_SOCKET = 13;

/** The largest piece `run` takes, in bytes. */
const PIECE: i32 = 65536;
/**
 * Two sets of byte strings (the hosts noted; the processes whose network the scanner was last given as IB), each a
 * table of SLOTS_N slots of 16 bytes (u32 generation, u32 offset into its store, u32 length, u32 hash) and a store.
 * A slot counts only in the set's current generation, so a set is emptied by a new generation, not by clearing memory.
 */
const SLOT_BITS: u32 = 12;
const SLOTS_N: u32 = 1 << SLOT_BITS;
/** Entries kept at most per set (the table stays under three quarters full); past that new lines go through. */
const ENTRIES_MAX: u32 = 3000;
const STORE_BYTES: u32 = 65536;
/** A set's header: u32 generation, u32 entries, u32 store bytes used. */
const HOSTS: usize = memory.data(16, 16);
const HOST_SLOTS: usize = memory.data(SLOTS_N * 16, 16);
const HOST_STORE: usize = memory.data(STORE_BYTES, 16);
const PROCS: usize = memory.data(16, 16);
const PROC_SLOTS: usize = memory.data(SLOTS_N * 16, 16);
const PROC_STORE: usize = memory.data(STORE_BYTES, 16);
/** The network the scanner holds for each process of PROCS, by slot: u32 offset into PROC_STORE, u32 length. */
const PROC_VALUES: usize = memory.data(SLOTS_N * 8, 16);

const COUNTS: usize = memory.data(64, 16);
/** Ranks whose `Init COMPLETE` was dropped, one bit each (ranks below 2^20); the new ones of a piece at RANKS. */
const RANK_LIMIT: u32 = 1 << 20;
const RANK_BITS: usize = memory.data(RANK_LIMIT >> 3, 16);
const RANKS_MAX: i32 = 2048;
const RANKS: usize = memory.data(RANKS_MAX * 4, 16);
/**
 * Networks other than the internal IB one named by connection lines: up to NETS_MAX entries of (u32 length, i32
 * connections dropped, the name's bytes), each added when a line naming it went through.
 */
const NETS_MAX: i32 = 8;
const NET_NAME_MAX: usize = 40;
const NET_ENTRY: usize = 48;
const NETS: usize = memory.data(NETS_MAX * <i32>NET_ENTRY, 16);
let nets: i32 = 0;

/**
 * The entry of the network named [p, p + n) when a line naming it went through before (0 otherwise: it is added, and
 * this line goes through, for the scanner to take the name).
 */
function netNamed(p: usize, n: usize): usize {
  for (let i = 0; i < nets; i++) {
    const entry = NETS + <usize>i * NET_ENTRY;
    if (load<u32>(entry) == <u32>n && memory.compare(entry + 8, p, n) == 0) return entry;
  }
  if (nets < NETS_MAX) {
    const entry = NETS + <usize>nets * NET_ENTRY;
    store<u32>(entry, <u32>n);
    store<i32>(entry, 0, 4);
    memory.copy(entry + 8, p, n);
    nets++;
  }
  return 0;
}

/** An `Init COMPLETE` went through since the last reset (the scanner's count is no longer 0). */
let initSeen: bool = false;
// 16 bytes of slack after each buffer: the last block's load may read past the piece (those bytes are masked).
const IN: usize = memory.data(PIECE + 32, 16);
const OUT: usize = memory.data(PIECE + 32, 16);

/** The last piece ended inside a line: the next piece's bytes up to its first newline finish it (passed through). */
let midLine: bool = false;
/** Bytes of an unfinished line kept at IN from the last piece. */
let carried: usize = 0;
let outLen: usize = 0;
/** Start of the run of passed-through bytes not yet copied to OUT. */
let keepFrom: usize = 0;

/** Where the next piece goes: after the line the last piece ended in. */
export function roomPtr(): usize {
  return IN + carried;
}
/** How many bytes the next piece may have. */
export function roomBytes(): i32 {
  return PIECE - <i32>carried;
}
export function outputPtr(): usize {
  return OUT;
}
export function countsPtr(): usize {
  return COUNTS;
}
export function ranksPtr(): usize {
  return RANKS;
}
export function netsPtr(): usize {
  return NETS;
}
export function netsUsed(): i32 {
  return nets;
}

/** A new state: no host noted, no count, no line open. */
export function reset(): void {
  emptySet(HOSTS);
  emptySet(PROCS);
  memory.fill(COUNTS, 0, 64);
  memory.fill(RANK_BITS, 0, RANK_LIMIT >> 3);
  midLine = false;
  carried = 0;
  initSeen = false;
  nets = 0;
}

/** A new generation of the set at `set`: its entries no longer count. */
function emptySet(set: usize): void {
  store<u32>(set, load<u32>(set) + 1);
  store<u32>(set, 0, 4);
  store<u32>(set, 0, 8);
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

/**
 * `[default0]:` or `[rank3]:` ends at `e` (torchrun's `--tee` tag, a launcher's rank): `[`, a letter, then up to 31
 * letters, digits or `_`, `]:`, at `a` or after a space. (A leading digit could be a colour whose ESC was lost.)
 */
function launcherTagBefore(a: usize, e: usize): bool {
  if (e < a + 4 || at(e - 1) != 58 || at(e - 2) != 93) return false;
  let p = e - 3;
  while (p > a && p + 34 > e && ((at(p) | 32) - 97 < 26 || isDigit(at(p)) || at(p) == 95)) p--;
  if (at(p) != 91 || p + 4 > e || (at(p + 1) | 32) - 97 >= 26) return false;
  return p == a || at(p - 1) == 32;
}

/** The first `n` bytes (n < 8) of the little-endian word `w`. */
@inline function low(w: u64, n: usize): u64 {
  return n >= 8 ? w : w & ((<u64>1 << (<u64>n << 3)) - 1);
}

/** A hash of the host [p, p + n), n < 64: its bytes as words, multiplied and mixed (no loop over bytes). */
function hashOf(p: usize, n: usize): u32 {
  let h: u64 = <u64>n * 0x9e3779b97f4a7c15;
  for (let i: usize = 0; i < n; i += 8) {
    h = (h ^ low(load<u64>(p + i), n - i)) * 0xff51afd7ed558ccd;
    h ^= h >> 29;
  }
  return <u32>(h >> 32);
}

/**
 * Looks [p, p + n) up in the set at `set` (its slots and store follow as `slots`, `store`); adds it when `add`. True
 * when it was there before this call. A full set adds nothing (the lines it would let drop then go through).
 */
function inSet(set: usize, slots: usize, store_: usize, p: usize, n: usize, add: bool): bool {
  const gen = load<u32>(set);
  const h = hashOf(p, n);
  let slot = h & (SLOTS_N - 1);
  for (;;) {
    const s = slots + (<usize>slot << 4);
    if (load<u32>(s) != gen) break;
    if (load<u32>(s, 12) == h && load<u32>(s, 8) == <u32>n && memory.compare(store_ + <usize>load<u32>(s, 4), p, n) == 0) {
      lastSlot = s;
      return true;
    }
    slot = (slot + 1) & (SLOTS_N - 1);
  }
  const entries = load<u32>(set, 4);
  const used = load<u32>(set, 8);
  if (add && entries < ENTRIES_MAX && used + <u32>n <= STORE_BYTES) {
    const s = slots + (<usize>slot << 4);
    memory.copy(store_ + <usize>used, p, n);
    store<u32>(s, gen);
    store<u32>(s, used, 4);
    store<u32>(s, <u32>n, 8);
    store<u32>(s, h, 12);
    store<u32>(set, entries + 1, 4);
    store<u32>(set, used + <u32>n, 8);
    lastSlot = s;
  } else lastSlot = 0;
  return false;
}

/** The slot inSet found or filled (0: the set was full and nothing was added). */
let lastSlot: usize = 0;

/**
 * The process [p, p + n) (`host:pid`, the scanner's key) was last given the network [q, q + m) by a line that went
 * through: the scanner holds that network for it. Otherwise this network is noted as the one it will hold.
 */
function sameNetwork(p: usize, n: usize, q: usize, m: usize): bool {
  const known = inSet(PROCS, PROC_SLOTS, PROC_STORE, p, n, true);
  const slot = lastSlot;
  if (slot == 0) return false;
  const value = PROC_VALUES + ((slot - PROC_SLOTS) >> 1);
  if (known && load<u32>(value, 4) == <u32>m && memory.compare(PROC_STORE + <usize>load<u32>(value), q, m) == 0)
    return true;
  const used = load<u32>(PROCS, 8);
  if (used + <u32>m <= STORE_BYTES) {
    memory.copy(PROC_STORE + <usize>used, q, m);
    store<u32>(value, used);
    store<u32>(value, <u32>m, 4);
    store<u32>(PROCS, used + <u32>m, 8);
  } else store<u32>(value, 0xffffffff, 4); // not kept: never the same
  return false;
}

/** Bit i set when byte i of `v` may be part of a `host:pid:tid` word: a letter, a digit, `:`, `.`, `_` or `-`. */
@inline function wordBytes(v: v128): u32 {
  const alpha = i8x16.lt_u(i8x16.sub(v128.or(v, i8x16.splat(32)), i8x16.splat(97)), i8x16.splat(26));
  const digitOrColon = i8x16.lt_u(i8x16.sub(v, i8x16.splat(48)), i8x16.splat(11));
  const punct = v128.or(
    v128.or(i8x16.eq(v, i8x16.splat(46)), i8x16.eq(v, i8x16.splat(95))),
    i8x16.eq(v, i8x16.splat(45)),
  );
  return <u32>i8x16.bitmask(v128.or(v128.or(alpha, digitOrColon), punct));
}

/**
 * The host of the record whose `[d]` opens at `open` in the line starting at `a`: its `host:pid:tid` (host a letter
 * then letters, digits, `.`, `_`, `-`; pid and tid digits) ends at the space before `open`. Returns the host's start
 * and sets hostLen, or 0 when the record is not that shape or stands after anything but the line's start, a space or
 * an Open MPI tag. The word is classified 16 bytes at a time over the 64 bytes before its end; a longer word is not
 * read (its line goes through).
 */
let hostLen: usize = 0;
/** The length of its `host:pid` (the scanner's process key). */
let processLen: usize = 0;
function hostOfRecord(a: usize, open: usize): usize {
  const te = open - 1;
  const lo = te - 64;
  const v0 = v128.load(lo);
  const v1 = v128.load(lo, 16);
  const v2 = v128.load(lo, 32);
  const v3 = v128.load(lo, 48);
  const stops = ~(
    <u64>wordBytes(v0) |
    (<u64>wordBytes(v1) << 16) |
    (<u64>wordBytes(v2) << 32) |
    (<u64>wordBytes(v3) << 48)
  );
  if (stops == 0) return 0;
  // The word starts after the last byte that cannot be in it (or at the line's start).
  let t = lo + 64 - <usize>clz(stops);
  if (t < a) t = a;
  // `[1,3]<stdout>:host:…`: the tag's colon is not the host's (as the scanner's tokenStart skips it).
  const glued = t < te && at(t) == 58;
  if (glued) t++;
  if (t >= te) return 0;
  const colons = bytesEqual(v0, v1, v2, v3, 58) & ~((<u64>1 << <u64>(t - lo)) - 1);
  if (popcnt(colons) != 2) return 0;
  const c1 = lo + <usize>ctz(colons);
  const c2 = lo + 63 - <usize>clz(colons);
  if (c2 <= c1 + 1 || c2 + 1 >= te) return 0;
  // pid and tid: digits only.
  const numbers = ~((<u64>2 << <u64>(c1 - lo)) - 1) & ~(<u64>1 << <u64>(c2 - lo));
  if ((digitBytes(v0, v1, v2, v3) & numbers) != numbers) return 0;
  if ((at(t) | 32) - 97 >= 26) return 0;
  if (t > a) {
    if (glued) {
      if (!mpiTagBefore(a, t) && !launcherTagBefore(a, t)) return 0;
    } else if (at(t - 1) != 32) return 0;
  }
  hostLen = c1 - t;
  processLen = c2 - t;
  return t;
}

/** Bit i set when byte i of the 64 bytes `v0 v1 v2 v3` is `c`. */
@inline function bytesEqual(v0: v128, v1: v128, v2: v128, v3: v128, c: u8): u64 {
  const x = i8x16.splat(c);
  return (
    <u64>i8x16.bitmask(i8x16.eq(v0, x)) |
    (<u64>i8x16.bitmask(i8x16.eq(v1, x)) << 16) |
    (<u64>i8x16.bitmask(i8x16.eq(v2, x)) << 32) |
    (<u64>i8x16.bitmask(i8x16.eq(v3, x)) << 48)
  );
}

/** Bit i set when byte i of the 64 bytes `v0 v1 v2 v3` is a digit. */
@inline function digitBytes(v0: v128, v1: v128, v2: v128, v3: v128): u64 {
  const ten = i8x16.splat(10);
  const zero = i8x16.splat(48);
  return (
    <u64>i8x16.bitmask(i8x16.lt_u(i8x16.sub(v0, zero), ten)) |
    (<u64>i8x16.bitmask(i8x16.lt_u(i8x16.sub(v1, zero), ten)) << 16) |
    (<u64>i8x16.bitmask(i8x16.lt_u(i8x16.sub(v2, zero), ten)) << 32) |
    (<u64>i8x16.bitmask(i8x16.lt_u(i8x16.sub(v3, zero), ten)) << 48)
  );
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
    if (textAt(n, e, "Socket")) {
      bump(C_SOCKET);
      return true;
    }
    // The internal IB network is counted apart; another network (a plugin: `NET/AWS Libfabric/0`, `NET/IBext_v8/0`)
    // by its name, up to the next `/`, once the scanner holds that name (a line naming it went through).
    let net: usize = 0;
    if (n + 3 > e || (load<u32>(n) & 0xffffff) != 0x2f4249) {
      const slash = find(n, e, "/");
      const len = (slash != 0 ? slash : e) - n;
      if (len == 0 || len > NET_NAME_MAX) return false;
      net = netNamed(n, len);
      if (net == 0) return false;
    }
    const gdr = find(n, e, "GDRDMA") != 0;
    // "[receive] " right before `via`, else anywhere before it
    const tagged = via >= msg + 10 && load<u64>(via - 10) == 0x657669656365725b && load<u16>(via - 2) == 0x205d;
    const recv = tagged || find(msg, via, "[receive]") != 0;
    bump(C_NET);
    if (net == 0) bump(C_IB);
    else store<i32>(net, load<i32>(net, 4) + 1, 4);
    if (gdr) bump(C_NET_GDR);
    if (recv) {
      bump(C_NET_RECV);
      if (gdr) bump(C_NET_RECV_GDR);
    }
  } else return false;
  return true;
}

/**
 * The integer after the first `label` in [from, to), as the scanner's intAfter reads it: -1 when there is none (or no
 * digit follows), -2 when it has more than 9 digits (the line then goes through).
 */
function intAfter(from: usize, to: usize, label: string): i32 {
  const at_ = find(from, to, label);
  if (at_ == 0) return -1;
  let p = at_ + <usize>label.length;
  let n: i32 = 0;
  let digits = 0;
  for (; p < to && isDigit(at(p)); p++) {
    if (++digits > 9) return -2;
    n = n * 10 + <i32>(at(p) - 48);
  }
  return digits == 0 ? -1 : n;
}

@inline function raise(i: i32, v: i32): void {
  const at_ = COUNTS + (<usize>i << 2);
  if (v > load<i32>(at_)) store<i32>(at_, v);
}

/**
 * `comm 0x… rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0` (src/init.cc): the scanner's commSummary keeps
 * the largest node, local rank and rank counts; so does this (the maxima are merged into the state).
 */
function commLine(msg: usize, e: usize): bool {
  if (!textAt(msg, e, "comm 0x")) return false;
  const nn = intAfter(msg, e, " nNodes ");
  const lr = intAfter(msg, e, " localRanks ");
  let nr = intAfter(msg, e, " nRanks ");
  if (nr == -1) nr = intAfter(msg, e, " nranks ");
  if (nn == -2 || lr == -2 || nr == -2) return false;
  raise(C_NNODES, nn);
  raise(C_LOCAL_RANKS, lr);
  raise(C_NRANKS, nr);
  return true;
}

/**
 * `ncclCommInitRank comm 0x… rank 3 nranks 16 … - Init COMPLETE` (src/init.cc): the scanner's initComplete counts it,
 * keeps the largest rank count and adds the rank to the ranks whose init completed. Only after one such line went
 * through: the scanner reads some WARNs differently while none has (an error before any init completed).
 */
function initComplete(msg: usize, e: usize): bool {
  if (!initSeen) {
    initSeen = textAt(e - 13, e, "Init COMPLETE");
    return false;
  }
  if (!textAt(msg, e, "ncclCommInitRank ") || !textAt(e - 13, e, "Init COMPLETE")) return false;
  const rank = intAfter(msg - 1, e, " rank ");
  const nranks = intAfter(msg, e, " nranks ");
  if (rank == -2 || nranks == -2) return false;
  const counted = rank >= 0 && nranks >= 0;
  if (counted) {
    if (<u32>rank >= RANK_LIMIT) return false;
    const byte = RANK_BITS + (<usize>rank >> 3);
    const bit = <u32>1 << (<u32>rank & 7);
    if ((at(byte) & bit) == 0) {
      const n = load<i32>(COUNTS + (C_NEW_RANKS << 2));
      if (n >= RANKS_MAX) return false;
      store<u8>(byte, <u8>(at(byte) | bit));
      store<i32>(RANKS + (<usize>n << 2), rank);
      store<i32>(COUNTS + (C_NEW_RANKS << 2), n + 1);
    }
    raise(C_NRANKS, nranks);
  }
  bump(C_INIT_COMPLETE);
  return true;
}

/**
 * Set by readLine: the line, if it goes through, cannot change the network the scanner holds for any process (a
 * well-formed INFO record whose message is not `Using …` or `Assigned …`). Any other line that goes through empties
 * the set of processes known to be on IB.
 */
let harmless = false;

/**
 * Reads the whole line [a, e) (e is its newline) whose only `] NCCL ` is at `k - 1`: true when it is counted and may
 * be dropped. Notes the host of any well-formed INFO record, so that its later records may be dropped.
 */
function readLine(a: usize, k: usize, e: usize): bool {
  harmless = false;
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
  const seen = inSet(HOSTS, HOST_SLOTS, HOST_STORE, host, hostLen, true);
  if (msg >= e) return false;
  const c = at(msg);
  if (c == 85 || c == 65) {
    // `Using network IB` (src/init.cc) and `Assigned NET plugin IB to comm` (src/plugin/net.cc): the scanner sets the
    // process's network, which it holds already when the process's last such line that went through named the same.
    // Any other `Using …`/`Assigned …` may set a network this filter cannot follow: no process is known any more.
    let q: usize = 0;
    let m: usize = 0;
    if (c == 85 && textAt(msg, e, "Using network ")) {
      // the scanner trims the name
      q = msg + 14;
      let z = e;
      while (q < z && at(q) == 32) q++;
      while (z > q && at(z - 1) == 32) z--;
      m = z - q;
    } else if (c == 65 && textAt(msg, e, "Assigned NET plugin ")) {
      q = msg + 20;
      const to = find(q, e, " to comm");
      if (to > q) m = to - q;
    }
    if (m == 0 || m > NET_NAME_MAX) return false;
    harmless = true;
    return sameNetwork(host, processLen, q, m) && seen;
  }
  harmless = true;
  if (!seen) return false;
  if (last == 69) return c == 110 && initComplete(msg, e); // `E`: maybe `Init COMPLETE`, read from the line's end
  if (c == 67 && connection(msg, e)) return true;
  if (c == 99) return commLine(msg, e);
  return noFact(msg, e);
}

/**
 * The line [a, e) holds `Using ` or `Assigned NET plugin `: the words of every message from which the scanner sets a
 * process's network (`Using network X`, `Using internal Network X`, `Assigned NET plugin X to comm`), whatever is
 * around them. Looked for 16 bytes at a time.
 */
function mayNameNetwork(a: usize, e: usize): bool {
  const u = i8x16.splat(85);
  const A = i8x16.splat(65);
  for (let b = a; b < e; b += 16) {
    const v = v128.load(b);
    let m = i8x16.bitmask(v128.or(i8x16.eq(v, u), i8x16.eq(v, A)));
    if (b + 16 > e) m &= (1 << <i32>(e - b)) - 1;
    while (m != 0) {
      const p = b + <usize>ctz(m);
      m &= m - 1;
      if (textAt(p, e, "Using ") || textAt(p, e, "Assigned NET plugin ")) return true;
    }
  }
  return false;
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
 * Filters the `n` bytes put at roomPtr() (a piece of the log, after the line the last piece ended in); the kept bytes
 * are at OUT. Returns their length. The piece's last, unfinished line is kept back for the next piece (so that no
 * line is read in two halves), unless it is longer than half a piece: then it goes through as it comes.
 */
export function run(n: i32): i32 {
  const end = IN + carried + <usize>n;
  carried = 0;
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
        harmless = false;
        if (!open && clean && records == 1 && readLine(a, k, p)) {
          bump(C_LINES);
          flushKept(a);
          keepFrom = p + 1;
        } else if (!harmless && mayNameNetwork(a, p)) emptySet(PROCS);
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
  if (!open && end - a <= <usize>(PIECE >> 1)) {
    flushKept(a);
    carried = end - a;
    memory.copy(IN, a, carried);
    midLine = false;
  } else {
    flushKept(end);
    midLine = a < end;
  }
  return <i32>outLen;
}

/** The line kept back at the end (the text ended without a newline), moved to OUT for the scanner. Returns its length. */
export function flush(): i32 {
  memory.copy(OUT, IN, carried);
  const n = carried;
  carried = 0;
  return <i32>n;
}

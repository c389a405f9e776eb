import { indexInLine, keep } from "./line.js";
import { bump, type LogState } from "./state.js";

/** `text` starts at `at` and ends by `end` (the end of the line). */
function within(s: string, text: string, at: number, end: number): boolean {
  return at + text.length <= end && s.startsWith(text, at);
}

/**
 * NCCL's connection lines (`Channel 02/0 : 3[3] -> 4[4] via P2P/IPC`, `… [receive] via NET/IB/0/GDRDMA`; before 2.7
 * `Ring 00 : 0[0] -> 1[1] via P2P/IPC`), counted by transport: most lines of a large INFO log. The next `via ` and
 * `GDRDMA` in the chunk are kept, so that no search runs over the same characters twice.
 */
export class ChannelLines {
  private nextVia = -1;
  private nextGdr = -1;

  constructor(private readonly st: LogState) {}

  /** A new chunk: the kept places were in the one before. */
  reset(): void {
    this.nextVia = -1;
    this.nextGdr = -1;
  }

  /** A `Channel 02/0 : 3[3] -> 4[4] via P2P/IPC` message at `msg` of the line ending at `end` (a ring order: none). */
  read(s: string, msg: number, end: number): void {
    const conn = this.st.conn;
    if (this.nextVia < msg) {
      const at = s.indexOf("via ", msg);
      this.nextVia = at < 0 ? s.length : at;
    }
    const via = this.nextVia;
    if (via >= end) {
      ringOrder(this.st, s, msg, end);
      return;
    }
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
}

/**
 * A ring order line (`Channel 00/02 :    0   1   2`; `Channel 00 :` in NCCL 2.4, `Ring 00 :` before): NCCL's rank 0 prints each
 * ring of the communicator, and a ring holds every rank once (ncclBuildRings checks it), so a whole line counts the
 * ranks. Before 2.23 dumpLine printed at most 20 values, each as ` %3d`; since, each as ` %*d` with the width of
 * `nranks-1`, and a line cut at 128 characters ends in `...` (src/graph/rings.cc; src/init.cc in 2.4, src/init.cu before; in
 * https://github.com/NVIDIA/nccl). Read only when the line is whole: no `...`, the values are 0…n-1 each once, and
 * either fewer than 20 or spaced as only a whole line of 2.23+ is.
 */
export function ringOrder(st: LogState, s: string, msg: number, end: number): void {
  const colon = indexInLine(s, ":", msg, end);
  if (colon < 0) return;
  const rest = s.slice(colon + 1, end).trimEnd();
  if (!/^(?: +\d+)+$/.test(rest)) return;
  const values = rest.trim().split(/ +/).map(Number);
  const n = values.length;
  if (n <= st.ringRanks) return;
  const seen = new Uint8Array(n);
  for (const v of values) {
    if (v >= n || seen[v]) return;
    seen[v] = 1;
  }
  if (n >= 20) {
    const width = String(n - 1).length;
    if (width >= 3 || rest !== values.map((v) => ` ${String(v).padStart(width)}`).join("")) return;
  }
  st.ringRanks = n;
}

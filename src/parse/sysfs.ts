/**
 * Parsers for single sysfs values of RDMA devices and PCI functions (kernel `drivers/infiniband/core/sysfs.c`
 * formats). Pure: a string in, typed data and problems out.
 */
import { fail, ok, type ParseResult, problem } from "../core/result.js";
import type { GidKind, LinkLayer, PhysState, PortState } from "../inventory/types.js";
import { hexByteAt } from "./hex.js";

const PORT_STATES: Record<number, PortState> = {
  0: "NOP",
  1: "DOWN",
  2: "INIT",
  3: "ARMED",
  4: "ACTIVE",
  5: "ACTIVE_DEFER",
};

const PHYS_STATES: Record<number, PhysState> = {
  1: "Sleep",
  2: "Polling",
  3: "Disabled",
  4: "PortConfigurationTraining",
  5: "LinkUp",
  6: "LinkErrorRecovery",
  7: "PhyTest",
};

const NUMBERED = /^\s*(\d+)\s*:\s*(.*?)\s*$/;

/** `ports/N/state`: `4: ACTIVE` → {code: 4, state: "ACTIVE"}. */
export function parsePortState(text: string, path?: string): ParseResult<{ code: number; state: PortState }> {
  const m = NUMBERED.exec(text);
  if (!m) return fail(badValue("sysfs.state", "a port state like `4: ACTIVE`", text, path));
  const code = Number(m[1]);
  const state = PORT_STATES[code];
  if (!state) {
    return ok({ code, state: "UNKNOWN" }, [badValue("sysfs.state", "a state code 0–5", text, path)]);
  }
  return ok({ code, state });
}

/** `ports/N/phys_state`: `5: LinkUp` → {code: 5, state: "LinkUp"}; `7: Phy Test` → `PhyTest`. */
export function parsePhysState(text: string, path?: string): ParseResult<{ code: number; state: PhysState }> {
  const m = NUMBERED.exec(text);
  if (!m) return fail(badValue("sysfs.phys_state", "a physical state like `5: LinkUp`", text, path));
  const code = Number(m[1]);
  const state = PHYS_STATES[code];
  if (!state) {
    return ok({ code, state: "UNKNOWN" }, [badValue("sysfs.phys_state", "a physical state code 1–7", text, path)]);
  }
  return ok({ code, state });
}

export type Rate = {
  /** Total Gb/s (`200 Gb/sec (4X HDR)` → 200; `2.5 Gb/sec (1X SDR)` → 2.5). */
  gbps: number;
  lanes: number | null;
  /** `HDR`, `EDR`… — synthetic on RoCE ports, so never judge by it. */
  label: string | null;
};

const RATE = /^\s*(\d+(?:\.\d+)?)\s*Gb\/sec(?:\s*\((\d+)X\s*([A-Za-z0-9]*)\))?\s*$/;

/** `ports/N/rate`: `"%d%s Gb/sec (%dX%s)"`. The number is what counts; on RoCE the label is translated from Ethernet. */
export function parseRate(text: string, path?: string): ParseResult<Rate> {
  const m = RATE.exec(text);
  if (!m) return fail(badValue("sysfs.rate", "a rate like `200 Gb/sec (4X HDR)`", text, path));
  return ok({ gbps: Number(m[1]), lanes: m[2] ? Number(m[2]) : null, label: m[3] ? m[3] : null });
}

/** `ports/N/link_layer`: `InfiniBand`, `Ethernet` or `Unknown`. */
export function parseLinkLayer(text: string, path?: string): ParseResult<LinkLayer> {
  const t = text.trim();
  if (t === "InfiniBand" || t === "Ethernet" || t === "Unknown") return ok(t);
  return ok("Unknown", [badValue("sysfs.link_layer", "`InfiniBand`, `Ethernet` or `Unknown`", text, path)]);
}

export type GidInfo = {
  /** Uncompressed, lower case: `0000:0000:0000:0000:0000:ffff:190b:8002`. */
  gid: string;
  /** NCCL's "configured": not all-zero and not the bare `fe80::` prefix. show_gids skips the same two. */
  configured: boolean;
  /** null for unconfigured slots. */
  kind: GidKind | null;
  /** Dotted quad for IPv4-mapped GIDs, else null. */
  ipv4: string | null;
};

export const ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000";
export const BARE_LINK_LOCAL_GID = "fe80:0000:0000:0000:0000:0000:0000:0000";
const ZERO_GID_LINE = `${ZERO_GID}\n`;
const GID = /^[0-9a-f]{4}(?::[0-9a-f]{4}){7}$/;

/** An empty GID slot exactly as sysfs prints it (the fast path of a 255-slot table); parseGid decides the rest. */
export function isEmptyGidText(text: string): boolean {
  return text === ZERO_GID_LINE || text === ZERO_GID;
}

/**
 * `ports/N/gids/I` (`%pI6`, never compressed). On InfiniBand ports every configured GID is of kind `ib`; on RoCE
 * the kind is `link_local` (fe80::/64), `ipv4` (::ffff:a.b.c.d, as NCCL's `getGidAddrFamily`) or `ipv6_global`.
 */
export function parseGid(text: string, opts: { linkLayer?: LinkLayer; path?: string } = {}): ParseResult<GidInfo> {
  // Fast path: most of a 255-slot table is empty; sysfs prints it exactly, with a newline.
  if (isEmptyGidText(text)) return ok({ gid: ZERO_GID, configured: false, kind: null, ipv4: null });
  const gid = text.trim().toLowerCase();
  if (!GID.test(gid)) {
    return fail(badValue("sysfs.gid", "8 groups of 4 hex digits (`fe80:0000:…:c920`)", text, opts.path));
  }
  if (gid === ZERO_GID || gid === BARE_LINK_LOCAL_GID) return ok({ gid, configured: false, kind: null, ipv4: null });
  const ipv4 = ipv4MappedAddress(gid);
  let kind: GidKind;
  if (opts.linkLayer === "InfiniBand") kind = "ib";
  else if (ipv4 !== null) kind = "ipv4";
  else if (gid.startsWith("fe80:0000:0000:0000:")) kind = "link_local";
  else kind = "ipv6_global";
  return ok({ gid, configured: true, kind, ipv4 });
}

/** The IPv4 address of an IPv4-mapped GID (`::ffff:a.b.c.d`, or NCCL's multicast `ff0e::ffff:` form), else null. */
export function ipv4MappedAddress(gid: string): string | null {
  const g = gid.toLowerCase();
  const mapped = g.startsWith("0000:0000:0000:0000:0000:ffff:") || g.startsWith("ff0e:0000:0000:0000:0000:ffff:");
  if (!mapped) return null;
  return lastFourBytesDotted(g);
}

/** show_gids' own rule: decode the last 32 bits as IPv4 whenever the first group is `0000`. */
export function showGidsIpv4(gid: string): string | null {
  return gid.startsWith("0000") ? lastFourBytesDotted(gid) : null;
}

/** The last 32 bits of a GID written as parseGid writes it (`…:190b:80e2` → 25.11.128.226); null when not hex. */
function lastFourBytesDotted(gid: string): string | null {
  const a = hexByteAt(gid, 30);
  const b = hexByteAt(gid, 32);
  const c = hexByteAt(gid, 35);
  const d = hexByteAt(gid, 37);
  return a >= 0 && b >= 0 && c >= 0 && d >= 0 ? `${a}.${b}.${c}.${d}` : null;
}

/** `gid_attrs/types/I`: `IB/RoCE v1` → v1, `RoCE v2` → v2 (the same `[Vv].*` cut show_gids makes). */
export function parseGidType(text: string, path?: string): ParseResult<{ raw: string; version: "v1" | "v2" }> {
  const raw = text.trim();
  const m = /[Vv]([12])\s*$/.exec(raw);
  if (!m) return fail(badValue("sysfs.gid_type", "`IB/RoCE v1` or `RoCE v2`", text, path));
  return ok({ raw, version: m[1] === "1" ? "v1" : "v2" });
}

/** A decimal sysfs number (`mtu`, `numa_node`, `current_link_width`, counters). */
export function parseSysfsInt(text: string, path?: string): ParseResult<number> {
  // Fast path: plain digits and a newline, as every counter reads (hundreds per node).
  const digits = text.charCodeAt(text.length - 1) === 10 ? text.length - 1 : text.length;
  if (digits > 0 && digits < 16) {
    let n = 0;
    let k = 0;
    for (; k < digits; k++) {
      const c = text.charCodeAt(k) - 48;
      if (c < 0 || c > 9) break;
      n = n * 10 + c;
    }
    if (k === digits) return ok(n);
  }
  const t = text.trim();
  if (!/^-?\d+$/.test(t)) return fail(badValue("sysfs.int", "a decimal number", text, path));
  return ok(Number(t));
}

/** A u64 has at most 20 decimal digits: a longer "number" is not a counter the kernel wrote. */
const MAX_COUNTER_DIGITS = 20;

/**
 * A port counter or hw_counter: what the kernel prints is plain decimal digits and a newline (`1234\n`). Anything
 * else (`12abc`, `1e309`, `0x10`, `-5`, an empty file, 21+ digits) is a damaged file, not a number: it fails with
 * code `sysfs.counter` so the read becomes a finding naming the file instead of a value the checks trust.
 */
export function parseCounter(text: string, path?: string): ParseResult<number> {
  const end = text.charCodeAt(text.length - 1) === 10 ? text.length - 1 : text.length;
  let k = 0;
  for (; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) break;
  }
  if (end === 0 || k !== end || end > MAX_COUNTER_DIGITS) {
    const shown =
      text.trim() === "" ? "an empty file" : `"${text.trim().slice(0, 40)}${text.trim().length > 40 ? "…" : ""}"`;
    const where = path ? `${path}: ` : "";
    return fail(
      problem(
        "sysfs.counter",
        `${where}damaged counter: expected plain decimal digits, found ${shown}`,
        path ? { path } : {},
      ),
    );
  }
  return ok(Number(text.slice(0, end)));
}

/** A hex sysfs value (`0x15b3`, `0x030200`, `lid 0x0`) → lower-case `0x…` string and its number. */
export function parseSysfsHex(text: string, path?: string): ParseResult<{ text: string; value: number }> {
  const t = text.trim().toLowerCase();
  if (!/^0x[0-9a-f]+$/.test(t)) return fail(badValue("sysfs.hex", "a hex value like `0x15b3`", text, path));
  return ok({ text: t, value: Number.parseInt(t.slice(2), 16) });
}

/** `numa_node`: `-1` (unknown) → null. */
export function parseNumaNode(text: string, path?: string): ParseResult<number | null> {
  const r = parseSysfsInt(text, path);
  if (!r.ok) return r;
  return ok(r.value < 0 ? null : r.value, r.problems);
}

/** `current_link_speed`: `16.0 GT/s PCIe` or `16 GT/s` → GT/s as a number; `Unknown` → null. */
export function parsePcieSpeed(text: string, path?: string): ParseResult<number | null> {
  const t = text.trim();
  if (/^unknown/i.test(t)) return ok(null);
  const m = /^(\d+(?:\.\d+)?)\s*GT\/s(?:\s+PCIe)?$/.exec(t);
  if (!m) return fail(badValue("sysfs.link_speed", "a PCIe speed like `16.0 GT/s PCIe`", text, path));
  return ok(Number(m[1]));
}

/** PCIe generation of a link speed in GT/s (2.5→1 … 64→6). */
export function pcieGenOfSpeed(gts: number): number | null {
  const gens: [number, number][] = [
    [2.5, 1],
    [5, 2],
    [8, 3],
    [16, 4],
    [32, 5],
    [64, 6],
  ];
  return gens.find(([s]) => Math.abs(s - gts) < 0.01)?.[1] ?? null;
}

function badValue(code: string, expected: string, found: string, path?: string) {
  const shown = found.trim().length > 60 ? `${found.trim().slice(0, 60)}…` : found.trim();
  return problem(code, `expected ${expected}, found "${shown}"`, path ? { path } : {});
}

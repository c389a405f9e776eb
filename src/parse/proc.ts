/** Parsers for the few /proc files the node model needs. Pure. */
import { fail, ok, type ParseResult, problem } from "../core/result.js";
import { splitLines } from "../core/text.js";
import { hexByteAt } from "./hex.js";
import { intToIpv4, maskPrefix } from "./ipv4.js";

/** One row of `/proc/net/route`; addresses as the kernel writes them (hex, little-endian byte order). */
export type RouteRow = { iface: string; destination: string; gateway: string; mask: string; metric: number };

/** `/proc/net/route` read once into rows, by its header's column names (a missing Gateway or Mask reads as 0). */
export function parseRouteTable(text: string): ParseResult<RouteRow[]> {
  const lines = splitLines(text).filter((l) => l.trim() !== "");
  const header = lines[0]?.trim().split(/\s+/) ?? [];
  if (header[0] !== "Iface" || !header.includes("Destination")) {
    return fail(problem("proc.route", "expected /proc/net/route with an `Iface Destination Gateway …` header"));
  }
  const col = (name: string) => header.indexOf(name);
  const [dest, gateway, mask, metric] = [col("Destination"), col("Gateway"), col("Mask"), col("Metric")];
  return ok(
    lines.slice(1).map((l) => {
      const f = l.trim().split(/\s+/);
      return {
        iface: f[0]!,
        destination: f[dest] ?? "",
        gateway: gateway >= 0 ? (f[gateway] ?? "") : "00000000",
        mask: mask >= 0 ? (f[mask] ?? "") : "00000000",
        metric: Number(metric >= 0 ? (f[metric] ?? 0) : 0),
      };
    }),
  );
}

/** The interface of the default route (Destination 00000000, Mask 00000000), lowest metric; null when none. */
export function defaultRouteInterface(rows: readonly RouteRow[]): string | null {
  let best: RouteRow | null = null;
  for (const r of rows) {
    if (r.destination !== "00000000" || r.mask !== "00000000") continue;
    if (!best || r.metric < best.metric) best = r;
  }
  return best?.iface ?? null;
}

/** `/proc/net/route`: the interface of the default route, lowest metric. */
export function parseDefaultRouteInterface(text: string): ParseResult<string | null> {
  const rows = parseRouteTable(text);
  return rows.ok ? ok(defaultRouteInterface(rows.value)) : rows;
}

/** One connected IPv4 subnet of `/proc/net/route` (Gateway 0, Mask ≠ 0): the LAN an interface sits on. */
export type ConnectedRoute = { iface: string; cidr: string };

/**
 * `/proc/net/route` writes an address as the hex of its bytes in little-endian order: `02800B19` is 25.11.128.2.
 * The address as a 32-bit number (first octet highest), or null when it is not 8 hex digits.
 */
function routeHexToInt(hex: string): number | null {
  if (hex.length !== 8) return null;
  let n = 0;
  for (let i = 6; i >= 0; i -= 2) {
    const b = hexByteAt(hex, i);
    if (b < 0) return null;
    n = n * 256 + b;
  }
  return n;
}

/** The connected subnets (no gateway, a non-zero contiguous mask), e.g. eth1 → 25.11.128.0/27, each once. */
export function connectedRoutes(rows: readonly RouteRow[]): ConnectedRoute[] {
  const out: ConnectedRoute[] = [];
  for (const r of rows) {
    const dest = routeHexToInt(r.destination);
    const mask = routeHexToInt(r.mask);
    if (dest === null || mask === null || mask === 0 || r.gateway !== "00000000") continue;
    const bits = maskPrefix(mask);
    if (bits === null) continue;
    const cidr = `${intToIpv4(dest)}/${bits}`;
    if (!out.some((c) => c.iface === r.iface && c.cidr === cidr)) out.push({ iface: r.iface, cidr });
  }
  return out;
}

/** `/proc/net/route`: its connected subnets. */
export function parseConnectedRoutes(text: string): ParseResult<ConnectedRoute[]> {
  const rows = parseRouteTable(text);
  return rows.ok ? ok(connectedRoutes(rows.value)) : rows;
}

/** `CapEff:` of `/proc/<pid>/status` as lower-case hex; `ipcLock` = bit 14 (CAP_IPC_LOCK). */
export function parseCapEff(text: string): ParseResult<{ capEff: string; ipcLock: boolean }> {
  const m = /^CapEff:\s*([0-9a-fA-F]+)\s*$/m.exec(text);
  if (!m) return fail(problem("proc.status", "expected a `CapEff:` line with a hex capability mask"));
  const capEff = m[1]!.toLowerCase();
  const ipcLock = (BigInt(`0x${capEff}`) >> 14n) & 1n;
  return ok({ capEff, ipcLock: ipcLock === 1n });
}

export type LimitValue = number | "unlimited";

/** `Max locked memory` of `/proc/<pid>/limits` (bytes or `unlimited`). */
export function parseMemlock(text: string): ParseResult<{ soft: LimitValue; hard: LimitValue }> {
  const m = /^Max locked memory\s+(\S+)\s+(\S+)/m.exec(text);
  if (!m) return fail(problem("proc.limits", "expected a `Max locked memory` line in /proc/self/limits"));
  const soft = limitValue(m[1]!);
  const hard = limitValue(m[2]!);
  if (soft === null || hard === null) {
    return fail(problem("proc.limits", `expected bytes or \`unlimited\` for memlock, found "${m[1]} ${m[2]}"`));
  }
  return ok({ soft, hard });
}

function limitValue(s: string): LimitValue | null {
  if (s === "unlimited") return "unlimited";
  return /^\d+$/.test(s) ? Number(s) : null;
}

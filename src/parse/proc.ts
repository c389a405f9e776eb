/** Parsers for the few /proc files the node model needs. Pure. */
import { fail, ok, type ParseResult, problem } from "../core/result.js";
import { splitLines } from "../core/text.js";
import { prefixOfMask } from "./ipv4.js";

/** `/proc/net/route`: the interface of the default route (Destination 00000000, Mask 00000000), lowest metric. */
export function parseDefaultRouteInterface(text: string): ParseResult<string | null> {
  const lines = splitLines(text).filter((l) => l.trim() !== "");
  const header = lines[0]?.trim().split(/\s+/) ?? [];
  if (header[0] !== "Iface" || !header.includes("Destination")) {
    return fail(problem("proc.route", "expected /proc/net/route with an `Iface Destination Gateway …` header"));
  }
  const col = (name: string) => header.indexOf(name);
  let best: { iface: string; metric: number } | null = null;
  for (const l of lines.slice(1)) {
    const f = l.trim().split(/\s+/);
    const dest = f[col("Destination")];
    const mask = col("Mask") >= 0 ? f[col("Mask")] : "00000000";
    if (dest !== "00000000" || mask !== "00000000") continue;
    const metric = Number(f[col("Metric")] ?? 0);
    if (!best || metric < best.metric) best = { iface: f[0]!, metric };
  }
  return ok(best?.iface ?? null);
}

/** One connected IPv4 subnet of `/proc/net/route` (Gateway 0, Mask ≠ 0): the LAN an interface sits on. */
export type ConnectedRoute = { iface: string; cidr: string };

/** `/proc/net/route` writes an address as the hex of its bytes in little-endian order: `02800B19` is 25.11.128.2. */
function routeHexToIpv4(hex: string): string | null {
  if (!/^[0-9A-Fa-f]{8}$/.test(hex)) return null;
  const bytes = [6, 4, 2, 0].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  return bytes.join(".");
}

/** The connected subnets of `/proc/net/route` (no gateway, a non-zero contiguous mask), e.g. eth1 → 25.11.128.0/27. */
export function parseConnectedRoutes(text: string): ParseResult<ConnectedRoute[]> {
  const lines = splitLines(text).filter((l) => l.trim() !== "");
  const header = lines[0]?.trim().split(/\s+/) ?? [];
  const col = (name: string) => header.indexOf(name);
  if (header[0] !== "Iface" || col("Destination") < 0 || col("Gateway") < 0 || col("Mask") < 0) {
    return fail(problem("proc.route", "expected /proc/net/route with an `Iface Destination Gateway … Mask` header"));
  }
  const out: ConnectedRoute[] = [];
  for (const l of lines.slice(1)) {
    const f = l.trim().split(/\s+/);
    const dest = routeHexToIpv4(f[col("Destination")] ?? "");
    const gateway = f[col("Gateway")];
    const mask = routeHexToIpv4(f[col("Mask")] ?? "");
    if (dest === null || mask === null || gateway !== "00000000" || mask === "0.0.0.0") continue;
    const bits = prefixOfMask(mask);
    if (bits !== null && !out.some((r) => r.iface === f[0] && r.cidr === `${dest}/${bits}`)) {
      out.push({ iface: f[0]!, cidr: `${dest}/${bits}` });
    }
  }
  return ok(out);
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

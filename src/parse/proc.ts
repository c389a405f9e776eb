/** Parsers for the few /proc files the node model needs. Pure. */
import { fail, ok, type ParseResult, problem } from "../core/result.js";
import { splitLines } from "../core/text.js";

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

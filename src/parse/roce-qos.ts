/**
 * Lossless-RoCE settings as the tools print them. Pure.
 * - `mlnx_qos -i IF` (MLNX_OFED): `Priority trust state: dscp`, a `dscp2prio mapping:` block of `prio:N dscp:…,`
 *   lines, and `PFC configuration:` with a `priority 0 1 … 7` row and an `enabled 0 0 0 1 0 0 0 0` row
 *   (format as shown in https://community.mellanox.com/docs/DOC-2792, MLNX_OFED 4.2 and later).
 * - `ethtool -S IF`: `NIC statistics:` then `     name: value` lines; mlx5 counts PFC pause frames per priority as
 *   `rx_prioN_pause` / `tx_prioN_pause`.
 * - `/sys/class/infiniband/<hca>/tc/1/traffic_class` (MLNX_OFED): `Global tclass=106` when a global traffic class
 *   is set, empty when not.
 */
import { fail, ok, type ParseResult, problem } from "../core/result.js";
import { splitLines } from "../core/text.js";

export type MlnxQos = {
  trust: "dscp" | "pcp" | null;
  /** DSCP value → priority, from the dscp2prio block (empty when the block is absent). */
  dscpToPriority: Record<number, number>;
  /** Priorities with PFC enabled, ascending; null when the PFC block is absent. */
  pfcEnabled: number[] | null;
};

export function parseMlnxQos(text: string): ParseResult<MlnxQos> {
  const lines = splitLines(text).map((l) => l.trim());
  let trust: MlnxQos["trust"] = null;
  const dscpToPriority: Record<number, number> = {};
  let priorities: number[] | null = null;
  let pfcEnabled: number[] | null = null;
  let recognised = false;
  for (const line of lines) {
    const t = /^Priority trust (?:state|mode):\s*(\w+)/i.exec(line);
    if (t) {
      recognised = true;
      const v = t[1]!.toLowerCase();
      trust = v === "dscp" || v === "pcp" ? v : null;
      continue;
    }
    const d = /^prio:\s*(\d)\s+dscp:\s*([\d,\s]*)$/.exec(line);
    if (d) {
      recognised = true;
      for (const x of d[2]!.split(",")) {
        const n = Number(x.trim());
        if (x.trim() !== "" && Number.isInteger(n) && n >= 0 && n < 64) dscpToPriority[n] = Number(d[1]);
      }
      continue;
    }
    const p = /^priority((?:\s+\d)+)\s*$/.exec(line);
    if (p) {
      recognised = true;
      priorities = p[1]!.trim().split(/\s+/).map(Number);
      continue;
    }
    const e = /^enabled((?:\s+[01])+)\s*$/.exec(line);
    if (e && priorities) {
      const flags = e[1]!.trim().split(/\s+/);
      pfcEnabled = priorities.filter((_, i) => flags[i] === "1");
    }
  }
  if (!recognised) {
    return fail(
      problem(
        "mlnx_qos.unrecognised",
        "not `mlnx_qos -i IF` output (expected `Priority trust state:` and a `PFC configuration:` block)",
      ),
    );
  }
  return ok({ trust, dscpToPriority, pfcEnabled });
}

export type PauseCounters = { rx: Record<number, number>; tx: Record<number, number> };

/** `ethtool -S` statistics by name; every `name: integer` line. */
export function parseEthtoolStats(text: string): ParseResult<Record<string, number>> {
  const out: Record<string, number> = {};
  let header = false;
  for (const raw of splitLines(text)) {
    const line = raw.trim();
    if (/^NIC statistics:$/i.test(line)) header = true;
    const m = /^([A-Za-z0-9_.\-[\]]+):\s+(\d+)$/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  if (!header && Object.keys(out).length === 0) {
    return fail(problem("ethtool_stats.unrecognised", "not `ethtool -S IF` output (expected `NIC statistics:`)"));
  }
  return ok(out);
}

/** The per-priority PFC pause counters (`rx_prio3_pause`) among `ethtool -S` statistics; null when there are none. */
export function pauseCountersOf(stats: Record<string, number>): PauseCounters | null {
  const rx: Record<number, number> = {};
  const tx: Record<number, number> = {};
  let any = false;
  for (const [name, v] of Object.entries(stats)) {
    const m = /^(rx|tx)_prio([0-7])_pause$/.exec(name);
    if (!m) continue;
    any = true;
    (m[1] === "rx" ? rx : tx)[Number(m[2])] = v;
  }
  return any ? { rx, tx } : null;
}

/** `Global tclass=106` → 106; an empty file → null (no global traffic class). */
export function parseTrafficClass(text: string): ParseResult<number | null> {
  const t = text.trim();
  if (t === "") return ok(null);
  const m = /^Global tclass=(\d{1,3})\b/m.exec(t);
  if (m && Number(m[1]) <= 255) return ok(Number(m[1]));
  // Only per-destination rules: no global class.
  if (!/Global tclass/.test(t)) return ok(null);
  return fail(
    problem("traffic_class.unrecognised", `traffic_class reads "${t.slice(0, 60)}"; expected Global tclass=N`),
  );
}

/**
 * `dcb pfc show dev IF` (iproute2's dcb, dcb-pfc(8), https://man7.org/linux/man-pages/man8/dcb-pfc.8.html): a
 * `pfc-cap 8 macsec-bypass off delay 0` line and a `prio-pfc 0:off 1:off 2:off 3:on …` line (`pg-pfc` in the first
 * release, https://mail-archive.com/netdev@vger.kernel.org/msg377425.html). The priorities with PFC on, ascending.
 */
export function parseDcbPfc(text: string): ParseResult<number[]> {
  for (const raw of splitLines(text)) {
    const m = /^(?:prio|pg)-pfc((?:\s+\d:(?:on|off))+)\s*$/.exec(raw.trim());
    if (!m) continue;
    const on = m[1]!
      .trim()
      .split(/\s+/)
      .filter((pair) => pair.endsWith(":on"))
      .map((pair) => Number(pair.slice(0, pair.indexOf(":"))));
    return ok([...new Set(on)].sort((a, b) => a - b));
  }
  return fail(
    problem("dcb_pfc.unrecognised", "not `dcb pfc show dev IF` output (expected a `prio-pfc 0:off 1:off …` line)"),
  );
}

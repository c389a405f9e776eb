/**
 * The RoCE data netdevs' `ethtool -S` port counters: pause storms, discards, pause frames on a priority without PFC,
 * the CNP priority, and the PHY counters. Totals since the counters were cleared, or with `countersSinceEarlier`
 * their growth since the earlier reading; a link that went down is judged only between two readings (bringing an
 * interface up counts too). Counters that could not be read are a check that could not run.
 */
import type { Finding } from "../core/finding.js";
import { noPortCounters } from "../inventory/build-fabric.js";
import type { RoceQos } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import { counterGrowth } from "./counters.js";
import { dataRoceQos, rocePriority } from "./lossless.js";
import { compactNames } from "./select.js";
import type { Check, CheckOptions } from "./types.js";

/** Post-FEC bit error ratio a healthy link reaches, and the pre-FEC ratio IEEE 802.3 allows a PAM4 lane (see PHY_ERRORS). */
export const POST_FEC_BER_LIMIT = 1e-12;
export const PRE_FEC_BER_LIMIT = 2.4e-4;

const PRIORITIES = [0, 1, 2, 3, 4, 5, 6, 7] as const;

type Window = { counters: Record<string, number>; sinceSeconds?: number; linkDowns: number | null };

/** The counters to judge: totals, or growth since the earlier reading of the same netdev. */
function windowOf(q: RoceQos, opts: CheckOptions): Window | null {
  const now = q.portCounters;
  if (!now) return null;
  const earlier = opts.earlier?.inventory.roceQos?.find((e) => e.netdev === q.netdev)?.portCounters ?? undefined;
  const growth = earlier ? counterGrowth(earlier, now) : null;
  const linkDowns = growth?.link_down_events_phy ?? null;
  if (opts.countersSinceEarlier && growth) return { counters: growth, sinceSeconds: opts.earlier!.seconds, linkDowns };
  return { counters: now, linkDowns };
}

const pick = (c: Record<string, number>, names: readonly string[]) =>
  Object.fromEntries(names.filter((n) => (c[n] ?? 0) > 0).map((n) => [n, c[n]!]));

export function pauseStorm(q: RoceQos, w: Window): Finding[] {
  const errors = w.counters.tx_pause_storm_error_events ?? 0;
  const warnings = w.counters.tx_pause_storm_warning_events ?? 0;
  if (errors === 0 && warnings === 0) return [];
  const since = w.sinceSeconds === undefined ? {} : { sinceSeconds: w.sinceSeconds };
  return [
    finding(
      "PAUSE_STORM",
      q.hca,
      { hca: q.hca, netdev: q.netdev, errors, warnings, ...since },
      errors > 0 ? "error" : "warning",
    ),
  ];
}

export function losslessDiscards(q: RoceQos, w: Window): Finding[] {
  const { priority } = rocePriority(q);
  const counters = pick(w.counters, ["rx_discards_phy", `rx_prio${priority}_discards`]);
  if (Object.keys(counters).length === 0) return [];
  const pfcOn = q.pfcEnabled === null ? null : q.pfcEnabled.includes(priority);
  const since = w.sinceSeconds === undefined ? {} : { sinceSeconds: w.sinceSeconds };
  return [finding("LOSSLESS_DISCARDS", q.hca, { hca: q.hca, netdev: q.netdev, counters, priority, pfcOn, ...since })];
}

/** Pause frames counted on a priority this NIC has no PFC on (only where its PFC settings were read). */
export function pauseOffPriority(q: RoceQos, w: Window): Finding[] {
  const pfc = q.pfcEnabled;
  if (pfc === null) return [];
  const paused = PRIORITIES.filter(
    (p) =>
      !pfc.includes(p) && ((w.counters[`rx_prio${p}_pause`] ?? 0) > 0 || (w.counters[`tx_prio${p}_pause`] ?? 0) > 0),
  );
  if (paused.length === 0) return [];
  const counters = pick(
    w.counters,
    paused.flatMap((p) => [`rx_prio${p}_pause`, `tx_prio${p}_pause`]),
  );
  const since = w.sinceSeconds === undefined ? {} : { sinceSeconds: w.sinceSeconds };
  return [
    finding("PAUSE_PRIORITY_MISMATCH", q.hca, {
      hca: q.hca,
      netdev: q.netdev,
      pausedPriorities: [...paused],
      counters,
      pfcEnabled: pfc,
      priority: rocePriority(q).priority,
      ...since,
    }),
  ];
}

/**
 * The priority this NIC's CNPs travel on: with DSCP trust the priority its cnp_dscp maps to (dscp2prio, by default
 * DSCP / 8), with PCP trust cnp_802p_prio. Null when the NIC does not expose them or the trust mode is unknown.
 */
export function cnpPriority(q: RoceQos): { priority: number; from: string } | null {
  if (!q.cnp) return null;
  if (q.trust === "dscp" && q.cnp.dscp !== null) {
    const priority = q.dscpToPriority?.[q.cnp.dscp] ?? q.cnp.dscp >> 3;
    return { priority, from: `cnp_dscp ${q.cnp.dscp} → priority ${priority}` };
  }
  if (q.trust === "pcp" && q.cnp.prio !== null) return { priority: q.cnp.prio, from: `cnp_802p_prio ${q.cnp.prio}` };
  return null;
}

export function cnpOnDataPriority(q: RoceQos): Finding[] {
  const cnp = cnpPriority(q);
  const { priority } = rocePriority(q);
  if (!cnp || cnp.priority !== priority) return [];
  return [
    finding("CNP_SHARES_DATA_PRIORITY", q.hca, {
      hca: q.hca,
      netdev: q.netdev,
      cnpPriority: cnp.priority,
      from: cnp.from,
      priority,
    }),
  ];
}

/**
 * Why the CNP priority of a NIC that marks its CNPs could not be judged, or null when it was (or the NIC shows no CNP
 * marking at all: another driver, judged on the switch). The trust mode decides which of the two markings counts.
 */
export function cnpUnjudged(q: RoceQos): string | null {
  if (!q.cnp || (q.cnp.dscp === null && q.cnp.prio === null)) return null;
  if (cnpPriority(q) !== null) return null;
  return q.trust === null
    ? "the port's trust mode (DSCP or PCP) is unknown, so it is unknown which CNP marking the switch reads"
    : `the ${q.trust === "dscp" ? "cnp_dscp" : "cnp_802p_prio"} file this trust mode needs could not be read`;
}

/** One CHECK_SKIPPED for the netdevs whose CNP priority could not be judged. */
function cnpSkipped(unjudged: readonly { q: RoceQos; why: string }[]): Finding[] {
  if (unjudged.length === 0) return [];
  return [
    finding("CHECK_SKIPPED", "CNP priority", {
      checks: `The CNP priority of ${compactNames(unjudged.map((u) => u.q.netdev))}`,
      why: unjudged[0]!.why,
      fix:
        "Read the trust mode (`mlnx_qos -i <netdev>` or `dcb app show dev <netdev>` and the switch's QoS) and compare " +
        "the priority CNPs are marked with (`/sys/class/net/<netdev>/ecn/roce_np/cnp_dscp`, `cnp_802p_prio`) with the " +
        "RoCE data priority; --strict fails until every check ran.",
    }),
  ];
}

const DROPPED = ["rx_crc_errors_phy", "rx_symbol_err_phy"] as const;

export function phyErrors(q: RoceQos, w: Window): Finding[] {
  const c = w.counters;
  const bits = c.rx_bits_phy ?? 0;
  const uncorrected = c.rx_pcs_symbol_err_phy ?? 0;
  const corrected = c.rx_corrected_bits_phy ?? 0;
  const postFecBer = bits > 0 ? uncorrected / bits : undefined;
  const preFecBer = bits > 0 ? corrected / bits : undefined;
  const reasons: string[] = [];
  // Without a bit count a ratio cannot be formed: any uncorrected error is then named.
  if (postFecBer !== undefined ? postFecBer > POST_FEC_BER_LIMIT : uncorrected > 0) reasons.push("post_fec");
  if (DROPPED.some((n) => (c[n] ?? 0) > 0)) reasons.push("dropped");
  if (preFecBer !== undefined && preFecBer > PRE_FEC_BER_LIMIT) reasons.push("pre_fec");
  if ((w.linkDowns ?? 0) > 0) reasons.push("link_down");
  if (reasons.length === 0) return [];
  const lanes = Object.keys(c).filter((n) => /^rx_err_lane_\d+_phy$/.test(n));
  const counters = pick(c, [
    ...DROPPED,
    "rx_pcs_symbol_err_phy",
    ...(reasons.includes("pre_fec") ? ["rx_corrected_bits_phy", ...lanes] : []),
    ...(reasons.includes("link_down") ? ["link_down_events_phy"] : []),
  ]);
  if (reasons.includes("link_down")) counters.link_down_events_phy = w.linkDowns!;
  const since = w.sinceSeconds === undefined ? {} : { sinceSeconds: w.sinceSeconds };
  const lossy = postFecBer !== undefined && postFecBer > POST_FEC_BER_LIMIT;
  return [
    finding(
      "PHY_ERRORS",
      q.hca,
      {
        hca: q.hca,
        netdev: q.netdev,
        counters,
        reasons,
        ...(postFecBer !== undefined ? { postFecBer } : {}),
        ...(preFecBer !== undefined ? { preFecBer } : {}),
        ...since,
      },
      lossy ? "error" : "warning",
    ),
  ];
}

/** Port counters mlx5 names; a driver with none of them (another vendor's names) cannot be judged by this check. */
const KNOWN = /^(?:rx_discards_phy|rx_crc_errors_phy|rx_symbol_err_phy|(?:rx|tx)_prio[0-7]_pause)$/;

/** One CHECK_SKIPPED for the data netdevs whose port counters could not be read or are not named as mlx5 names them. */
function skipped(blind: readonly { q: RoceQos; why: string }[]): Finding[] {
  if (blind.length === 0) return [];
  const whys = [...new Set(blind.map((b) => b.why))];
  return [
    finding("CHECK_SKIPPED", "ethtool -S", {
      checks: `Pause storms, discards, pause frames per priority and PHY errors on ${compactNames(blind.map((b) => b.q.netdev))}`,
      why: whys.length === 1 ? whys[0]! : `${whys[0]}; and ${whys.length - 1} other reason(s)`,
      fix:
        "Run `ethtool -S <netdev>` on the node as root and read its pause-storm, discard, per-priority pause and " +
        "PHY/FEC counters (`ethtool -I --show-fec <netdev>` for FEC statistics on other drivers); --strict fails until " +
        "every check ran.",
    }),
  ];
}

export const portCountersCheck: Check = {
  name: "roce-port-counters",
  codes: [
    "PAUSE_STORM",
    "LOSSLESS_DISCARDS",
    "PAUSE_PRIORITY_MISMATCH",
    "CNP_SHARES_DATA_PRIORITY",
    "PHY_ERRORS",
    "CHECK_SKIPPED",
  ],
  run(inv, opts) {
    const out: Finding[] = [];
    const blind: { q: RoceQos; why: string }[] = [];
    const unjudged: { q: RoceQos; why: string }[] = [];
    for (const q of dataRoceQos(inv)) {
      out.push(...cnpOnDataPriority(q));
      const why = cnpUnjudged(q);
      if (why !== null) unjudged.push({ q, why });
      if (q.portCounters === undefined) continue;
      const w = windowOf(q, opts);
      if (!w || !Object.keys(q.portCounters ?? {}).some((n) => KNOWN.test(n))) {
        blind.push({ q, why: q.portCountersError ?? noPortCounters(`ethtool -S ${q.netdev}`) });
        continue;
      }
      out.push(...pauseStorm(q, w), ...losslessDiscards(q, w), ...pauseOffPriority(q, w), ...phyErrors(q, w));
    }
    return [...out, ...skipped(blind), ...cnpSkipped(unjudged)];
  },
};

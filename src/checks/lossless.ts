/** Lossless RoCE on the data NICs: ECN (DCQCN) and PFC for the priority NCCL's traffic lands in, alike on every rail. */
import type { Finding } from "../core/finding.js";
import type { NodeInventory, RoceQos } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import { compactNames, dataPorts, isRoce } from "./select.js";
import type { Check } from "./types.js";

export type RocePriority = { trafficClass: number; source: "hca" | "nccl-default"; priority: number };

/**
 * The priority NCCL's RoCE traffic uses on this NIC: the HCA's global traffic class when set (it overrides every
 * QP's), else NCCL_IB_TC's default 0; with DSCP trust the priority is the DSCP's (dscp2prio, by default DSCP / 8),
 * with PCP trust it is the VLAN priority NCCL_IB_SL gives (default 0).
 */
export function rocePriority(q: RoceQos): RocePriority {
  const trafficClass = q.trafficClass ?? 0;
  const source = q.trafficClass !== null ? "hca" : "nccl-default";
  const dscp = trafficClass >> 2;
  const priority = q.trust === "pcp" ? 0 : (q.dscpToPriority?.[dscp] ?? dscp >> 3);
  return { trafficClass, source, priority };
}

/** The RoCE QoS entries of the data ports' netdevs, in data-port order. */
export function dataRoceQos(inv: NodeInventory): RoceQos[] {
  const byNetdev = new Map((inv.roceQos ?? []).map((q) => [q.netdev, q]));
  const out: RoceQos[] = [];
  for (const dp of dataPorts(inv)) {
    if (!isRoce(dp.port)) continue;
    for (const n of dp.port.netdevs) {
      const q = byNetdev.get(n);
      if (q && !out.includes(q)) out.push(q);
    }
  }
  return out;
}

function lossyReasons(q: RoceQos, priority: number): string[] {
  const out: string[] = [];
  if (q.ecnNp?.[priority] === false) out.push(`ECN is off as notification point (ecn/roce_np/enable/${priority} = 0)`);
  if (q.ecnRp?.[priority] === false) out.push(`ECN is off as reaction point (ecn/roce_rp/enable/${priority} = 0)`);
  if (q.pfcEnabled && !q.pfcEnabled.includes(priority)) {
    out.push(
      `PFC is not enabled for priority ${priority} (mlnx_qos: ${q.pfcEnabled.length ? `enabled on ${q.pfcEnabled.join(", ")}` : "enabled on none"})`,
    );
  }
  return out;
}

export const losslessCheck: Check = {
  name: "roce-lossless",
  codes: ["ROCE_NOT_LOSSLESS", "CHECK_SKIPPED"],
  run(inv) {
    if (!inv.roceQos) return [];
    const qos = dataRoceQos(inv);
    if (qos.length === 0) return [];
    const out: Finding[] = [];
    const blind: string[] = [];
    const pfcUnknown: RoceQos[] = [];
    for (const q of qos) {
      if (q.ecnNp === null && q.ecnRp === null && q.pfcEnabled === null) {
        blind.push(q.netdev);
        continue;
      }
      if (q.pfcEnabled === null && q.qosError !== undefined) pfcUnknown.push(q);
      const p = rocePriority(q);
      const reasons = lossyReasons(q, p.priority);
      if (reasons.length === 0) continue;
      out.push(
        finding("ROCE_NOT_LOSSLESS", q.hca, {
          hca: q.hca,
          netdev: q.netdev,
          priority: p.priority,
          trafficClass: p.trafficClass,
          trafficClassSource: p.source,
          reasons,
          pfc: q.pfcEnabled === null ? "unknown" : q.pfcEnabled.includes(p.priority) ? "on" : "off",
        }),
      );
    }
    if (blind.length > 0) {
      out.push(
        finding("CHECK_SKIPPED", "roce-lossless", {
          checks: "lossless RoCE",
          why:
            `${blind.join(", ")} expose(s) neither ECN switches (/sys/class/net/IF/ecn) nor PFC settings ` +
            "(`mlnx_qos -i IF`)",
          fix:
            "Install MLNX_OFED / DOCA-OFED (which provides the ecn/ sysfs files and mlnx_qos) or check the NICs' PFC " +
            "and ECN with the vendor's tool and the switch configuration.",
        }),
      );
    }
    out.push(...pfcSkipped(pfcUnknown));
    return out;
  },
};

/** One CHECK_SKIPPED for the data netdevs whose `mlnx_qos` failed: ECN was judged there, PFC could not be. */
function pfcSkipped(qs: readonly RoceQos[]): Finding[] {
  if (qs.length === 0) return [];
  const errors = [...new Set(qs.map((q) => q.qosError))];
  return [
    finding("CHECK_SKIPPED", "mlnx_qos", {
      checks: `PFC for the priority NCCL's RoCE traffic uses on ${compactNames(qs.map((q) => q.netdev))}`,
      why: `${/^(`mlnx_qos` is not installed|there is no record of `mlnx_qos`)/.test(errors[0] ?? "") ? "" : "`mlnx_qos -i` failed there: "}${errors.length === 1 ? errors[0] : `${errors[0]}; and ${errors.length - 1} other error(s)`}`,
      fix:
        "Run `mlnx_qos -i <netdev>` on the node by hand and repair it (it comes with MLNX_OFED / DOCA-OFED's " +
        "mlnx-tools and needs python3), or read PFC with `dcb pfc show dev <netdev>` and the switch configuration; " +
        "ECN was checked without it. --strict fails until every check ran.",
    }),
  ];
}

type Setting = { name: string; valueOf: (q: RoceQos) => string | null };

/** ECN is left to ROCE_NOT_LOSSLESS: a rail with ECN off is named there. */
const SETTINGS: readonly Setting[] = [
  { name: "traffic class", valueOf: (q) => (q.trafficClassExposed ? String(q.trafficClass ?? "unset") : null) },
  { name: "trust", valueOf: (q) => q.trust },
  { name: "PFC priorities", valueOf: (q) => (q.pfcEnabled ? q.pfcEnabled.join(",") || "none" : null) },
];

export const qosUniformCheck: Check = {
  name: "roce-qos-uniform",
  codes: ["ROCE_QOS_DIFFERS"],
  run(inv) {
    if (!inv.roceQos) return [];
    const qos = dataRoceQos(inv);
    const out: Finding[] = [];
    for (const s of SETTINGS) {
      const groups = new Map<string, RoceQos[]>();
      for (const q of qos) {
        const v = s.valueOf(q);
        if (v === null) continue;
        groups.set(v, [...(groups.get(v) ?? []), q]);
      }
      if (groups.size <= 1) continue;
      const [usual, usualQs] = [...groups].sort((a, b) => b[1].length - a[1].length)[0]!;
      for (const [value, qs] of groups) {
        if (value === usual) continue;
        for (const q of qs) {
          out.push(
            finding("ROCE_QOS_DIFFERS", q.hca, {
              hca: q.hca,
              netdev: q.netdev,
              setting: s.name,
              value,
              usual,
              usualNetdevs: usualQs.map((u) => u.netdev).join(", "),
              priority: rocePriority(q).priority,
            }),
          );
        }
      }
    }
    return out;
  },
};

import { roceDataPortMtus } from "../../checks/ports.js";
import { type Finding, makeFinding } from "../../core/finding.js";
import { naturalCompare } from "../../core/natural.js";
import type { NodeInventory } from "../../inventory/types.js";
import { FLEET_FINDINGS as F, type FleetCode } from "./catalogue.js";

/** One attribute compared across the fleet: its value on each node. */
export type FleetAttribute = {
  name: string;
  code: FleetCode;
  valueOf: (inv: NodeInventory) => string;
};

function dataHcas(inv: NodeInventory) {
  const data = new Set(inv.roles.dataHcas);
  return inv.hcas.filter((h) => data.has(h.name));
}

function counted(values: string[]): string {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m.entries()]
    .sort((a, b) => b[1] - a[1] || naturalCompare(a[0], b[0]))
    .map(([v, n]) => `${n}×${v}`)
    .join(", ");
}

export const FLEET_ATTRIBUTES: readonly FleetAttribute[] = [
  {
    name: "OFED",
    code: "FLEET_OFED_DIFFERS",
    valueOf: (inv) =>
      inv.ofed.status === "present"
        ? `${inv.ofed.flavor ?? "OFED"} ${inv.ofed.version ?? "?"}`
        : inv.ofed.status === "absent" && inv.ofed.loadedDriver?.from === "ofed"
          ? `OFED drivers ${inv.ofed.loadedDriver.version ?? "(no version)"}`
          : `OFED ${inv.ofed.status}`,
  },
  {
    name: "NVIDIA driver",
    code: "FLEET_DRIVER_DIFFERS",
    valueOf: (inv) => (inv.driver.driverVersion ? `driver ${inv.driver.driverVersion}` : `driver ${inv.driver.status}`),
  },
  {
    name: "HCA firmware",
    code: "FLEET_FIRMWARE_DIFFERS",
    valueOf: (inv) =>
      [...new Set(dataHcas(inv).map((h) => h.fwVer ?? "unknown"))].sort(naturalCompare).join(" + ") || "none",
  },
  {
    name: "HCA count",
    code: "FLEET_HCA_COUNT_DIFFERS",
    valueOf: (inv) => `${inv.hcas.length} HCAs (${inv.roles.dataHcas.length} data)`,
  },
  {
    name: "data port rates",
    code: "FLEET_PORT_RATES_DIFFER",
    valueOf: (inv) =>
      counted(
        dataHcas(inv).flatMap((h) => h.ports.map((p) => (p.rateGbps === null ? "unknown" : `${p.rateGbps} Gb/s`))),
      ) || "none",
  },
  {
    name: "RoCE active MTU",
    code: "FLEET_MTU_DIFFERS",
    valueOf: (inv) => {
      const mtus = roceDataPortMtus(inv).map((r) => (r.activeMtu === null ? "unknown" : `MTU ${r.activeMtu}`));
      // The distinct MTUs, not their counts: a node with more rails is not a node with another MTU.
      return [...new Set(mtus)].sort(naturalCompare).join(" + ") || "no RoCE ports";
    },
  },
  {
    name: "RoCE v2 GID index layout",
    code: "FLEET_GID_LAYOUT_DIFFERS",
    valueOf: (inv) => {
      const per = dataHcas(inv).flatMap((h) =>
        h.ports.filter((p) => p.linkLayer === "Ethernet").map((p) => `${h.name}:${p.roceV2Ipv4Index ?? "none"}`),
      );
      if (per.length === 0) return "no RoCE ports";
      const indices = new Set(per.map((x) => x.split(":")[1]));
      return indices.size === 1 ? `index ${[...indices][0]} on every data HCA` : per.join(", ");
    },
  },
];

export type AttributeReport = {
  name: string;
  majority: string;
  majorityNodes: number;
  /** Nodes whose value differs from the majority, with their value. */
  odd: { node: string; value: string }[];
};

export type ConsistencyReport = { attributes: AttributeReport[]; findings: Finding[] };

/** The value of every fleet attribute on one node (small: what a worker thread sends back). */
export function attributeValues(inv: NodeInventory, attributes: readonly FleetAttribute[] = FLEET_ATTRIBUTES) {
  const out: Record<string, string> = {};
  for (const a of attributes) out[a.name] = a.valueOf(inv);
  return out;
}

/** Compares every node with the fleet's majority, per attribute, and names the odd nodes. Pure. */
export function evaluateFleetConsistency(
  nodes: readonly { node: string; values: Record<string, string> }[],
  attributes: readonly FleetAttribute[] = FLEET_ATTRIBUTES,
): ConsistencyReport {
  const report: ConsistencyReport = { attributes: [], findings: [] };
  if (nodes.length === 0) return report;
  for (const attr of attributes) {
    const values = nodes.map((n) => ({ node: n.node, value: n.values[attr.name] ?? "unknown" }));
    const counts = new Map<string, number>();
    for (const v of values) counts.set(v.value, (counts.get(v.value) ?? 0) + 1);
    const [majority, majorityNodes] = [...counts.entries()].sort(
      (a, b) => b[1] - a[1] || naturalCompare(a[0], b[0]),
    )[0]!;
    const odd = values.filter((v) => v.value !== majority).sort((a, b) => naturalCompare(a.node, b.node));
    report.attributes.push({ name: attr.name, majority, majorityNodes, odd });
    for (const o of odd) {
      report.findings.push(
        makeFinding(F, attr.code, o.node, {
          node: o.node,
          attribute: attr.name,
          value: o.value,
          majority,
          majorityNodes,
          nodes: nodes.length,
        }),
      );
    }
  }
  return report;
}

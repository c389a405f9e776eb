/**
 * Rails across the fleet: rail N is the N-th data HCA of every node (natural order, mlx5_2 before mlx5_10). In a
 * rail-optimized fabric every node's rail N sits on one subnet (one leaf switch), and each rail on its own subnet;
 * NCCL pairs rail N with rail N on the peer (NCCL_CROSS_NIC=0), so a node whose rail N is elsewhere cannot reach
 * its peers on that rail. Pure.
 */
import { type Finding, makeFinding } from "../../core/finding.js";
import { naturalCompare } from "../../core/natural.js";
import type { NodeInventory } from "../../inventory/types.js";
import { FLEET_FINDINGS as F } from "./catalogue.js";

export type NodeRail = { hca: string; netdev: string | null; subnet: string | null };

/** The node's rails: each data HCA in order, its netdev and that netdev's (first) IPv4 subnet. */
export function railsOf(inv: NodeInventory): NodeRail[] {
  const byName = new Map(inv.hcas.map((h) => [h.name, h]));
  const subnets = new Map(inv.netdevs.map((n) => [n.name, n.ipv4Subnets[0] ?? null]));
  return [...inv.roles.dataHcas].sort(naturalCompare).map((name) => {
    const netdev = byName.get(name)?.netdevs[0] ?? null;
    return { hca: name, netdev, subnet: netdev ? (subnets.get(netdev) ?? null) : null };
  });
}

export type RailSummary = {
  rail: number;
  /** The subnet most nodes have on this rail (null: no node has an IPv4 subnet on it). */
  subnet: string | null;
  /** Nodes with an HCA on this rail, and how many of them sit on `subnet`. */
  nodes: number;
  onSubnet: number;
  /** HCA names on this rail across the fleet, counted (`48×mlx5_4`). */
  hcas: string;
  odd: { node: string; hca: string; subnet: string | null }[];
};

export type RailReport = { rails: RailSummary[]; findings: Finding[] };

function majority<T extends string>(values: readonly T[]): [T, number] | null {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || naturalCompare(a[0], b[0]))[0];
  return top ?? null;
}

function counted(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || naturalCompare(a[0], b[0]))
    .map(([v, n]) => `${n}×${v}`)
    .join(", ");
}

/** Compares every node's rails with the fleet: RAIL_SUBNET_MISMATCH per odd node and rail, and the NCCL_CROSS_NIC advice. */
export function evaluateRails(nodes: readonly { node: string; rails: readonly NodeRail[] }[]): RailReport {
  const report: RailReport = { rails: [], findings: [] };
  const width = Math.max(0, ...nodes.map((n) => n.rails.length));
  for (let rail = 0; rail < width; rail++) {
    const on = nodes.flatMap((n) => (n.rails[rail] ? [{ node: n.node, ...n.rails[rail]! }] : []));
    const top = majority(on.flatMap((r) => (r.subnet ? [r.subnet] : [])));
    const subnet = top?.[0] ?? null;
    const odd = subnet
      ? on
          .filter((r) => r.subnet !== subnet)
          .sort((a, b) => naturalCompare(a.node, b.node))
          .map((r) => ({ node: r.node, hca: r.hca, subnet: r.subnet }))
      : [];
    report.rails.push({
      rail,
      subnet,
      nodes: on.length,
      onSubnet: top?.[1] ?? 0,
      hcas: counted(on.map((r) => r.hca)),
      odd,
    });
  }
  const railOfSubnet = new Map<string, number>();
  for (const r of report.rails) if (r.subnet && !railOfSubnet.has(r.subnet)) railOfSubnet.set(r.subnet, r.rail);
  for (const r of report.rails) {
    for (const o of r.odd) {
      const other = o.subnet ? railOfSubnet.get(o.subnet) : undefined;
      report.findings.push(
        makeFinding(F, "RAIL_SUBNET_MISMATCH", o.node, {
          node: o.node,
          rail: r.rail,
          hca: o.hca,
          subnet: o.subnet,
          expected: r.subnet ?? "?",
          expectedNodes: r.onSubnet,
          nodes: r.nodes,
          otherRail: other ?? null,
        }),
      );
    }
  }
  const subnets = report.rails.map((r) => r.subnet).filter((s): s is string => s !== null);
  if (nodes.length >= 2 && subnets.length > 0) {
    const shared = subnets.length !== new Set(subnets).size;
    report.findings.push(
      makeFinding(F, "FLEET_RAIL_LAYOUT", "fleet", {
        rails: report.rails.length,
        nodes: nodes.length,
        layout: report.rails.map((r) => `rail ${r.rail} ${r.subnet ?? "no IPv4"}`).join(", "),
        shared,
        mismatched: [...new Set(report.rails.flatMap((r) => r.odd.map((o) => o.node)))].sort(naturalCompare),
      }),
    );
  }
  return report;
}

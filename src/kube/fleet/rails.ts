/**
 * Rails across the fleet: rail N is the N-th data HCA of every node (natural order, mlx5_2 before mlx5_10).
 *
 * How rails are addressed is a fact of the fabric design, not of any one host:
 * - `l2`: every node's rail N sits on one subnet (one leaf/VLAN per rail), so a node whose rail N is on another
 *   subnet is cabled or addressed on the wrong rail;
 * - `routed`: every NIC has its own per-node subnet (a /31 to its leaf, or a per-node CIDR from a pool per rail)
 *   and the leaves route between them; subnets then differ on every node by design.
 * NCCL never pairs NICs by subnet (it pairs by rail order and reachability), so subnets are compared only when the
 * user says the rails are `l2`; without the fact, the differences are reported as not checked. Pure.
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

/** How the fleet's rails are addressed (see above); null: not given, so subnets are not judged. */
export type RailAddressing = "l2" | "routed";

export type RailReport = {
  rails: RailSummary[];
  findings: Finding[];
  addressing: RailAddressing | null;
  /** Where `addressing` came from: the user (`--rail-addressing`) or the nodes' own addresses (`seen`). */
  addressingFrom?: "declared" | "seen";
};

/** The prefix length of `a.b.c.d/n`; null when not one. */
const prefixOf = (subnet: string): number | null => {
  const m = /\/(\d{1,2})$/.exec(subnet);
  return m ? Number(m[1]) : null;
};

/**
 * Routed rails shown by the nodes themselves: every data NIC of every node on a /31 or /30, a point-to-point link
 * to its leaf (RFC 3021: a /31 holds the two ends of one link), which an L2 rail shared by many nodes cannot be.
 * Null otherwise: a larger per-node CIDR looks like an L2 subnet, so the user has to say which.
 */
export function railAddressingSeen(nodes: readonly { rails: readonly NodeRail[] }[]): RailAddressing | null {
  const prefixes = nodes.flatMap((n) => n.rails.map((r) => (r.subnet ? prefixOf(r.subnet) : null)));
  if (prefixes.length === 0 || prefixes.some((p) => p === null || p < 30 || p > 31)) return null;
  return "routed";
}

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

/**
 * Compares every node's rails with the fleet. With `l2` rails: RAIL_SUBNET_MISMATCH per odd node and rail, and the
 * NCCL_CROSS_NIC advice. With `routed` rails: no subnet comparison (per-node subnets are the design). Unknown: the
 * nodes whose subnets differ are listed in one info finding that says what was not checked and how to say which.
 */
export function evaluateRails(
  nodes: readonly { node: string; rails: readonly NodeRail[] }[],
  declared: RailAddressing | null = null,
): RailReport {
  const seen = declared === null ? railAddressingSeen(nodes) : null;
  const addressing = declared ?? seen;
  const report: RailReport = {
    rails: [],
    findings: [],
    addressing,
    ...(addressing === null ? {} : { addressingFrom: declared !== null ? ("declared" as const) : ("seen" as const) }),
  };
  const width = Math.max(0, ...nodes.map((n) => n.rails.length));
  for (let rail = 0; rail < width; rail++) {
    const on = nodes.flatMap((n) => (n.rails[rail] ? [{ node: n.node, ...n.rails[rail]! }] : []));
    const top = addressing === "routed" ? null : majority(on.flatMap((r) => (r.subnet ? [r.subnet] : [])));
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
  const mismatched = [...new Set(report.rails.flatMap((r) => r.odd.map((o) => o.node)))].sort(naturalCompare);
  if (addressing === "routed") {
    if (nodes.length >= 2 && report.rails.length > 0) {
      report.findings.push(
        makeFinding(F, "FLEET_RAIL_LAYOUT_ROUTED", "fleet", {
          rails: report.rails.length,
          nodes: nodes.length,
          from: report.addressingFrom ?? "declared",
        }),
      );
    }
    return report;
  }
  if (addressing === null && mismatched.length) {
    // Per-node subnets are healthy on routed rails and wrong on L2 rails: which one is the user's to say.
    report.findings.push(
      makeFinding(F, "RAIL_ADDRESSING_NOT_CHECKED", "fleet", {
        nodes: nodes.length,
        differing: mismatched,
        rails: report.rails.filter((r) => r.odd.length).map((r) => r.rail),
      }),
    );
    return report;
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
        mismatched,
      }),
    );
  }
  return report;
}

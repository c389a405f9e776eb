/**
 * The topology file from discovered wiring, whichever protocol showed it: each node's data NICs and the switch (and
 * port) at their other end — LLDP neighbours on RoCE, the subnet manager's discovery on InfiniBand. Rail i of a node
 * is the switch its i-th NIC reaches; nodes whose NICs reach the same switches form one scalable unit. What the
 * wiring does not show (a node without a NIC on some rail, a leaf without uplinks) is listed, never filled in. Pure.
 */
import type { TopologyFile } from "../topology-file.js";

/** One local NIC and the switch port at its other end. */
export type Attachment = { iface: string; switchName: string; switchPort: string };

export type DiscoveredUnit = { leaves: string[]; nodes: string[] };

export type DiscoveredTopology = {
  topology: TopologyFile;
  /** The NIC names taken as rails, in rail order. */
  rails: string[];
  units: DiscoveredUnit[];
  /** Nodes left out, leaves without uplinks, …: what was not found. */
  notFound: string[];
};

/** Device names in the order a person reads them: mlx5_2 before mlx5_10. */
export const naturalOrder = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true });

/** The uplinks and spines the wiring showed (InfiniBand discovery shows them; LLDP from the nodes does not). */
export type SwitchTier = { uplinksOf: ReadonlyMap<string, number>; spines: number };

export function topologyFromAttachments(
  byNode: ReadonlyMap<string, readonly Attachment[]>,
  o: { nics?: readonly string[] | undefined; tier?: SwitchTier | undefined; hint: string },
): DiscoveredTopology | string {
  const rails = o.nics?.length
    ? [...o.nics]
    : [...new Set([...byNode.values()].flatMap((as) => as.map((a) => a.iface)))].sort(naturalOrder);
  if (!rails.length) return `no NIC of any node shows a switch at its other end; ${o.hint}`;
  const notFound: string[] = [];
  const unitKey = new Map<string, number>();
  const units: DiscoveredUnit[] = [];
  for (const node of [...byNode.keys()].sort(naturalOrder)) {
    const attached = byNode.get(node)!;
    const sw = rails.map((nic) => attached.find((a) => a.iface === nic)?.switchName);
    const missing = rails.filter((_, i) => sw[i] === undefined);
    if (missing.length) {
      notFound.push(`${node}: no switch seen on ${missing.join(", ")}; the node is left out of the units.`);
      continue;
    }
    const key = sw.join("|");
    let u = unitKey.get(key);
    if (u === undefined) {
      u = units.length;
      unitKey.set(key, u);
      units.push({ leaves: sw as string[], nodes: [] });
    }
    units[u]!.nodes.push(node);
  }
  if (!units.length) return `no node shows a switch on every rail (${rails.join(", ")}); ${o.hint}`;
  const unitOfSwitch = new Map<string, number>();
  for (const [u, unit] of units.entries())
    for (const s of unit.leaves) {
      const other = unitOfSwitch.get(s);
      if (other !== undefined && other !== u)
        return `switch ${s} serves nodes of two different switch sets (${units[other]!.nodes[0]} and ${unit.nodes[0]}): not a rail-optimised fabric with one leaf per rail and unit. If a management NIC is among ${rails.join(", ")}, name the data NICs with --nics; otherwise describe the fabric by hand (--topology FILE).`;
      unitOfSwitch.set(s, u);
    }
  const flat = units.every((unit) => new Set(unit.leaves).size === 1);
  const topology: TopologyFile = flat
    ? { layout: "flat", units: units.length }
    : { layout: "rail-optimised", units: units.length, rails: rails.length };
  if (o.tier) tierFacts(topology, units, o.tier, notFound);
  return { topology, rails, units, notFound };
}

/** Spines and oversubscription (NIC cables : uplink cables, the worst leaf) where the wiring shows the uplinks. */
function tierFacts(topology: TopologyFile, units: DiscoveredUnit[], tier: SwitchTier, notFound: string[]): void {
  let worst = 0;
  for (const unit of units)
    for (const leaf of new Set(unit.leaves)) {
      const up = tier.uplinksOf.get(leaf) ?? 0;
      const down = unit.nodes.length * unit.leaves.filter((l) => l === leaf).length;
      if (up === 0) {
        worst = Number.POSITIVE_INFINITY;
        continue;
      }
      worst = Math.max(worst, down / up);
    }
  if (tier.spines > 0 && !(topology.layout === "flat" && units.length === 1)) topology.spines = tier.spines;
  if (Number.isFinite(worst) && worst > 0) topology.oversubscription = Math.max(1, Math.round(worst * 100) / 100);
  else if (units.length > 1)
    notFound.push(
      "oversubscription: a leaf shows no uplink, so its ratio is unknown; give --oversubscription to fleet bench.",
    );
}

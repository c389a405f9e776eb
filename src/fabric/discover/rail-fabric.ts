/**
 * A rail-optimised fabric from what a cluster says: each leaf group discovered (the lowest HyperNode tier, or a
 * node label, topology.ts) is one scalable unit — in a rail-optimised fabric the nodes of a unit share the unit's
 * one leaf per rail — the rails are the data HCAs every node has, and what the nodes cannot show (the leaves'
 * oversubscription, the number of spines) is given by the user. Units may have any size. Pure.
 */
import type { RailFabric } from "../model.js";
import { maxOf } from "../stats.js";
import type { FabricView } from "../types.js";

export type ClusterFabric = {
  fabric: RailFabric;
  /** The view with its nodes ordered unit by unit. */
  view: FabricView;
  /** The discovered leaf group of each unit, by unit index. */
  units: string[];
};

export function railFabricFromView(
  view: FabricView,
  o: { oversubscription: number; spines?: number | undefined },
): ClusterFabric | string {
  if (!(o.oversubscription >= 1 && o.oversubscription <= 64))
    return `oversubscription expects a ratio from 1 (non-blocking) to 64, like 2 for 2:1; got ${o.oversubscription}.`;
  if (o.spines !== undefined && !(Number.isInteger(o.spines) && o.spines >= 1))
    return `spines expects a whole number ≥ 1; got ${o.spines}.`;
  const units = [...new Set(view.nodes.map((n) => view.leafOf.get(n) ?? ""))].sort();
  const index = new Map(units.map((u, i) => [u, i]));
  const unitOf = new Map(view.nodes.map((n) => [n, index.get(view.leafOf.get(n) ?? "")!]));
  const nodes = [...view.nodes].sort((a, b) => unitOf.get(a)! - unitOf.get(b)! || a.localeCompare(b));
  const sizes = units.map((_, u) => nodes.filter((n) => unitOf.get(n) === u).length);
  const uplinksPerLeaf = Math.max(1, Math.ceil(maxOf(sizes) / o.oversubscription));
  return {
    fabric: {
      layout: "rail-optimised",
      nodes,
      units: units.length,
      rails: view.hcas.length,
      spines: Math.min(o.spines ?? 8, uplinksPerLeaf),
      uplinksPerLeaf,
      lineRateGBps: view.lineRateGBps,
      oversubscription: o.oversubscription,
      unitOf,
    },
    view: { ...view, nodes },
    units,
  };
}

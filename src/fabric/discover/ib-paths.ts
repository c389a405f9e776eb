/**
 * A flow's hops on InfiniBand from the subnet manager's routes, in the names the planner and findings use
 * (src/fabric/model.ts): an `ibtracert` path (leaf → spine → leaf) becomes the leaf uplink `unitU/leafR/uplinkJ` and
 * the spine port `spineS/portP` it crosses. The discovered cables are numbered as the model numbers them: a leaf's
 * uplink j is its (j ÷ spines)-th cable, in leaf-port order, to spine j mod spines (spines in name order), so a
 * fabric with the same number of cables from every leaf to every spine gets exactly the model's names. Pure.
 */
import { spinePortId, spinePortOf, uplinkId } from "../model.js";
import type { FlowHops } from "../types.js";
import type { DiscoveredTopology } from "./from-wiring.js";
import type { IbWiring } from "./ibnetdiscover.js";
import type { TracePath } from "./ibtracert.js";

export type IbNames = {
  leafOf: ReadonlyMap<string, { unit: number; rail: number }>;
  /** `leaf:port` of each uplink cable → its model uplink id. */
  uplinkAt: ReadonlyMap<string, string>;
  /** `spine:port` of each cable down to a leaf → its model spine port id. */
  spinePortAt: ReadonlyMap<string, string>;
};

/** The model's names for every discovered leaf, uplink and spine port, or why the wiring does not fit them. */
export function ibNames(wiring: IbWiring, found: DiscoveredTopology): IbNames | string {
  const leafOf = new Map<string, { unit: number; rail: number }>();
  for (const [unit, u] of found.units.entries())
    for (const [rail, leaf] of u.leaves.entries()) leafOf.set(leaf, { unit, rail });
  const spines = wiring.spines;
  const cables = new Map<string, number>();
  for (const up of wiring.uplinks)
    cables.set(`${up.leaf}|${up.spine}`, (cables.get(`${up.leaf}|${up.spine}`) ?? 0) + 1);
  const perSpine = new Set([...leafOf.keys()].flatMap((leaf) => spines.map((s) => cables.get(`${leaf}|${s}`) ?? 0)));
  if (perSpine.size !== 1 || perSpine.has(0))
    return `the leaves do not have the same number of cables to every spine (${[...perSpine].sort().join(", ")} seen): uplinks cannot be named as the model numbers them.`;
  const c = [...perSpine][0]!;
  const f = {
    units: found.units.length,
    rails: found.rails.length,
    spines: spines.length,
    uplinksPerLeaf: c * spines.length,
  };
  const uplinkAt = new Map<string, string>();
  const spinePortAt = new Map<string, string>();
  for (const [leaf, { unit, rail }] of leafOf)
    for (const [s, spine] of spines.entries()) {
      const toSpine = wiring.uplinks
        .filter((u) => u.leaf === leaf && u.spine === spine)
        .sort((a, b) => a.leafPort - b.leafPort);
      for (const [k, up] of toSpine.entries()) {
        const j = k * spines.length + s;
        uplinkAt.set(`${leaf}:${up.leafPort}`, uplinkId(unit, rail, j));
        const p = spinePortOf({ ...f, lineRateGBps: 0, oversubscription: 1 }, unit, rail, j);
        spinePortAt.set(`${spine}:${up.spinePort}`, spinePortId(p.spine, p.port));
      }
    }
  return { leafOf, uplinkAt, spinePortAt };
}

/** The uplink and spine port an `ibtracert` path crosses (null, null inside one leaf), or why it cannot be named. */
export function hopsFromTrace(names: IbNames, path: TracePath): FlowHops | string {
  const h = path.hops;
  if (h.length === 1 && names.leafOf.has(h[0]!.name)) return { uplink: null, spinePort: null };
  if (h.length !== 3)
    return `a path through ${h.length} switch(es) (${h.map((x) => x.name).join(" → ")}) is not leaf → spine → leaf.`;
  const uplink = names.uplinkAt.get(`${h[0]!.name}:${h[0]!.outPort}`);
  const spinePort = names.spinePortAt.get(`${h[1]!.name}:${h[1]!.outPort}`);
  if (!uplink) return `${h[0]!.name} port ${h[0]!.outPort} is not an uplink of a leaf in the discovered wiring.`;
  if (!spinePort)
    return `${h[1]!.name} port ${h[1]!.outPort} is not a spine port towards a leaf in the discovered wiring.`;
  return { uplink, spinePort };
}

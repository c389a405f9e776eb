/**
 * The fault planter: which parts of the fabric are broken and how badly. Its `truth` is the answer key; only the
 * scorer reads it, never the planner. Depths follow what degraded hardware does to an RDMA link: a node at 30–65 %
 * (PCIe down-trained to x8, a throttled host), a NIC at 25–50 % (a 400G port come up at 100/200G, a dirty optic),
 * a leaf uplink or spine port at 30–60 % (a down-trained lane, CRC errors and retransmission); Alibaba HPN
 * (SIGCOMM 2024, §2) and Meta (SIGCOMM 2024, §6) report link and NIC degradation as the common training-fabric
 * faults. Pure given the random source.
 */
import { allSpinePorts, allUplinks, type RailFabric, railId } from "../model.js";
import type { Random } from "../prng.js";

export type FaultCounts = {
  badNodes: number;
  badRails: number;
  badUplinks: number;
  badSpinePorts: number;
  /** NIC cables that drop to 30 % in some jobs only. */
  flapping: number;
  /** Leaf uplinks slow only while at least two flows cross them (a marginal optic that fails under load). */
  loadOnlyUplinks?: number;
  /** NICs whose port is down: every test that uses one fails. */
  downNics?: number;
};

/** Planted faults by identifier (see model.ts). `links` (a node-to-node path) has no cause in this fabric. */
export type FabricTruth = {
  nodes: string[];
  rails: string[];
  uplinks: string[];
  spinePorts: string[];
  links: string[];
  flapping: string[];
  /** Of `uplinks`, those slow only under load. */
  loadOnly: string[];
  /** Of `rails`, the NICs that are down. */
  downNics: string[];
};

export type PlantedFaults = {
  /** Capacity factor (0–1] of each faulty part, keyed by identifier. */
  factor: ReadonlyMap<string, number>;
  flapping: ReadonlySet<string>;
  /** Hops whose factor applies only while two or more flows cross them. */
  loadOnly: ReadonlySet<string>;
  down: ReadonlySet<string>;
  truth: FabricTruth;
};

/** What cannot be planted, said against what the fabric has; null when all fits. */
export function faultCountProblem(f: RailFabric, c: FaultCounts): string | null {
  const uplinks = f.units * f.rails * f.uplinksPerLeaf;
  if (f.units < 2 && c.badUplinks + c.badSpinePorts > 0)
    return `--bad-uplinks and --bad-spine-ports need at least 2 units (traffic inside one unit never leaves its leaf); got --units ${f.units}.`;
  const loadOnly = c.loadOnlyUplinks ?? 0;
  if (f.units < 2 && loadOnly > 0)
    return `--load-only-uplinks needs at least 2 units (traffic inside one unit never leaves its leaf); got --units ${f.units}.`;
  if (loadOnly > 0 && c.badUplinks + loadOnly > uplinks)
    return `--bad-uplinks ${c.badUplinks} and --load-only-uplinks ${loadOnly} plant more bad uplinks than the fabric has: ${f.units} unit(s) × ${f.rails} leaves × ${f.uplinksPerLeaf} uplinks = ${uplinks}; give at most ${uplinks} together.`;
  if (c.badUplinks > uplinks)
    return `--bad-uplinks ${c.badUplinks} plants more bad uplinks than the fabric has: ${f.units} unit(s) × ${f.rails} leaves × ${f.uplinksPerLeaf} uplinks = ${uplinks}; give at most ${uplinks}.`;
  if (c.badSpinePorts > uplinks)
    return `--bad-spine-ports ${c.badSpinePorts} plants more bad spine ports than the ${f.spines} spine(s) have towards leaves (${uplinks}); give at most ${uplinks}.`;
  if (c.badNodes >= f.nodes.length)
    return `--bad-nodes ${c.badNodes} plants at least as many bad nodes as the ${f.nodes.length} simulated; give fewer than ${f.nodes.length}.`;
  const healthy = f.nodes.length - c.badNodes;
  const down = c.downNics ?? 0;
  if (c.badRails + c.flapping + down > healthy)
    return `--bad-rails ${c.badRails}, --flapping ${c.flapping} and --down-nics ${down} plant one NIC each on a node that is not bad; the simulation has ${healthy} such node(s); give at most ${healthy} together.`;
  return null;
}

export function plantFaults(f: RailFabric, c: FaultCounts, rnd: Random): PlantedFaults {
  const problem = faultCountProblem(f, c);
  if (problem) throw new RangeError(problem);
  const factor = new Map<string, number>();
  const between = (lo: number, hi: number) => lo + (hi - lo) * rnd.next();
  const badNodes = rnd.pick(f.nodes, c.badNodes);
  const bad = new Set(badNodes);
  const others = rnd.pick(
    f.nodes.filter((n) => !bad.has(n)),
    c.badRails + c.flapping + (c.downNics ?? 0),
  );
  const nic = (n: string) => railId(n, rnd.int(f.rails));
  for (const n of badNodes) factor.set(n, between(0.3, 0.65));
  const rails = others.slice(0, c.badRails).map(nic);
  for (const r of rails) factor.set(r, between(0.25, 0.5));
  const flapping = new Set(others.slice(c.badRails, c.badRails + c.flapping).map(nic));
  const down = new Set(others.slice(c.badRails + c.flapping).map(nic));
  const upPick = rnd.pick(allUplinks(f), c.badUplinks + (c.loadOnlyUplinks ?? 0));
  const uplinks = upPick.slice(0, c.badUplinks);
  const loadOnly = upPick.slice(c.badUplinks);
  for (const x of loadOnly) factor.set(x, between(0.3, 0.6));
  const spinePorts = rnd.pick(allSpinePorts(f), c.badSpinePorts);
  for (const x of [...uplinks, ...spinePorts]) factor.set(x, between(0.3, 0.6));
  const sorted = (xs: Iterable<string>) => [...xs].sort();
  return {
    factor,
    flapping,
    loadOnly: new Set(loadOnly),
    down,
    truth: {
      nodes: sorted(badNodes),
      rails: sorted([...rails, ...down]),
      uplinks: sorted([...uplinks, ...loadOnly]),
      spinePorts: sorted(spinePorts),
      links: [],
      flapping: sorted(flapping),
      loadOnly: sorted(loadOnly),
      downNics: sorted(down),
    },
  };
}

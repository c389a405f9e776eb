/**
 * The fabric a GPU fleet really has: what is cabled where, not what is broken. Pure.
 *
 * Rail-optimised (NVIDIA DGX SuperPOD reference architecture, H100: "rail-optimized" compute fabric): the fleet is
 * cut into scalable units; each unit has one leaf switch per rail, and NIC i of every node in the unit plugs into
 * leaf i of that unit. Two nodes of one unit talk rail to rail through one leaf and never touch a spine; two nodes
 * of different units go leaf → uplink → spine → leaf, still on the same rail. Each leaf has `uplinksPerLeaf` uplinks
 * at line rate, spread round-robin over the spines; a leaf's uplink capacity is its downlink capacity divided by
 * the oversubscription (2:1 halves it; Meta, "RDMA over Ethernet for Distributed AI Training at Meta Scale",
 * SIGCOMM 2024, runs its AI zones 1:1 below the aggregation tier and oversubscribes above it).
 *
 * Flat: one leaf group per node set with no rail structure below it (what `--topology flat` and the older model
 * mean; the planner then sees only which leaf a node hangs off).
 *
 * Identifiers (the same strings in every finding and in a simulation's truth):
 * - node            `node-0042`          (1-based, zero-padded to 4 digits or the fleet's width)
 * - rail (one NIC)  `node-0042/rail3`    (rail index 0-based = GPU index whose nearest NIC it is)
 * - leaf            `unit1/leaf3`        (unit 0-based, leaf index = rail index)
 * - leaf uplink     `unit1/leaf3/uplink5` (the leaf's port towards the spine; a fault slows what it transmits up)
 * - spine port      `spine2/port7`       (the spine's port towards a leaf; a fault slows what it transmits down)
 */
import { maxOf } from "./stats.js";
import type { FlowHops } from "./types.js";

export type FabricLayout = "rail-optimised" | "flat";

export type RailFabric = {
  layout: "rail-optimised";
  nodes: readonly string[];
  units: number;
  rails: number;
  spines: number;
  uplinksPerLeaf: number;
  /** Line rate of one NIC, one leaf uplink and one spine port, GB/s. */
  lineRateGBps: number;
  oversubscription: number;
  /**
   * The unit of each node where a cluster says it (discovered leaf groups, of any sizes); without it units are
   * consecutive blocks of `unitSizes` (a simulated fleet).
   */
  unitOf?: ReadonlyMap<string, number>;
};

export type RailFabricSpec = {
  nodes: number;
  units: number;
  rails: number;
  oversubscription: number;
  lineRateGBps: number;
  /** Default: 8, or fewer when a leaf has fewer uplinks. */
  spines?: number;
};

const pad = (i: number, width: number) => String(i).padStart(width, "0");

export function nodeNames(n: number): string[] {
  const width = Math.max(4, String(n).length);
  return Array.from({ length: n }, (_, i) => `node-${pad(i + 1, width)}`);
}

/** Nodes per unit: the fleet split as evenly as it goes, the first units one larger. */
export function unitSizes(nodes: number, units: number): number[] {
  const base = Math.floor(nodes / units);
  return Array.from({ length: units }, (_, u) => base + (u < nodes % units ? 1 : 0));
}

/** Why a spec cannot be built, or null. Every message says what was expected. */
export function railFabricProblem(s: RailFabricSpec): string | null {
  const whole = (v: number) => Number.isInteger(v) && v >= 1;
  if (!whole(s.units)) return `--units expects a whole number ≥ 1; got ${s.units}.`;
  if (!whole(s.rails) || s.rails > 64) return `--rails expects a whole number from 1 to 64; got ${s.rails}.`;
  if (!(s.oversubscription >= 1 && s.oversubscription <= 64))
    return `--oversubscription expects a ratio from 1 (non-blocking) to 64, like 2 for 2:1; got ${s.oversubscription}.`;
  if (s.nodes < 2 * s.units)
    return `--units ${s.units} needs at least 2 nodes per unit (${2 * s.units} in all); got --simulate ${s.nodes}.`;
  if (s.spines !== undefined && !whole(s.spines)) return `--spines expects a whole number ≥ 1; got ${s.spines}.`;
  return null;
}

export function buildRailFabric(s: RailFabricSpec): RailFabric {
  const problem = railFabricProblem(s);
  if (problem) throw new RangeError(problem);
  const largest = maxOf(unitSizes(s.nodes, s.units));
  // Leaf uplinks run at line rate: downlinks ÷ oversubscription of them carry what the leaf's nodes can send.
  const uplinksPerLeaf = Math.max(1, Math.ceil(largest / s.oversubscription));
  return {
    layout: "rail-optimised",
    nodes: nodeNames(s.nodes),
    units: s.units,
    rails: s.rails,
    spines: Math.min(s.spines ?? 8, uplinksPerLeaf),
    uplinksPerLeaf,
    lineRateGBps: s.lineRateGBps,
    oversubscription: s.oversubscription,
  };
}

/** Unit of every node: as the cluster says (`unitOf`), else consecutive blocks of `unitSizes`. */
export function unitIndex(f: Pick<RailFabric, "nodes" | "units" | "unitOf">): Map<string, number> {
  if (f.unitOf) return new Map(f.unitOf);
  const sizes = unitSizes(f.nodes.length, f.units);
  const out = new Map<string, number>();
  let i = 0;
  sizes.forEach((size, u) => {
    for (let k = 0; k < size; k++) out.set(f.nodes[i++]!, u);
  });
  return out;
}

export const railId = (node: string, rail: number) => `${node}/rail${rail}`;
export const leafId = (unit: number, rail: number) => `unit${unit}/leaf${rail}`;
export const uplinkId = (unit: number, rail: number, uplink: number) => `${leafId(unit, rail)}/uplink${uplink}`;
export const spinePortId = (spine: number, port: number) => `spine${spine}/port${port}`;

/** Leaf uplink `j` goes to spine `j mod spines` (each leaf reaches every spine; extra uplinks go round again). */
export const spineOfUplink = (f: Pick<RailFabric, "spines">, uplink: number) => uplink % f.spines;

/** Parallel cables between one leaf and one spine (the leaf's uplinks landing on that spine). */
export const cablesPerSpine = (f: Pick<RailFabric, "spines" | "uplinksPerLeaf">) =>
  Math.ceil(f.uplinksPerLeaf / f.spines);

/** The spine port at the far end of leaf (unit, rail)'s uplink `j`: the spine numbers its ports leaf by leaf. */
export function spinePortOf(f: Omit<RailFabric, "nodes" | "layout">, unit: number, rail: number, uplink: number) {
  const leaf = unit * f.rails + rail;
  return { spine: spineOfUplink(f, uplink), port: leaf * cablesPerSpine(f) + Math.floor(uplink / f.spines) };
}

/** Every leaf uplink and every spine port of the fabric (what faults may be planted on, what a sweep covers). */
export function allUplinks(f: Omit<RailFabric, "nodes" | "layout">): string[] {
  const out: string[] = [];
  for (let u = 0; u < f.units; u++)
    for (let r = 0; r < f.rails; r++) for (let j = 0; j < f.uplinksPerLeaf; j++) out.push(uplinkId(u, r, j));
  return out;
}

export function allSpinePorts(f: Omit<RailFabric, "nodes" | "layout">): string[] {
  const out: string[] = [];
  for (let u = 0; u < f.units; u++)
    for (let r = 0; r < f.rails; r++)
      for (let j = 0; j < f.uplinksPerLeaf; j++) {
        const p = spinePortOf(f, u, r, j);
        out.push(spinePortId(p.spine, p.port));
      }
  return out;
}

/** One RoCE v2 flow as ECMP sees it: the 5-tuple's varying parts (addresses by node and rail, UDP source port). */
export type Flow = { src: string; dst: string; rail: number; sport: number };

/** The hops of a flow that a switch chose (what `ibtracert` or a switch's hash calculator reports). */
export type FlowPath = FlowHops;

/** UDP destination port of RoCE v2 (IBTA RoCE v2 annex). Fixed, so ECMP varies on the source port. */
export const ROCE_V2_PORT = 4791;

/**
 * What a planner may ask of a fabric: run jobs and read their results, and trace which uplink and spine port a
 * flow would take (on InfiniBand `ibtracert` from the subnet manager's routes; on RoCE the switch's hash
 * calculator or a traceroute with the same UDP 5-tuple). Absent where nothing can trace.
 */
export type FabricOracle = {
  measure: import("./types.js").Measure;
  trace?: (flow: Flow) => FlowPath;
};

/** The leaf (unit, rail) a leaf uplink or spine port belongs to, from its identifier; null when not one. */
export function leafOfHop(
  f: Pick<RailFabric, "rails" | "spines" | "uplinksPerLeaf">,
  hop: string,
): { unit: number; rail: number; side: "uplink" | "spinePort" } | null {
  const up = /^unit(\d+)\/leaf(\d+)\/uplink\d+$/.exec(hop);
  if (up) return { unit: Number(up[1]), rail: Number(up[2]), side: "uplink" };
  const sp = /^spine\d+\/port(\d+)$/.exec(hop);
  if (!sp) return null;
  const leaf = Math.floor(Number(sp[1]) / cablesPerSpine(f));
  return { unit: Math.floor(leaf / f.rails), rail: leaf % f.rails, side: "spinePort" };
}

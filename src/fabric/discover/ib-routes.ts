/**
 * Every flow's leaf uplink and spine port on InfiniBand, from the text two tools print: `ibnetdiscover` (the cables)
 * and `dump_lfts.sh` / `ibroute` (the switches' forwarding tables). One reading for `fleet bench --ib-wiring
 * --ib-routes` and for the fabric evaluation's InfiniBand variant, so the bench scores the reader users run. Pure.
 */
import { type Flow, type FlowPath, type RailFabric, unitIndex } from "../model.js";
import { ibNames } from "./ib-paths.js";
import { routeTracer, tableTrace } from "./ib-route-trace.js";
import { ibFabricFromText } from "./ib-topology.js";
import { parseForwardingTables } from "./lft.js";

/** The fabric as the wiring shows it, in the model's numbering: which unit each node is in, uplinks and spines. */
export type IbShape = { unitOf: ReadonlyMap<string, number>; uplinksPerLeaf: number; spines: number };
export type IbRoutes = {
  trace: (f: Flow) => FlowPath;
  problems: { first: string[]; total: number };
  shape: IbShape;
};
/** Which of the two texts could not be read, and why (`unsourced`: the message does not name the file). */
export type IbRoutesError = { input: "wiring" | "routes"; message: string; unsourced?: true };

/** `hcas`: rail r's HCA name. Problems with single flows (a LID a table lacks) leave those flows' hops unknown. */
export function ibRoutesFromText(
  wiring: { text: string; source: string },
  routes: { text: string; source: string },
  hcas: readonly string[],
): IbRoutes | IbRoutesError {
  const ib = ibFabricFromText(wiring.text, wiring.source, hcas);
  if (typeof ib === "string") return { input: "wiring", message: ib };
  const tables = parseForwardingTables(routes.text, routes.source);
  if (typeof tables === "string") return { input: "routes", message: tables };
  const names = ibNames(ib.wiring, ib.found);
  if (typeof names === "string") return { input: "wiring", message: names, unsourced: true };
  const unitOf = new Map<string, number>();
  for (const [u, unit] of ib.found.units.entries()) for (const n of unit.nodes) unitOf.set(n, u);
  const uplinks = ib.wiring.uplinks.length / Math.max(1, names.leafOf.size);
  const shape = { unitOf, uplinksPerLeaf: uplinks, spines: ib.wiring.spines.length };
  return { ...tableTrace(routeTracer(ib.links, tables), names, hcas), shape };
}

/**
 * Why the rail fabric the planner numbers hops in is not the one the routes were traced over (null: it is). The
 * traced hops carry the wiring's unit numbers and uplink counts: a topology file written from other discovery (units
 * ordered differently, another oversubscription) would make every traced hop name some other cable.
 */
export function wiringMismatch(
  shape: IbShape,
  fabric: Pick<RailFabric, "nodes" | "units" | "unitOf" | "uplinksPerLeaf" | "spines">,
): string | null {
  if (shape.uplinksPerLeaf !== fabric.uplinksPerLeaf || shape.spines !== fabric.spines)
    return `the wiring shows ${shape.uplinksPerLeaf} uplink(s) per leaf over ${shape.spines} spine(s); the topology and flags give ${fabric.uplinksPerLeaf} over ${fabric.spines}.`;
  const planned = unitIndex(fabric);
  const moved = fabric.nodes.filter((n) => shape.unitOf.has(n) && shape.unitOf.get(n) !== planned.get(n));
  if (moved.length === 0) return null;
  const first = moved
    .slice(0, 3)
    .map((n) => `${n}: unit ${planned.get(n)} in the topology, ${shape.unitOf.get(n)} in the wiring`);
  return `${moved.length} node(s) are in another unit than their HCAs' leaves in the wiring (${first.join("; ")}${moved.length > 3 ? "; …" : ""}).`;
}

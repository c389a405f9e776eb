/**
 * `--topology FILE`: a small YAML description of the fabric, for what the flags do not say.
 *
 *   layout: rail-optimised   # or flat
 *   units: 4                 # scalable units (rail-optimised)
 *   rails: 8                 # NICs per node = leaves per unit
 *   oversubscription: 2      # leaf downlink : uplink capacity
 *   spines: 8                # optional (default 8, at most the uplinks of a leaf)
 *   nodeModel: dgx-h100      # optional: which NIC each GPU uses (src/fabric/rail-nics.ts)
 *   lineRateGBps: 50         # optional: one NIC, uplink or spine port
 *   unitNodes:               # optional: the nodes of each unit, as discovery found them (fleet topology writes it)
 *     - [gpu-01, gpu-02]
 *
 * Pure: the caller reads the file.
 */
import { parse } from "yaml";
import type { FabricLayout } from "./model.js";

export type TopologyFile = {
  layout: FabricLayout;
  units?: number;
  rails?: number;
  oversubscription?: number;
  spines?: number;
  nodeModel?: string;
  lineRateGBps?: number;
  /** The nodes of each unit as discovered (LLDP or ibnetdiscover): on a cluster these are the units, not labels. */
  unitNodes?: string[][];
};

const NUMBERS = ["units", "rails", "oversubscription", "spines", "lineRateGBps"] as const;
const KNOWN = new Set<string>(["layout", "nodeModel", "unitNodes", ...NUMBERS]);

/** A list of lists of node names, or null. */
function nodeLists(v: unknown): string[][] | null {
  if (!Array.isArray(v) || v.length === 0) return null;
  const ok = v.every((u) => Array.isArray(u) && u.length > 0 && u.every((n) => typeof n === "string" && n !== ""));
  return ok ? (v as string[][]) : null;
}

/** The description, or a message saying what was expected. */
export function parseTopologyFile(text: string, name: string): TopologyFile | string {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    return `${name} is not YAML: ${(e as Error).message.split("\n")[0]}`;
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    return `${name} should be a YAML mapping like "layout: rail-optimised" with units, rails and oversubscription.`;
  const d = doc as Record<string, unknown>;
  const unknown = Object.keys(d).find((k) => !KNOWN.has(k));
  if (unknown) return `${name}: unknown key "${unknown}"; expected ${[...KNOWN].join(", ")}.`;
  if (d.layout !== "rail-optimised" && d.layout !== "flat")
    return `${name}: layout should be rail-optimised or flat; got ${JSON.stringify(d.layout)}.`;
  const out: TopologyFile = { layout: d.layout };
  for (const k of NUMBERS) {
    const v = d[k];
    if (v === undefined) continue;
    if (typeof v !== "number" || !(v > 0)) return `${name}: ${k} should be a number above 0; got ${JSON.stringify(v)}.`;
    out[k] = v;
  }
  if (d.nodeModel !== undefined) {
    if (typeof d.nodeModel !== "string") return `${name}: nodeModel should be a name like dgx-h100.`;
    out.nodeModel = d.nodeModel;
  }
  if (d.unitNodes !== undefined) {
    const units = nodeLists(d.unitNodes);
    if (!units) return `${name}: unitNodes should list each unit's node names, like [[gpu-01, gpu-02], [gpu-03]].`;
    const seen = new Set<string>();
    const twice = units.flat().find((n) => seen.size === seen.add(n).size);
    if (twice) return `${name}: unitNodes names ${twice} in two units; a node belongs to one unit.`;
    if (out.units !== undefined && out.units !== units.length)
      return `${name}: units says ${out.units} but unitNodes lists ${units.length}.`;
    out.unitNodes = units;
  }
  return out;
}

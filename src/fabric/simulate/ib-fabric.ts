/**
 * An InfiniBand fabric for a simulated rail-optimised fleet, as its subnet manager would route it and as its tools
 * would print it: each switch's linear forwarding table sends a destination LID out of one port (a leaf spreads
 * remote destinations over its uplinks, a spine reaches the destination's leaf over one of its cables to it), the
 * wiring as `ibnetdiscover -p` prints it, the tables as `dump_lfts.sh` (ibroute per switch) prints them, and
 * `forward`: the same routes as the simulator's truth (`forwarding` realism). The product reads only the text.
 * Shapes: infiniband-diags' ibnetdiscover.c (dump_ports_report) and ibroute.c (dump_unicast_tables) in
 * github.com/linux-rdma/rdma-core. Names, GUIDs and LIDs made up here.
 */
import {
  cablesPerSpine,
  type Flow,
  type FlowPath,
  type RailFabric,
  spinePortId,
  spinePortOf,
  unitIndex,
  uplinkId,
} from "../model.js";
import { type RailSimulation, type RailSimulationOptions, simulateRailFleet } from "./fleet.js";

const mix = (a: number, b: number) => {
  let x = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  x ^= x >>> 15;
  x = Math.imul(x, 0x2c1b3c6d);
  return (x ^ (x >>> 12)) >>> 0;
};

const hex16 = (n: number) => `0x${n.toString(16).padStart(16, "0")}`;

export type IbFabricText = { wiring: string; lfts: string; forward: (f: Flow) => FlowPath };

/** `hcas`: rail r's device name on every node. */
export function ibFabric(f: RailFabric, hcas: readonly string[]): IbFabricText {
  const unitOf = unitIndex(f);
  const U = f.uplinksPerLeaf;
  const S = f.spines;
  const leafName = (u: number, r: number) => `su${String(u).padStart(2, "0")}-leaf-r${r}`;
  const spineName = (s: number) => `spine-${String(s).padStart(2, "0")}`;
  const leafIndex = (u: number, r: number) => u * f.rails + r;
  const leafLid = (u: number, r: number) => 1 + leafIndex(u, r);
  const spineLid = (s: number) => 1 + f.units * f.rails + s;
  const leafGuid = (u: number, r: number) => 0x0002c90300a00000 + leafIndex(u, r);
  const spineGuid = (s: number) => 0x0002c90300c00000 + s;
  const membersOf = new Map<number, string[]>();
  for (const n of f.nodes) membersOf.set(unitOf.get(n)!, [...(membersOf.get(unitOf.get(n)!) ?? []), n]);
  const nodeIndex = new Map(f.nodes.map((n, i) => [n, i]));
  const hcaLid = (node: string, r: number) => 1000 + nodeIndex.get(node)! * f.rails + r;
  const hcaGuid = (node: string, r: number) => 0x0002c90300b00000 + nodeIndex.get(node)! * 16 + r;
  /** A node's port on its rail leaf: its place in the unit, from 1. */
  const downPort = (node: string) => membersOf.get(unitOf.get(node)!)!.indexOf(node) + 1;
  /** Uplinks after the largest leaf's node ports; a switch port number is 8 bits, 255 meaning none. */
  const perLeaf = Math.max(...[...membersOf.values()].map((m) => m.length));
  const upPort = (j: number) => perLeaf + 1 + j;
  const widest = Math.max(perLeaf + U, f.units * f.rails * cablesPerSpine(f));
  if (widest > 254)
    throw new Error(`an InfiniBand switch has at most 254 ports; this fabric needs ${widest} on one switch.`);
  const spinePhysPort = (u: number, r: number, j: number) => spinePortOf(f, u, r, j).port + 1;
  /** The uplink a leaf sends a remote LID out of, and the cable a spine reaches a leaf over. */
  const upFor = (u: number, r: number, lid: number) => mix(lid, leafIndex(u, r)) % U;
  const downFor = (s: number, lid: number) => {
    const cables = Math.floor((U - 1 - s) / S) + 1;
    return (mix(lid, 7919 + s) % cables) * S + s;
  };

  const ports: string[] = [];
  const line = (a: ["SW" | "CA", number, number, number, string], b: ["SW" | "CA", number, number, number, string]) =>
    ports.push(
      `${a[0]}  ${String(a[1]).padStart(4)} ${String(a[2]).padStart(3)} ${hex16(a[3])} 4x NDR - ${b[0]}  ${String(b[1]).padStart(4)} ${String(b[2]).padStart(3)} ${hex16(b[3])} ( '${a[4]}' - '${b[4]}' )`,
    );
  for (let u = 0; u < f.units; u++)
    for (let r = 0; r < f.rails; r++) {
      const leaf = (port: number): ["SW", number, number, number, string] => [
        "SW",
        leafLid(u, r),
        port,
        leafGuid(u, r),
        leafName(u, r),
      ];
      for (const n of membersOf.get(u) ?? []) {
        const ca: ["CA", number, number, number, string] = ["CA", hcaLid(n, r), 1, hcaGuid(n, r), `${n} ${hcas[r]}`];
        line(ca, leaf(downPort(n)));
        line(leaf(downPort(n)), ca);
      }
      for (let j = 0; j < U; j++) {
        const s = j % S;
        const spine: ["SW", number, number, number, string] = [
          "SW",
          spineLid(s),
          spinePhysPort(u, r, j),
          spineGuid(s),
          spineName(s),
        ];
        line(leaf(upPort(j)), spine);
        line(spine, leaf(upPort(j)));
      }
    }

  const destinations = f.nodes.flatMap((n) =>
    Array.from({ length: f.rails }, (_, r) => ({ node: n, r, lid: hcaLid(n, r), u: unitOf.get(n)! })),
  );
  const tables: string[] = [];
  const table = (lid: number, guid: number, name: string, outOf: (d: (typeof destinations)[number]) => number) => {
    const rows = destinations
      .map(
        (d) =>
          `0x${d.lid.toString(16).padStart(4, "0")} ${String(outOf(d)).padStart(3, "0")} : (Channel Adapter portguid ${hex16(hcaGuid(d.node, d.r) + 1)}: '${d.node} ${hcas[d.r]}')`,
      )
      .sort();
    tables.push(
      `Unicast lids [0x0-0x${Math.max(...destinations.map((d) => d.lid)).toString(16)}] of switch Lid ${lid} guid ${hex16(guid)} (${name}):`,
      "  Lid  Out   Destination",
      "       Port     Info ",
      ...rows,
      `${rows.length} valid lids dumped `,
    );
  };
  for (let u = 0; u < f.units; u++)
    for (let r = 0; r < f.rails; r++)
      table(leafLid(u, r), leafGuid(u, r), leafName(u, r), (d) =>
        d.u === u && d.r === r ? downPort(d.node) : upPort(upFor(u, r, d.lid)),
      );
  for (let s = 0; s < S; s++)
    table(spineLid(s), spineGuid(s), spineName(s), (d) => spinePhysPort(d.u, d.r, downFor(s, d.lid)));

  const forward = (fl: Flow): FlowPath => {
    const u = unitOf.get(fl.src)!;
    const v = unitOf.get(fl.dst)!;
    if (u === v) return { uplink: null, spinePort: null };
    const lid = hcaLid(fl.dst, fl.rail);
    const j = upFor(u, fl.rail, lid);
    const p = spinePortOf(f, v, fl.rail, downFor(j % S, lid));
    return { uplink: uplinkId(u, fl.rail, j), spinePort: spinePortId(p.spine, p.port) };
  };
  return { wiring: `${ports.join("\n")}\n`, lfts: `${tables.join("\n")}\n`, forward };
}

/**
 * A simulated rail-optimised fleet routed by its subnet manager's forwarding tables (`forwarding` realism), with the
 * text its tools would print: the one way the evaluation and the cluster tests build an InfiniBand fleet.
 */
export function simulateInfinibandFleet(o: RailSimulationOptions): RailSimulation & { ib: IbFabricText } {
  let ib: IbFabricText | undefined;
  // The routes need the fabric the simulation builds; the simulation asks for them only once it runs jobs.
  const sim = simulateRailFleet({ ...o, forwarding: (f) => ib!.forward(f) });
  ib = ibFabric(sim.fabric, sim.view.hcas);
  return { ...sim, ib };
}

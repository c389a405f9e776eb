import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { hopsFromTrace, ibNames } from "./ib-paths.js";
import { routeTracer, tableTrace } from "./ib-route-trace.js";
import { ibFabricFromText } from "./ib-topology.js";
import type { IbEnd } from "./ibnetdiscover.js";
import { parseIbtracert } from "./ibtracert.js";
import { parseForwardingTables } from "./lft.js";

// Shape of the forwarding tables: `ibroute LID` as infiniband-diags prints them (dump_unicast_tables: the
// "Unicast lids [0x%x-0x%x] of switch %s guid 0x%016" PRIx64 " (%s):" header, "0x%04x %03u %s" per LID, dump_lid's
// "(%s portguid %s: '%s')", "%d valid lids dumped"), in
// https://github.com/linux-rdma/rdma-core/blob/master/infiniband-diags/ibroute.c, and its man page
// https://github.com/linux-rdma/rdma-core/blob/master/infiniband-diags/man/ibroute.8.in; dump_lfts.sh prints one
// such block per switch (https://github.com/linux-rdma/rdma-core/blob/master/infiniband-diags/scripts/dump_fts.in).
// The fixture is written here for the same made-up fabric as ibnetdiscover-two-units.txt (two units of two rails,
// two spines): each leaf sends odd remote LIDs to spine-2 (port 34), even ones to spine-1 (port 33).
const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", name), "utf8");

function fabric() {
  const ib = ibFabricFromText(fixture("ibnetdiscover-two-units.txt"), "fabric.txt", []);
  if (typeof ib === "string") throw new Error(ib);
  const tables = parseForwardingTables(fixture("lfts-two-units.txt"), "lfts.txt");
  if (typeof tables === "string") throw new Error(tables);
  const names = ibNames(ib.wiring, ib.found);
  if (typeof names === "string") throw new Error(names);
  return { links: ib.links, tables, names };
}

describe("the switches' forwarding tables (ibroute, dump_lfts.sh)", () => {
  test("each switch's table: its GUID, name and LID, and the out port of every destination LID", () => {
    const tables = parseForwardingTables(fixture("lfts-two-units.txt"), "lfts.txt");
    if (typeof tables === "string") throw new Error(tables);
    expect(tables.map((t) => [t.desc, t.lid, t.out.size])).toEqual([
      ["su0-leaf-r0", 11, 12],
      ["su0-leaf-r1", 12, 12],
      ["su1-leaf-r0", 13, 12],
      ["su1-leaf-r1", 14, 12],
      ["spine-1", 1, 11],
      ["spine-2", 2, 11],
    ]);
    const leaf = tables[0]!;
    expect(leaf.guid).toBe("2c90300a00000");
    expect(leaf.out.get(0x69)).toBe(34);
    expect(leaf.dest.get(0x69)).toBe("gpu-c mlx5_0");
  });

  test("`ibroute -n` (no destinations resolved) reads the same ports", () => {
    const brief = fixture("lfts-two-units.txt").replace(/ : \(.*\)$/gm, " ");
    const tables = parseForwardingTables(brief, "lfts.txt");
    if (typeof tables === "string") throw new Error(tables);
    expect(tables[0]!.out.get(0x69)).toBe(34);
    expect(tables[0]!.dest.size).toBe(0);
  });

  test("`ibroute -a` prints LIDs the switch has no route to as port 255: no route, not a port", () => {
    const all = fixture("lfts-two-units.txt").replace(/^(0x0069) 034( : .*)$/m, "$1 255 : (illegal port)");
    const tables = parseForwardingTables(all, "lfts.txt");
    if (typeof tables === "string") throw new Error(tables);
    expect(tables[0]!.out.has(0x69)).toBe(false);
  });

  test("spines are numbered in natural order (spine-2 before spine-10), as a person numbers them", () => {
    const renamed = fixture("ibnetdiscover-two-units.txt").replaceAll('"spine-1"', '"spine-10"');
    const ib = ibFabricFromText(renamed, "fabric.txt", []);
    if (typeof ib === "string") throw new Error(ib);
    expect(ib.wiring.spines).toEqual(["spine-2", "spine-10"]);
  });

  test("text that holds no table says what to run", () => {
    expect(parseForwardingTables("ibroute: iberror: dump tables: node info failed", "x.txt")).toMatch(
      /x\.txt holds no forwarding table.*dump_lfts\.sh > lfts\.txt/,
    );
  });
});

describe("a flow's path from the forwarding tables", () => {
  test("the tables give the path ibtracert printed for the same LID pair (two readings of one fabric agree)", () => {
    const { links, tables, names } = fabric();
    const fromTables = routeTracer(links, tables).path("gpu-a", "gpu-c", "mlx5_0");
    const traced = parseIbtracert(fixture("ibtracert-cross-unit.txt"), "trace.txt");
    if (typeof fromTables === "string" || typeof traced === "string") throw new Error(String(fromTables));
    expect(fromTables.hops).toEqual(traced.hops);
    expect(hopsFromTrace(names, fromTables)).toEqual({ uplink: "unit0/leaf0/uplink1", spinePort: "spine1/port2" });
  });

  test("every rail of every pair, at once: inside a unit no uplink; across units the uplink the LID's parity picks", () => {
    const { links, tables, names } = fabric();
    const { trace, problems } = tableTrace(routeTracer(links, tables), names, ["mlx5_0", "mlx5_1"]);
    expect(trace({ src: "gpu-a", dst: "gpu-b", rail: 0, sport: 49152 })).toEqual({ uplink: null, spinePort: null });
    // gpu-c mlx5_1 is LID 106 (even): spine-1, the leaf's uplink 0.
    expect(trace({ src: "gpu-a", dst: "gpu-c", rail: 1, sport: 49152 })).toEqual({
      uplink: "unit0/leaf1/uplink0",
      spinePort: "spine0/port3",
    });
    // The source port plays no part on InfiniBand.
    expect(trace({ src: "gpu-a", dst: "gpu-c", rail: 0, sport: 50000 })).toEqual(
      trace({ src: "gpu-a", dst: "gpu-c", rail: 0, sport: 49152 }),
    );
    expect(problems.total).toBe(0);
  });

  test("a LID missing from a table, a port without a cable, a loop: that flow's path is unknown, with the reason", () => {
    const { links, names } = fabric();
    const broken = (edit: (t: string) => string) => {
      const tables = parseForwardingTables(edit(fixture("lfts-two-units.txt")), "lfts.txt");
      if (typeof tables === "string") throw new Error(tables);
      return tableTrace(routeTracer(links, tables), names, ["mlx5_0", "mlx5_1"]);
    };
    const flow = { src: "gpu-a", dst: "gpu-c", rail: 0, sport: 49152 };
    const unknown = { uplink: null, spinePort: null };
    // spine-2 lost its entry for LID 0x69.
    const missing = broken((t) => t.replace(/(spine-2\):[\s\S]*?)^0x0069 003 .*\n/m, "$1"));
    expect(missing.trace(flow)).toEqual(unknown);
    expect(missing.problems.first[0]).toMatch(/switch spine-2 has no route to LID 105/);
    // su0-leaf-r0 sends it out of a port with no cable.
    const dead = broken((t) => t.replace(/^(0x0069) 034( : .*)$/m, "$1 040$2"));
    expect(dead.trace(flow)).toEqual(unknown);
    expect(dead.problems.first[0]).toMatch(/port 40, which has no cable/);
    // spine-2 sends it back up to su0-leaf-r0, which sends it to spine-2 again.
    const loop = broken((t) => t.replace(/(spine-2\):[\s\S]*?^0x0069) 003/m, (_, before) => `${before} 001`));
    expect(loop.trace(flow)).toEqual(unknown);
    expect(loop.problems.first[0]).toMatch(/more than 16 switches: a loop/);
    expect(loop.problems.total).toBe(1);
  });

  // NCCL addresses a peer by its port's base LID (`devInfo->lid = ibDev->portAttr.lid`) and sets no path bits
  // (`qpAttr.ah_attr.src_path_bits = 0`): NVIDIA/nccl src/transport/net_ib/connect.cc. With LMC > 0 the subnet manager
  // gives a port 2^LMC LIDs and may route each differently; NCCL's traffic follows the base LID's route only.
  test("a port with several LIDs (LMC > 0) and no LID in the wiring: the flow follows its base LID, the lowest", () => {
    const { links, names } = fabric();
    const trace = (lfts: string, wiring: typeof links) => {
      const tables = parseForwardingTables(lfts, "lfts.txt");
      if (typeof tables === "string") throw new Error(tables);
      return tableTrace(routeTracer(wiring, tables), names, ["mlx5_0", "mlx5_1"]);
    };
    const flow = { src: "gpu-a", dst: "gpu-c", rail: 0, sport: 49152 };
    const base = trace(fixture("lfts-two-units.txt"), links).trace(flow);
    // A second LID of gpu-c mlx5_0, routed by every switch out of another port than its base LID 0x69.
    const lmc = fixture("lfts-two-units.txt").replace(
      /^0x0069 (\d{3}) : (\(Channel Adapter portguid \S+ 'gpu-c mlx5_0'\))$/gm,
      (line, port: string, dest: string) =>
        `${line}\n0x0070 ${port === "034" ? "033" : port === "033" ? "034" : port} : ${dest}`,
    );
    const withoutLid = (e: IbEnd): IbEnd => {
      if (e.desc !== "gpu-c mlx5_0") return e;
      const { lid: _, ...rest } = e;
      return rest;
    };
    const noLid = links.map((l) => ({ a: withoutLid(l.a), b: withoutLid(l.b) }));
    const got = trace(lmc, noLid);
    expect(got.trace(flow)).toEqual(base);
    expect(got.problems.total).toBe(0);
  });
});

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { topologyFromAttachments } from "./from-wiring.js";
import { hopsFromTrace, ibNames } from "./ib-paths.js";
import { attachmentsFromWiring, parseIbnetdiscover, wiringFromLinks } from "./ibnetdiscover.js";
import { parseIbtracert } from "./ibtracert.js";

// Shapes: the topology text and the ports report (-p) as infiniband-diags prints them — out_switch_port,
// out_ca_port and dump_ports_report in
// https://github.com/linux-rdma/rdma-core/blob/master/infiniband-diags/ibnetdiscover.c, and the example in
// https://github.com/linux-rdma/rdma-core/blob/master/infiniband-diags/man/common/sec_topology_file_format.rst.
// ibtracert's hop lines: https://manpages.ubuntu.com/manpages/kinetic/en/man8/ibtracert.8.html and pasted traces
// ("[1] -> switch port {0x…}[9] lid 17-17 \"…\"") on public pages. The fixtures are written here: two scalable
// units of two rails, two spines; GUIDs, LIDs and names made up.
const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", name), "utf8");

describe("an InfiniBand fabric's wiring from ibnetdiscover", () => {
  test("the topology text: each HCA's leaf and port, each leaf's uplinks, cables printed from both ends counted once", () => {
    const links = parseIbnetdiscover(fixture("ibnetdiscover-two-units.txt"), "fabric.txt");
    if (typeof links === "string") throw new Error(links);
    const w = wiringFromLinks(links);
    expect(w.leaves).toEqual(["su0-leaf-r0", "su0-leaf-r1", "su1-leaf-r0", "su1-leaf-r1"]);
    expect(w.spines).toEqual(["spine-1", "spine-2"]);
    expect(w.hcas).toHaveLength(6); // gpu-a mlx5_0 and gpu-c mlx5_1 are printed by both ends
    expect(w.hcas.find((h) => h.host === "gpu-c" && h.hca === "mlx5_1")).toEqual({
      host: "gpu-c",
      hca: "mlx5_1",
      hcaPort: 1,
      lid: 106,
      leaf: "su1-leaf-r1",
      leafGuid: "2c90300a00011",
      leafPort: 5,
    });
    expect(w.uplinks).toHaveLength(8); // 4 leaves × 2 spines, each cable once though both ends print it
    expect(w.uplinks.filter((u) => u.leaf === "su0-leaf-r0")).toEqual([
      { leaf: "su0-leaf-r0", leafPort: 33, spine: "spine-1", spinePort: 1 },
      { leaf: "su0-leaf-r0", leafPort: 34, spine: "spine-2", spinePort: 1 },
    ]);
    expect(w.notFound).toEqual([]);
  });

  test("the topology file from it: 2 units of 2 rails, 2 spines, oversubscription from the cables (2 down : 2 up)", () => {
    const links = parseIbnetdiscover(fixture("ibnetdiscover-two-units.txt"), "fabric.txt");
    if (typeof links === "string") throw new Error(links);
    const { byNode, tier } = attachmentsFromWiring(wiringFromLinks(links));
    const found = topologyFromAttachments(byNode, { tier, hint: "" });
    if (typeof found === "string") throw new Error(found);
    expect(found.topology).toEqual({ layout: "rail-optimised", units: 2, rails: 2, spines: 2, oversubscription: 1 });
    expect(found.rails).toEqual(["mlx5_0", "mlx5_1"]);
    expect(found.units).toEqual([
      { leaves: ["su0-leaf-r0", "su0-leaf-r1"], nodes: ["gpu-a", "gpu-b"] },
      { leaves: ["su1-leaf-r0", "su1-leaf-r1"], nodes: ["gpu-c"] },
    ]);
  });

  test("the ports report (-p): a host missing a rail and a leaf with no uplink are listed as not found, not guessed", () => {
    const links = parseIbnetdiscover(fixture("ibnetdiscover-ports.txt"), "ports.txt");
    if (typeof links === "string") throw new Error(links);
    const w = wiringFromLinks(links);
    expect(w.hcas.map((h) => `${h.host}/${h.hca}→${h.leaf}[${h.leafPort}]`)).toEqual([
      "gpu-a/mlx5_0→su0-leaf-r0[1]",
      "gpu-a/mlx5_1→su0-leaf-r1[1]",
      "gpu-c/mlx5_0→su1-leaf-r0[5]",
    ]);
    expect(w.notFound).toEqual([
      "leaf su1-leaf-r0 shows no uplink to a spine: its nodes reach no other leaf in this wiring.",
    ]);
    const { byNode, tier } = attachmentsFromWiring(w);
    const found = topologyFromAttachments(byNode, { tier, hint: "" });
    if (typeof found === "string") throw new Error(found);
    expect(found.units).toEqual([{ leaves: ["su0-leaf-r0", "su0-leaf-r1"], nodes: ["gpu-a"] }]);
    expect(found.notFound).toEqual(["gpu-c: no switch seen on mlx5_1; the node is left out of the units."]);
    // one unit, one spine reached: oversubscription 1 HCA cable : 1 uplink per leaf
    expect(found.topology).toEqual({ layout: "rail-optimised", units: 1, rails: 2, spines: 1, oversubscription: 1 });
  });

  test("text that is not ibnetdiscover output → a message saying what to run", () => {
    expect(parseIbnetdiscover("ibwarn: [1234] mad_rpc_open_port: can't open UMAD port", "x.txt")).toMatch(
      /x\.txt is not ibnetdiscover output: .*Run ibnetdiscover/,
    );
    expect(parseIbnetdiscover('{"lldp": {}}', "y.json")).toMatch(/not ibnetdiscover output/);
  });
});

describe("a LID pair's path from ibtracert", () => {
  test("each switch on the path with the port the flow enters by and the port its forwarding table sends it out of", () => {
    const path = parseIbtracert(fixture("ibtracert-cross-unit.txt"), "trace.txt");
    if (typeof path === "string") throw new Error(path);
    expect(path.from).toMatchObject({ kind: "ca", lid: 101, desc: "gpu-a mlx5_0" });
    expect(path.to).toMatchObject({ kind: "ca", lid: 105, desc: "gpu-c mlx5_0" });
    expect(path.hops).toEqual([
      { guid: "2c90300a00000", name: "su0-leaf-r0", lid: 11, inPort: 1, outPort: 34 },
      { guid: "2c90300c00002", name: "spine-2", lid: 2, inPort: 1, outPort: 3 },
      { guid: "2c90300a00010", name: "su1-leaf-r0", lid: 13, inPort: 34, outPort: 5 },
    ]);
  });

  test("a trace that stops, or text that is not a trace, says so", () => {
    const cut = fixture("ibtracert-cross-unit.txt").split("\n").slice(0, 3).join("\n");
    expect(parseIbtracert(cut, "cut.txt")).toMatch(/stops before its "To …" line/);
    expect(parseIbtracert("ibtracert: iberror: failed: destination lid 999 unreachable", "e.txt")).toMatch(
      /did not reach the destination: ibtracert: iberror/,
    );
    expect(parseIbtracert("hello", "h.txt")).toMatch(/h\.txt is not ibtracert output/);
  });
});

describe("a traced path in the names fleet bench's findings use", () => {
  const links = parseIbnetdiscover(fixture("ibnetdiscover-two-units.txt"), "fabric.txt");
  if (typeof links === "string") throw new Error(links);
  const wiring = wiringFromLinks(links);
  const { byNode, tier } = attachmentsFromWiring(wiring);
  const found = topologyFromAttachments(byNode, { tier, hint: "" });
  if (typeof found === "string") throw new Error(found);

  test("gpu-a rail 0 → gpu-c rail 0 leaves su0-leaf-r0 by port 34 (to spine-2) and spine-2 by port 3 (to su1-leaf-r0)", () => {
    const names = ibNames(wiring, found);
    if (typeof names === "string") throw new Error(names);
    const path = parseIbtracert(fixture("ibtracert-cross-unit.txt"), "trace.txt");
    if (typeof path === "string") throw new Error(path);
    // 2 spines, 1 cable each: uplink j goes to spine j mod 2; port 34 reaches spine-2, the second spine → uplink1.
    // spine-2's port 3 goes down to su1-leaf-r0's uplink1; the model numbers spine ports leaf by leaf:
    // leaf index (unit 1 × 2 rails + rail 0) = 2 → spine1/port2.
    expect(hopsFromTrace(names, path)).toEqual({ uplink: "unit0/leaf0/uplink1", spinePort: "spine1/port2" });
  });

  test("a path inside one leaf crosses nothing; a path that is not leaf → spine → leaf is said so", () => {
    const names = ibNames(wiring, found);
    if (typeof names === "string") throw new Error(names);
    const hop = (name: string, inPort: number, outPort: number) => ({ guid: "1", name, lid: 1, inPort, outPort });
    const end = { kind: "ca", guid: "2", lid: 101, desc: "" };
    expect(hopsFromTrace(names, { from: end, to: end, hops: [hop("su0-leaf-r0", 1, 2)] })).toEqual({
      uplink: null,
      spinePort: null,
    });
    expect(
      hopsFromTrace(names, { from: end, to: end, hops: [hop("su0-leaf-r0", 1, 33), hop("spine-1", 1, 2)] }),
    ).toMatch(/2 switch\(es\) \(su0-leaf-r0 → spine-1\) is not leaf → spine → leaf/);
  });
});

test("an HCA whose description names no host (an adapter's factory text) is listed as not found, not guessed from", () => {
  const text = [
    "CA   101  1 0x0002c90300b0a001 4x NDR - SW    11  1 0x0002c90300a00000 ( 'gpu-a mlx5_0' - 'su0-leaf-r0' )",
    "CA   107  1 0x0002c90300b0f001 4x NDR - SW    11  2 0x0002c90300a00000 ( 'HCA-1' - 'su0-leaf-r0' )",
    "CA   108  1 0x0002c90300b0e001 4x NDR - SW    11  3 0x0002c90300a00000 ( 'Dual-port adapter card 7' - 'su0-leaf-r0' )",
  ].join("\n");
  const links = parseIbnetdiscover(text, "p.txt");
  if (typeof links === "string") throw new Error(links);
  const w = wiringFromLinks(links);
  expect(w.hcas.map((h) => h.host)).toEqual(["gpu-a"]);
  expect(w.notFound).toEqual([
    'HCA 0x2c90300b0f001 port 1 (on su0-leaf-r0 port 2) is described as "HCA-1", not "<host> <device>": it is left out; run rdma-ndd on its host so that its description names it.',
    'HCA 0x2c90300b0e001 port 1 (on su0-leaf-r0 port 3) is described as "Dual-port adapter card 7", not "<host> <device>": it is left out; run rdma-ndd on its host so that its description names it.',
    "leaf su0-leaf-r0 shows no uplink to a spine: its nodes reach no other leaf in this wiring.",
  ]);
});

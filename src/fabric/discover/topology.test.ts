import { describe, expect, test } from "vitest";
import { parseTopologyFile } from "../topology-file.js";
import { discoverTopology, leavesFromUnits } from "./topology.js";

const nodes = [
  { name: "gpu-a1", labels: { "network.topology/leaf": "leaf-1", "topology.kubernetes.io/zone": "z1" } },
  { name: "gpu-a2", labels: { "network.topology/leaf": "leaf-1", "topology.kubernetes.io/zone": "z1" } },
  { name: "gpu-b1", labels: { "network.topology/leaf": "leaf-2", "topology.kubernetes.io/zone": "z1", rack: "r9" } },
];

describe("fleet bench topology: which leaf each node hangs off", () => {
  test("every node labelled network.topology/leaf → leaves from the label", () => {
    const t = discoverTopology(nodes);
    expect([...t.leafOf]).toEqual([
      ["gpu-a1", "leaf-1"],
      ["gpu-a2", "leaf-1"],
      ["gpu-b1", "leaf-2"],
    ]);
    expect(t.source).toBe("node label network.topology/leaf");
  });

  test("Volcano HyperNodes (exact name, regex, labels) win over labels; the lowest tier is the leaf", () => {
    const hyperNodes = [
      {
        metadata: { name: "spine-0" },
        spec: { tier: 2, members: [{ type: "HyperNode", selector: { exactMatch: { name: "s0" } } }] },
      },
      {
        metadata: { name: "s0" },
        spec: { tier: 1, members: [{ type: "Node", selector: { regexMatch: { pattern: "gpu-a.*" } } }] },
      },
      {
        metadata: { name: "s1" },
        spec: { tier: 1, members: [{ type: "Node", selector: { labelMatch: { matchLabels: { rack: "r9" } } } }] },
      },
    ];
    const t = discoverTopology(nodes, { hyperNodes });
    expect(Object.fromEntries(t.leafOf)).toEqual({ "gpu-a1": "s0", "gpu-a2": "s0", "gpu-b1": "s1" });
    expect(t.source).toContain("HyperNodes");
  });

  test("HyperNodes that miss a node, and no label on every node → one leaf, said plainly", () => {
    const partial = [
      { metadata: { name: "s0" }, spec: { tier: 1, members: [{ selector: { exactMatch: { name: "gpu-a1" } } }] } },
    ];
    const bare = nodes.map((n) => ({ name: n.name, labels: {} }));
    const t = discoverTopology(bare, { hyperNodes: partial });
    expect(new Set(t.leafOf.values())).toEqual(new Set(["fabric"]));
    expect(t.source).toMatch(/^unknown/);
    expect(discoverTopology(nodes, { leafLabel: "rack" }).source).toMatch(/^unknown/);
  });
});

describe("units from a topology file's unitNodes (what fleet topology discovered)", () => {
  test("each unit one leaf group, named so that they sort in the file's order past ten units; unselected nodes left out", () => {
    const units = Array.from({ length: 12 }, (_, u) => [`gpu-u${u}a`, `gpu-u${u}b`]);
    const selected = units.slice(0, 11).map((u) => ({ name: u[0]!, labels: {} }));
    const t = leavesFromUnits(units, selected);
    if (typeof t === "string") throw new Error(t);
    const groups = [...new Set(t.leafOf.values())];
    expect([...groups].sort()).toEqual(groups);
    expect(t.leafOf.get("gpu-u10a")).toBe("unit10");
    expect(t.leafOf.get("gpu-u2a")).toBe("unit02");
    expect(t.leafOf.size).toBe(11);
  });

  test("a selected node the file does not list: a message naming it and what to do", () => {
    const t = leavesFromUnits([["gpu-a1", "gpu-a2"]], nodes);
    expect(t).toMatch(/do not list 1 selected node\(s\) \(gpu-b1\).*fleet topology/);
  });

  test("unitNodes that are not lists of names, name a node twice, or disagree with units: refused, saying what was expected", () => {
    expect(parseTopologyFile("layout: flat\nunitNodes: [gpu-1, gpu-2]\n", "t.yaml")).toMatch(
      /unitNodes should list each unit's node names/,
    );
    expect(parseTopologyFile("layout: flat\nunitNodes: [[a, b], [b]]\n", "t.yaml")).toMatch(/names b in two units/);
    expect(parseTopologyFile("layout: flat\nunits: 3\nunitNodes: [[a], [b]]\n", "t.yaml")).toMatch(
      /units says 3 but unitNodes lists 2/,
    );
    expect(parseTopologyFile("layout: flat\nunits: 2\nunitNodes: [[a], [b]]\n", "t.yaml")).toEqual({
      layout: "flat",
      units: 2,
      unitNodes: [["a"], ["b"]],
    });
  });
});

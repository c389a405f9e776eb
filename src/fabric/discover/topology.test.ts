import { describe, expect, test } from "vitest";
import { discoverTopology } from "./topology.js";

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

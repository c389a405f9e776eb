import { describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { findExample } from "../examples/index.js";
import { SnapshotHostReader } from "../host/index.js";
import type { Snapshot } from "../host/types.js";
import { readInventory } from "../inventory/index.js";
import { analyseInventory } from "../kube/fleet/node-analyser.js";

const inventory = (s: Snapshot) => readInventory(new SnapshotHostReader(s, "test"));
const codes = (fs: { code: string; subject: string }[]) => fs.map((f) => `${f.code} ${f.subject}`);

// The agent judges counters by their growth since its previous run, not by totals since boot: node-problem-
// detector-style agents that alarm on lifetime totals raise the same alarm on every run of a node that had one bad
// moment at boot (their issue trackers are full of it).
describe("the agent judges error counters by their growth between runs", () => {
  test("counters that grew before the agent's previous run are not reported again", async () => {
    const before = await inventory(exampleSnapshot("port-errors"));
    const after = await inventory(exampleSnapshot("port-errors"));
    const lifetime = analyseInventory(after);
    expect(codes(lifetime.findings)).toContain("PORT_ERROR_COUNTERS mlx5_4");
    const deltas = analyseInventory(after, {
      earlier: { inventory: before, seconds: 300 },
      countersSinceEarlier: true,
    });
    expect(codes(deltas.findings)).not.toContain("PORT_ERROR_COUNTERS mlx5_4");
  });

  test("a link that went down between two runs is named with what grew and over how long", async () => {
    const e = findExample("port-flapping")!;
    const before = await inventory(e.snapshot());
    const after = await inventory(e.later!());
    const r = analyseInventory(after, { earlier: { inventory: before, seconds: 300 }, countersSinceEarlier: true });
    const f = r.findings.find((x) => x.code === "PORT_ERROR_COUNTERS");
    expect(f?.subject).toBe("mlx5_6");
    expect(f?.message).toMatch(/counted link errors: .*link_downed=2.* in the last 300 s/);
    expect(codes(r.findings)).toContain("PORT_FLAPPING mlx5_6");
  });
});

import { describe, expect, test } from "vitest";
import { type EvalRun, evaluate, INFINIBAND_SHAPE, REFERENCE_SCENARIO, totals } from "./eval.js";

describe("fleet bench on a rail-optimised fabric: what the rail-aware planner finds", () => {
  // Four random fleets (about 95 s on a shared 2-core machine); bench/fabric-eval.ts runs ten per oversubscription.
  const SEEDS = [11, 12, 13, 14];

  test("1,024 nodes (4 units × 256 × 8 rails, 2:1), 10 bad nodes, 2 bad NICs, 2 bad uplinks, 1 bad spine port, 3 % noise: nodes and NICs all found, ≥ 90 % of uplinks and spine ports, ≥ 98 % precision, ≤ 6 rounds", async () => {
    const runs: EvalRun[] = [];
    for (const seed of SEEDS) runs.push(await evaluate({ ...REFERENCE_SCENARIO, seed }));
    const t = totals(runs);
    expect(t.nodes.planted).toBe(10 * SEEDS.length);
    expect(t.rails.planted).toBe(2 * SEEDS.length);
    expect(t.nodes.recall).toBe(1);
    expect(t.rails.recall).toBe(1);
    expect(t.uplinks.recall).toBeGreaterThanOrEqual(0.9);
    expect(t.spinePorts.recall).toBeGreaterThanOrEqual(0.9);
    for (const k of ["nodes", "rails", "uplinks", "spinePorts"] as const)
      expect(t[k].precision, `${k} precision`).toBeGreaterThanOrEqual(0.98);
    expect(t.links.falsePositives).toBe(0);
    for (const r of runs) expect(r.rounds).toBeLessThanOrEqual(6);
  }, 300_000);

  test("a planner that assumes a flat fabric (one leaf per unit) does worse on the same fleets: it cannot name an uplink or a spine port, and its cross-unit round 1 congests hashed uplinks into blame", async () => {
    const seed = SEEDS[0]!;
    const rail = totals([await evaluate({ ...REFERENCE_SCENARIO, seed })]);
    const flat = totals([await evaluate({ ...REFERENCE_SCENARIO, seed }, "flat")]);
    expect(flat.uplinks.truePositives + flat.spinePorts.truePositives).toBe(0);
    expect(rail.uplinks.truePositives + rail.spinePorts.truePositives).toBe(3);
    const wrong = (x: typeof flat) => x.nodes.falsePositives + x.rails.falsePositives + x.links.falsePositives;
    expect(wrong(flat)).toBeGreaterThan(wrong(rail));
  }, 180_000);

  test("on InfiniBand the planner traces every flow from the forwarding tables as dump_lfts.sh prints them (no hash, no steering): 256 nodes (4 units × 64 × 4 rails), the planted node, NIC, uplink and spine port found and nothing else named", async () => {
    const r = await evaluate({
      ...INFINIBAND_SHAPE,
      units: 4,
      nodes: 256,
      rails: 4,
      oversubscription: 2,
      badNodes: 2,
      badRails: 1,
      badUplinks: 1,
      badSpinePorts: 1,
      noise: 0.03,
      seed: 3,
      infiniband: true,
    });
    const t = totals([r]);
    for (const k of ["nodes", "rails", "uplinks", "spinePorts"] as const) {
      expect(t[k].recall, `${k} recall`).toBe(1);
      expect(t[k].falsePositives, `${k} named wrongly`).toBe(0);
    }
    expect(r.plantedNotCleared).toBe(0);
  }, 120_000);
});

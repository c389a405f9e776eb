import { describe, expect, test } from "vitest";
import { buildRailFabric } from "../model.js";
import { JOB_START_SECONDS, sweepSeconds } from "../timing.js";
import { DEFAULT_PAIR_SWEEP, DEFAULT_RAIL_SWEEP, expectedBusBw, type FabricView } from "../types.js";
import { estimateRailBudget } from "./budget.js";

describe("the rail-aware budget", () => {
  const view = (nodes: readonly string[]): FabricView => ({
    nodes,
    leafOf: new Map(),
    hcas: Array.from({ length: 8 }, (_, i) => `mlx5_${i}`),
    lineRateGBps: 50,
  });
  const budget = (oversubscription: number) => {
    const f = buildRailFabric({ nodes: 1024, units: 4, rails: 8, oversubscription, lineRateGBps: 50 });
    return estimateRailBudget(view(f.nodes), f, { pairSweep: DEFAULT_PAIR_SWEEP, railSweep: DEFAULT_RAIL_SWEEP });
  };

  test("a further round = four waves: two crossing suspects alone + two group waves, or four group waves where the NIC picks the ports", () => {
    const v = view([]);
    const job = (gbps: number) => JOB_START_SECONDS.max + sweepSeconds(DEFAULT_RAIL_SWEEP, gbps, 2);
    const rail = expectedBusBw(v, "rail");
    // 4:1: a group wave's flows get a quarter of line rate, slower than a re-test at half: four group waves.
    expect(budget(4).extraRoundSeconds).toBeCloseTo(4 * job(rail / 4), 0);
    // 1:1: the re-test at half rate is the slower of the two.
    expect(budget(1).extraRoundSeconds).toBeCloseTo(4 * job(rail / 2), 0);
    expect(budget(2).assumptions.join("\n")).toMatch(/group tests of every good node/);
  });
});

describe("the rail-aware budget where nothing traces a flow's path", () => {
  test("counts no sweep waves: round 2 is one wave of re-tests, and so is each further round", () => {
    const f = buildRailFabric({ nodes: 64, units: 4, rails: 4, oversubscription: 2, lineRateGBps: 50 });
    const v: FabricView = { nodes: f.nodes, leafOf: new Map(), hcas: ["a", "b", "c", "d"], lineRateGBps: 50 };
    const o = { pairSweep: DEFAULT_PAIR_SWEEP, railSweep: DEFAULT_RAIL_SWEEP };
    const traced = estimateRailBudget(v, f, o);
    const untraced = estimateRailBudget(v, f, { ...o, spineTests: false });
    expect(traced.rounds[1]!.waves).toBeGreaterThan(1);
    expect(untraced.rounds[1]).toMatchObject({ round: "2 (re-tests)", waves: 1 });
    const slowRail = JOB_START_SECONDS.max + sweepSeconds(DEFAULT_RAIL_SWEEP, expectedBusBw(v, "rail") / 2, 2);
    expect(untraced.extraRoundSeconds).toBeCloseTo(slowRail, 0);
    expect(untraced.seconds).toBeLessThan(traced.seconds);
    expect(untraced.assumptions.join("\n")).toMatch(/no sweep waves/);
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { createPlanner, firstRound, type PlanName } from "../plan/flat.js";
import { simulateFleet } from "../simulate/flat.js";
import { DEFAULT_PAIR_SWEEP, DEFAULT_RAIL_SWEEP } from "../types.js";
import { estimateBudget } from "./budget.js";
import { buildBenchReport } from "./report.js";
import { runFleetBench } from "./run-bench.js";
import { scoreFound } from "./score.js";

async function simulate(nodes: number, seed: number, plan: PlanName = "adaptive", faults = {}) {
  const sim = simulateFleet({
    nodes,
    badNodes: Math.round(nodes / 100),
    badLinks: 2,
    badRails: 1,
    noise: 0.03,
    seed,
    ...faults,
  });
  const opts = { plan, concurrency: 512, gpusPerNode: 8, pairSweep: DEFAULT_PAIR_SWEEP, railSweep: DEFAULT_RAIL_SWEEP };
  const budget = estimateBudget(sim.view, opts);
  const run = await runFleetBench(sim.view, createPlanner(plan, sim.view), sim.measure, {
    maxRounds: plan === "pairs" ? Number.POSITIVE_INFINITY : 5,
    concurrency: 512,
  });
  const report = buildBenchReport(sim.view, run, plan, budget);
  return { sim, run, report, budget, score: scoreFound(report.found, sim.truth) };
}

describe("fleet bench on the simulator: the planted faults found in a handful of rounds", () => {
  test("1,024 nodes, 1 % bad nodes + 2 bad leaf uplinks + 1 bad rail + 3 % noise, 20 fleets: every fault found, nothing else, ≤ 5 rounds, budget within 20 %", async () => {
    const totals = { nodes: [0, 0, 0], rails: [0, 0, 0], links: [0, 0, 0] }; // found right, found wrong, planted
    for (let seed = 1; seed <= 20; seed++) {
      const { sim, run, budget, score } = await simulate(1024, seed);
      for (const kind of ["nodes", "rails", "links"] as const) {
        totals[kind][0]! += score[kind].truePositives;
        totals[kind][1]! += score[kind].falsePositives.length;
        totals[kind][2]! += sim.truth[kind].length;
        expect(score[kind].missed, `seed ${seed}: ${kind} missed`).toEqual([]);
      }
      expect(run.rounds.length).toBeLessThanOrEqual(5);
      expect(Math.abs(budget.seconds - run.seconds) / run.seconds, `seed ${seed}: budget vs wall`).toBeLessThanOrEqual(
        0.2,
      );
    }
    for (const kind of ["nodes", "rails", "links"] as const) {
      const [right = 0, wrong = 0, planted = 0] = totals[kind];
      expect(right / planted, `${kind} recall`).toBe(1);
      expect(right / (right + wrong), `${kind} precision`).toBeGreaterThanOrEqual(0.99);
    }
    expect(totals.nodes[2]).toBe(200);
  });

  test("the same fleet under `pairs` (the circle method): n−1 rounds, n(n−1)/2 jobs; a bad rail can only be named as its node", async () => {
    const { run, report, sim } = await simulate(64, 3, "pairs", { badNodes: 1, badRails: 1, badLinks: 0 });
    expect(run.rounds).toHaveLength(63);
    expect(run.jobs).toBe((64 * 63) / 2);
    const railNode = sim.truth.rails[0]!.split("/")[0]!;
    expect(report.found.nodes.sort()).toEqual([...sim.truth.nodes, railNode].sort());
    expect(report.found.rails).toEqual([]);
  });

  test("a healthy fleet: one round, no finding, exit-worthy nothing", async () => {
    const { run, report } = await simulate(256, 4, "adaptive", { badNodes: 0, badLinks: 0, badRails: 0 });
    expect(run.rounds).toHaveLength(1);
    expect(report.findings).toEqual([]);
  });

  test("round 1 meets every node once; a leaf's crossing nodes meet many different leaves", () => {
    const sim = simulateFleet({ nodes: 1024, seed: 1 });
    const pairs = firstRound(sim.view);
    const nodes = pairs.flatMap(([a, b]) => [a, b] as const);
    expect(new Set(nodes).size).toBe(1024);
    const leaf = (n: string) => sim.view.leafOf.get(n)!;
    const partnersOfLeaf1 = new Set(
      pairs
        .filter(([a, b]) => leaf(a) !== leaf(b) && [leaf(a), leaf(b)].includes("leaf-01"))
        .map(([a, b]) => (leaf(a) === "leaf-01" ? leaf(b) : leaf(a))),
    );
    expect(partnersOfLeaf1.size).toBeGreaterThanOrEqual(10);
  });

  test("every round's jobs share no node", async () => {
    const { run } = await simulate(512, 9);
    for (const r of run.rounds) {
      const nodes = run.results.filter((x) => x.job.round === r.round).flatMap((x) => x.job.nodes);
      expect(new Set(nodes).size).toBe(nodes.length);
    }
  });

  test("the planner and the diagnosis cannot read the planted faults: none of their modules imports the simulator", () => {
    for (const file of ["../plan/flat.ts", "diagnose.ts", "evidence.ts", "run-bench.ts", "report.ts", "budget.ts"]) {
      const text = readFileSync(new URL(file, import.meta.url), "utf8");
      expect(text, file).not.toMatch(/from "[./]*(simulate\/[^"]*|score)\.js"/);
    }
  });
});

/**
 * One evaluation run: a simulated rail-optimised fleet with planted faults, a planner against its oracle, and the
 * found faults scored against the truth per kind. The planner sees the fabric's shape and the oracle only; the
 * truth is read here, after the run, by the scorer. Used by the evaluation test and bench/fabric-eval.ts.
 */
import { adaptivePlanner } from "../nccl/fleet-bench/plan.js";
import { foundOf } from "../nccl/fleet-bench/report.js";
import { runFleetBench } from "../nccl/fleet-bench/run-bench.js";
import { createRailPlanner } from "./plan/planner.js";
import { type FabricFound, fabricFound, runRailBench } from "./plan/run.js";
import type { FabricTruth } from "./simulate/faults.js";
import { type RailSimulationOptions, simulateRailFleet } from "./simulate/fleet.js";

export const FAULT_KINDS = ["nodes", "rails", "uplinks", "spinePorts", "links"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export type KindCount = { truePositives: number; falsePositives: number; planted: number };
export type EvalRun = { rounds: number; jobs: number; seconds: number; counts: Record<FaultKind, KindCount> };

export function scoreFabric(found: FabricFound, truth: FabricTruth): Record<FaultKind, KindCount> {
  const out = {} as Record<FaultKind, KindCount>;
  for (const k of FAULT_KINDS) {
    const t = new Set(truth[k]);
    const tp = found[k].filter((x) => t.has(x)).length;
    out[k] = { truePositives: tp, falsePositives: found[k].length - tp, planted: truth[k].length };
  }
  return out;
}

/** `rail-aware`: the planner of src/fabric/plan. `flat`: the leaf-per-group planner, told each unit is one leaf. */
export async function evaluate(
  o: RailSimulationOptions,
  planner: "rail-aware" | "flat" = "rail-aware",
): Promise<EvalRun> {
  const sim = simulateRailFleet(o);
  if (planner === "flat") {
    const run = await runFleetBench(sim.view, adaptivePlanner(sim.view, o.seed), sim.oracle.measure, {
      maxRounds: 6,
      concurrency: sim.view.nodes.length,
    });
    const found = fabricFound(sim.view, foundOf(run.diagnosis.verdicts), null);
    return { rounds: run.rounds.length, jobs: run.jobs, seconds: run.seconds, counts: scoreFabric(found, sim.truth) };
  }
  const p = createRailPlanner(sim.view, sim.fabric, sim.oracle.trace, o.seed === undefined ? {} : { seed: o.seed });
  const run = await runRailBench(p, sim.oracle.measure, { maxRounds: 6 });
  const found = fabricFound(sim.view, foundOf(run.diagnosis.verdicts), run.state.spine);
  return { rounds: run.rounds.length, jobs: run.jobs, seconds: run.seconds, counts: scoreFabric(found, sim.truth) };
}

/** Sums per kind over runs; recall and precision (NaN when nothing was planted / found). */
export function totals(runs: readonly EvalRun[]): Record<FaultKind, KindCount & { recall: number; precision: number }> {
  const out = {} as Record<FaultKind, KindCount & { recall: number; precision: number }>;
  for (const k of FAULT_KINDS) {
    const tp = runs.reduce((s, r) => s + r.counts[k].truePositives, 0);
    const fp = runs.reduce((s, r) => s + r.counts[k].falsePositives, 0);
    const planted = runs.reduce((s, r) => s + r.counts[k].planted, 0);
    out[k] = { truePositives: tp, falsePositives: fp, planted, recall: tp / planted, precision: tp / (tp + fp) };
  }
  return out;
}

/** The scenario: 4 units × 256 nodes × 8 rails, 10 bad nodes, 2 bad NICs, 2 bad uplinks, 1 bad spine port. */
export const REFERENCE_SCENARIO = {
  nodes: 1024,
  units: 4,
  rails: 8,
  oversubscription: 2,
  badNodes: 10,
  badRails: 2,
  badUplinks: 2,
  badSpinePorts: 1,
  noise: 0.03,
} as const satisfies RailSimulationOptions;

/**
 * A `fleet bench` result as the command builds it, from the fabric simulator, with some jobs made to fail and some
 * names replaced everywhere they occur (a node called `<script>…`), for the HTML page's tests.
 */
import {
  buildBenchReport,
  createPlanner,
  DEFAULT_PAIR_SWEEP,
  DEFAULT_RAIL_SWEEP,
  estimateBudget,
  type JobResult,
  runFleetBench,
  simulateFleet,
} from "../../src/fabric/index.js";
import { type FleetBenchResult, firstRoundPairs } from "../../src/report/kinds/fleet-bench.js";

export type SimulatedBench = {
  nodes: number;
  leafSize: number;
  badNodes?: number;
  badRails?: number;
  seed?: number;
  /** Round-1 jobs (by id) that end without a result, as a job that never scheduled does. */
  fail?: readonly string[];
  /** Names to replace in the whole result (node names appear in subjects, messages and fixes). */
  rename?: Record<string, string>;
};

/**
 * The story the HTML tests tell: 24 nodes in leaves of 8, gpu-23 bad, a bad rail (mlx5_4 of gpu-21), and round 1's
 * job r1-3 (gpu-12 ↔ gpu-13) never scheduled.
 */
export const TWENTY_FOUR_NODES_ONE_BAD: SimulatedBench = {
  nodes: 24,
  leafSize: 8,
  badNodes: 1,
  badRails: 1,
  seed: 3,
  fail: ["r1-3"],
};

export async function simulatedBenchResult(o: SimulatedBench): Promise<FleetBenchResult> {
  const sim = simulateFleet({
    nodes: o.nodes,
    leafSize: o.leafSize,
    badNodes: o.badNodes ?? 0,
    badRails: o.badRails ?? 0,
    noise: 0.03,
    seed: o.seed ?? 1,
  });
  const failing = new Set(o.fail ?? []);
  const measure = async (jobs: Parameters<typeof sim.measure>[0]): Promise<JobResult[]> =>
    (await sim.measure(jobs)).map((r) =>
      failing.has(r.job.id) ? { job: r.job, ok: false, seconds: 900, reason: "never scheduled within 900 s" } : r,
    );
  const budget = estimateBudget(sim.view, {
    plan: "adaptive",
    concurrency: 256,
    gpusPerNode: 8,
    pairSweep: DEFAULT_PAIR_SWEEP,
    railSweep: DEFAULT_RAIL_SWEEP,
  });
  const run = await runFleetBench(sim.view, createPlanner("adaptive", sim.view), measure, {
    maxRounds: 5,
    concurrency: 256,
  });
  const { nodes, rails, links, flapping } = sim.truth;
  const result: FleetBenchResult = {
    report: buildBenchReport(sim.view, run, "adaptive", budget),
    firstRound: firstRoundPairs(run.results),
    simulated: { nodes, rails, links, flapping },
  };
  let json = JSON.stringify(result);
  for (const [from, to] of Object.entries(o.rename ?? {})) {
    json = json.replaceAll(from, JSON.stringify(to).slice(1, -1));
  }
  return JSON.parse(json) as FleetBenchResult;
}

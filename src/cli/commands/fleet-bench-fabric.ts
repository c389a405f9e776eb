/**
 * `fleet bench --simulate N --topology rail-optimised|FILE`: the rail-aware planner against the fabric simulator.
 * The planner gets the fabric's shape and the oracle (measure, trace); the planted truth goes only to the report.
 */

import { DEFAULT_PAIR_SWEEP, DEFAULT_RAIL_SWEEP, renderBudget } from "../../fabric/index.js";
import { railFabricProblem } from "../../fabric/model.js";
import { estimateRailBudget } from "../../fabric/plan/budget.js";
import { createRailPlanner } from "../../fabric/plan/planner.js";
import { buildRailReport } from "../../fabric/plan/report.js";
import { runRailBench } from "../../fabric/plan/run.js";
import { NODE_MODELS } from "../../fabric/rail-nics.js";
import { faultCountProblem } from "../../fabric/simulate/faults.js";
import { simulateRailFleet } from "../../fabric/simulate/fleet.js";
import { parseTopologyFile, type TopologyFile } from "../../fabric/topology-file.js";
import { FLEET_BENCH_REPORT, firstRoundPairs } from "../../report/kinds/fleet-bench.js";
import { renderReport } from "../../report/registry.js";
import { readTextCapped } from "../input.js";
import { type CommandContext, num, str, UsageError } from "../spec.js";

const EXAMPLE =
  "kube-rdma fleet bench --simulate 1024 --topology rail-optimised --units 4 --rails 8 --oversubscription 2 --bad-uplinks 2";

/** Most rounds a rail-aware run takes unless --max-rounds says otherwise. */
export const DEFAULT_RAIL_MAX_ROUNDS = 6;

/** `flat`, `rail-optimised`, or a YAML file describing the fabric (src/fabric/topology-file.ts). */
export async function readTopology(value: string, ctx?: CommandContext): Promise<TopologyFile> {
  if (value === "flat" || value === "rail-optimised") return { layout: value };
  if (!ctx) throw new UsageError(`--topology expects flat, rail-optimised or a YAML file; got ${value}.`, EXAMPLE);
  const text = await readTextCapped(value, ctx.io, 64 * 1024, EXAMPLE).catch((e: unknown) => {
    if (e instanceof UsageError) throw e;
    throw new UsageError(
      `--topology expects flat, rail-optimised or a readable YAML file; ${value}: ${(e as Error).message}.`,
      EXAMPLE,
    );
  });
  const parsed = parseTopologyFile(text, value);
  if (typeof parsed === "string") throw new UsageError(parsed, EXAMPLE);
  return parsed;
}

function whole(ctx: CommandContext, name: string, fallback: number, min = 0): number {
  const v = num(ctx.values, name) ?? fallback;
  if (!Number.isInteger(v) || v < min)
    throw new UsageError(`--${name} expects a whole number ≥ ${min}; got ${v}.`, EXAMPLE);
  return v;
}

export async function simulateRailBench(ctx: CommandContext, nodes: number, t: TopologyFile): Promise<number> {
  const { values, io } = ctx;
  if ((num(values, "bad-links") ?? 0) !== 0)
    throw new UsageError(
      "--bad-links plants a bad leaf uplink of a flat fabric; a rail-optimised one names the part: --bad-uplinks K (leaf uplink ports) and --bad-spine-ports K.",
      EXAMPLE,
    );
  const noise = num(values, "noise") ?? 0.03;
  if (!(noise >= 0 && noise < 0.5))
    throw new UsageError(`--noise expects a fraction from 0 to 0.5, like 0.03; got ${noise}.`, EXAMPLE);
  const spines = num(values, "spines") ?? t.spines;
  const spec = {
    nodes,
    units: num(values, "units") ?? t.units ?? 4,
    rails: num(values, "rails") ?? t.rails ?? 8,
    oversubscription: num(values, "oversubscription") ?? t.oversubscription ?? 2,
    lineRateGBps: t.lineRateGBps ?? num(values, "line-rate") ?? 25,
    ...(spines !== undefined ? { spines } : {}),
  };
  const problem = railFabricProblem(spec);
  if (problem) throw new UsageError(problem, EXAMPLE);
  const nodeModel = str(values, "node-model") ?? t.nodeModel ?? "dgx-h100";
  if (!(nodeModel in NODE_MODELS))
    throw new UsageError(
      `--node-model expects one of ${Object.keys(NODE_MODELS).join(", ")}; got ${nodeModel}.`,
      EXAMPLE,
    );
  const counts = {
    badNodes: whole(ctx, "bad-nodes", 0),
    badRails: whole(ctx, "bad-rails", 0),
    badUplinks: whole(ctx, "bad-uplinks", 0),
    badSpinePorts: whole(ctx, "bad-spine-ports", 0),
    flapping: whole(ctx, "flapping", 0),
  };
  const seed = whole(ctx, "seed", 1);
  let sim: ReturnType<typeof simulateRailFleet>;
  try {
    sim = simulateRailFleet({ ...spec, ...counts, nodeModel, noise, seed });
  } catch (e) {
    throw new UsageError((e as Error).message, EXAMPLE);
  }
  const fabricProblem = faultCountProblem(sim.fabric, counts);
  if (fabricProblem) throw new UsageError(fabricProblem, EXAMPLE);
  const maxRounds = whole(ctx, "max-rounds", DEFAULT_RAIL_MAX_ROUNDS, 1);
  const budget = estimateRailBudget(sim.view, sim.fabric, {
    pairSweep: DEFAULT_PAIR_SWEEP,
    railSweep: DEFAULT_RAIL_SWEEP,
    maxRounds,
  });
  const format = str(values, "output") ?? "text";
  if (format === "text") io.stdout(`${renderBudget(budget, nodes, "adaptive, rail-optimised")}\n`);
  const planner = createRailPlanner(sim.view, sim.fabric, sim.oracle.trace, {
    seed,
    tolerance: num(values, "tolerance") ?? 0.9,
  });
  const run = await runRailBench(planner, sim.oracle.measure, { maxRounds });
  const report = buildRailReport(sim.view, sim.fabric, run, budget);
  const result = { report, firstRound: firstRoundPairs(run.results), simulated: sim.truth };
  io.stdout(await renderReport(FLEET_BENCH_REPORT, result, format));
  return 0;
}

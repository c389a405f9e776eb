/**
 * `kube-rdma fleet bench`: find the slow node, rail or link of a fleet in a handful of rounds of 2-node nccl-tests
 * jobs — through the cluster, or against the fabric simulator with --simulate N.
 */

import {
  buildBenchReport,
  createPlanner,
  DEFAULT_FLEET_TOLERANCE,
  DEFAULT_PAIR_SWEEP,
  DEFAULT_RAIL_SWEEP,
  estimateBudget,
  type FabricView,
  PLANS,
  type PlanName,
  renderBudget,
  runFleetBench,
  simulateFleet,
} from "../../fabric/index.js";
import { NODE_MODELS } from "../../fabric/rail-nics.js";
import { FLEET_BENCH_REPORT, firstRoundPairs } from "../../report/kinds/fleet-bench.js";
import { renderReport } from "../../report/registry.js";
import { type CommandContext, num, type OptionSpec, type OptionValues, str, UsageError } from "../spec.js";
import { readTopology, simulateRailBench } from "./fleet-bench-fabric.js";
import { IB_ROUTE_OPTIONS, ibPathSource } from "./fleet-bench-ib.js";

export const DEFAULT_BENCH_CONCURRENCY = 256;
export const DEFAULT_MAX_ROUNDS = 5;

/** Options of `fleet bench` that `fleet verify` does not have (declared on the fleet command). */
export const FLEET_BENCH_OPTIONS: readonly OptionSpec[] = [
  {
    name: "plan",
    type: "string",
    valueName: "PLAN",
    choices: PLANS,
    default: "adaptive",
    description: "bench: adaptive (round 1 + re-tests of suspects) or pairs (every pair once, n−1 rounds)",
  },
  {
    name: "max-rounds",
    type: "number",
    valueName: "N",
    description: `bench: stop after N rounds (default ${DEFAULT_MAX_ROUNDS} for adaptive, all for pairs)`,
  },
  {
    name: "hcas",
    type: "strings",
    valueName: "LIST",
    description:
      "bench: the data HCA of each GPU, in GPU order (GPU i's rail test uses the i-th), read off `nvidia-smi topo -m` (the NIC at PIX to each GPU); default mlx5_1..mlx5_8",
  },
  {
    name: "gpus",
    type: "number",
    valueName: "G",
    description:
      "bench: GPUs per node, one rank each (default: on a cluster the fewest allocatable GPUs of the selected nodes; simulated 8)",
  },
  {
    name: "rdma-resource",
    type: "string",
    valueName: "NAME",
    description:
      "bench: the RDMA resource the jobs ask for (default: the one every selected node advertises, rdma/hca first)",
  },
  {
    name: "rdma-count",
    type: "number",
    valueName: "N",
    description:
      "bench: units of it per worker (default: one per HCA when a node has as many units as HCAs, else 1 of a shared pool)",
  },
  {
    name: "skip-driver-check",
    type: "boolean",
    description:
      "bench: run --image even if its CUDA release is newer than the nodes' driver (GPU Feature Discovery labels)",
  },
  {
    name: "line-rate",
    type: "number",
    valueName: "GBPS",
    default: 25,
    description: "bench: line rate of one HCA in GB/s (25 = 200 Gb/s)",
  },
  {
    name: "leaf-label",
    type: "string",
    valueName: "KEY",
    description: "bench: node label naming each node's leaf switch",
  },
  {
    name: "tolerance",
    type: "number",
    valueName: "F",
    default: DEFAULT_FLEET_TOLERANCE,
    description: "bench: slow below this fraction of the fleet median",
  },
  {
    name: "simulate",
    type: "number",
    valueName: "N",
    description: "bench: run against a simulated fleet of N nodes instead of the cluster",
  },
  { name: "bad-nodes", type: "number", valueName: "K", default: 0, description: "simulate: bad nodes to plant" },
  {
    name: "bad-rails",
    type: "number",
    valueName: "R",
    default: 0,
    description: "simulate: bad rails (one HCA on a node) to plant",
  },
  { name: "bad-links", type: "number", valueName: "L", default: 0, description: "simulate: bad leaf uplinks to plant" },
  {
    name: "flapping",
    type: "number",
    valueName: "F",
    default: 0,
    description: "simulate: rails that are slow in some runs",
  },
  {
    name: "noise",
    type: "number",
    valueName: "F",
    default: 0.03,
    description: "simulate: run-to-run noise (0.03 = 3 %)",
  },
  {
    name: "seed",
    type: "number",
    valueName: "S",
    default: 1,
    description: "simulate: which random fleet (the same number, the same fleet, faults and noise)",
  },
  { name: "leaf-size", type: "number", valueName: "N", default: 32, description: "simulate: nodes per leaf switch" },
  {
    name: "topology",
    type: "string",
    valueName: "T",
    default: "flat",
    description:
      "simulate: flat (one leaf per node group), rail-optimised (one leaf per rail per unit), or a YAML file",
  },
  { name: "units", type: "number", valueName: "U", description: "rail-optimised: scalable units (default 4)" },
  {
    name: "rails",
    type: "number",
    valueName: "R",
    description: "rail-optimised: NICs per node, leaves per unit (default 8)",
  },
  {
    name: "oversubscription",
    type: "number",
    valueName: "X",
    description: "rail-optimised: leaf downlink to uplink capacity (default 2, i.e. 2:1)",
  },
  { name: "spines", type: "number", valueName: "S", description: "rail-optimised: spine switches (default 8)" },
  {
    name: "node-model",
    type: "string",
    valueName: "M",
    description:
      "Which NIC each GPU uses, for rail tests and the rail-optimised simulation (dgx-h100: mlx5_0,3,4,5,6,9,10,11; the simulation's default)",
  },
  {
    name: "bad-uplinks",
    type: "number",
    valueName: "K",
    default: 0,
    description: "rail-optimised: bad leaf uplinks to plant",
  },
  {
    name: "bad-spine-ports",
    type: "number",
    valueName: "K",
    default: 0,
    description: "rail-optimised: bad spine ports to plant",
  },
  ...IB_ROUTE_OPTIONS,
];

function wholeAtLeast(values: OptionValues, name: string, min: number, fallback?: number): number {
  const v = num(values, name) ?? fallback;
  if (v === undefined || !Number.isInteger(v) || v < min) {
    throw new UsageError(`--${name} expects a whole number ≥ ${min}; got ${String(values[name])}.`);
  }
  return v;
}

export type BenchSettings = {
  plan: PlanName;
  maxRounds: number;
  concurrency: number;
  gpusPerNode: number;
  tolerance: number;
  hcas: string[];
  lineRateGBps: number;
};

/**
 * The NIC of each GPU's rail, in GPU order (rank i of a rail test runs on GPU i with NCCL_IB_HCA==hcas[i]): given
 * with --hcas, or a known node model's (--node-model dgx-h100), else mlx5_1..mlx5_8 (the A100 RoCE example node).
 */
function railHcas(values: OptionValues): string[] {
  const listed = Array.isArray(values.hcas) ? (values.hcas as string[]) : [];
  const model = str(values, "node-model");
  if (model !== undefined && listed.length > 0) {
    throw new UsageError(
      "--hcas and --node-model both say which NIC each GPU uses.",
      "Give one: --hcas in GPU order, or --node-model for a known node.",
    );
  }
  if (model !== undefined) {
    const known = NODE_MODELS[model];
    if (!known) {
      throw new UsageError(`--node-model expects one of ${Object.keys(NODE_MODELS).join(", ")}; got ${model}.`);
    }
    return [...known];
  }
  return listed.length ? listed : Array.from({ length: 8 }, (_, i) => `mlx5_${i + 1}`);
}

export function benchSettings(values: OptionValues): BenchSettings {
  const plan = (str(values, "plan") ?? "adaptive") as PlanName;
  const tolerance = num(values, "tolerance") ?? DEFAULT_FLEET_TOLERANCE;
  if (!(tolerance > 0 && tolerance < 1))
    throw new UsageError(`--tolerance expects a fraction in (0, 1), like 0.9; got ${tolerance}.`);
  const lineRateGBps = num(values, "line-rate") ?? 25;
  if (!(lineRateGBps > 0)) throw new UsageError(`--line-rate expects GB/s above 0; got ${lineRateGBps}.`);
  const hcas = railHcas(values);
  for (const h of hcas) {
    if (!/^[A-Za-z0-9_.-]+$/.test(h)) throw new UsageError(`--hcas expects HCA names like mlx5_1; got "${h}".`);
  }
  const twice = hcas.find((h, i) => hcas.indexOf(h) !== i);
  if (twice !== undefined) {
    // Each name is a rail: mlx5_1 twice doubled the expected bandwidth and ran its rail test twice.
    throw new UsageError(`--hcas lists ${twice} twice; name each data HCA (one per rail) once.`);
  }
  return {
    plan,
    maxRounds:
      num(values, "max-rounds") === undefined
        ? plan === "pairs"
          ? Number.POSITIVE_INFINITY
          : DEFAULT_MAX_ROUNDS
        : wholeAtLeast(values, "max-rounds", 1),
    concurrency: wholeAtLeast(values, "concurrency", 1, DEFAULT_BENCH_CONCURRENCY),
    gpusPerNode: wholeAtLeast(values, "gpus", 1, 8),
    tolerance,
    hcas,
    lineRateGBps,
  };
}

export function budgetFor(view: FabricView, s: BenchSettings) {
  return estimateBudget(view, {
    plan: s.plan,
    concurrency: s.concurrency,
    gpusPerNode: s.gpusPerNode,
    pairSweep: DEFAULT_PAIR_SWEEP,
    railSweep: DEFAULT_RAIL_SWEEP,
    ...(Number.isFinite(s.maxRounds) ? { maxRounds: s.maxRounds } : {}),
  });
}

/**
 * The simulator plants at most one slow or flapping rail per healthy node and one bad uplink per leaf, and a fabric
 * of one leaf has no uplink that any test crosses. Asking for more used to be clamped in silence, so the run
 * reported fewer faults than asked (or a planted uplink no test could see) and still said PASS.
 */
export function plantableFaults(
  nodes: number,
  leafSize: number,
  badNodes: number,
  asked: { badRails: number; badLinks: number; flapping: number },
): { badRails: number; badLinks: number; flapping: number } {
  const leaves = Math.ceil(nodes / leafSize);
  const example = "kube-rdma fleet bench --simulate 1024 --bad-links 2 --bad-rails 1";
  if (asked.badLinks > 0 && leaves < 2) {
    throw new UsageError(
      `--bad-links ${asked.badLinks}: the ${nodes} simulated nodes sit under one leaf switch (--leaf-size ${leafSize}), so no test crosses an uplink; give --leaf-size below ${nodes} or more nodes.`,
      example,
    );
  }
  if (asked.badLinks > leaves) {
    throw new UsageError(
      `--bad-links ${asked.badLinks} plants more bad uplinks than the ${leaves} leaf switches (${nodes} nodes, --leaf-size ${leafSize}) have; give at most ${leaves}.`,
      example,
    );
  }
  const healthy = nodes - badNodes;
  if (asked.badRails + asked.flapping > healthy) {
    throw new UsageError(
      `--bad-rails ${asked.badRails} and --flapping ${asked.flapping} plant one rail each on a node that is not bad; ` +
        `the simulation has ${healthy} such node(s) (${nodes} minus --bad-nodes ${badNodes}); give at most ${healthy} together.`,
      example,
    );
  }
  return asked;
}

async function simulateBench(ctx: CommandContext, nodes: number): Promise<number> {
  const { values, io } = ctx;
  if (!Number.isInteger(nodes) || nodes < 2 || nodes > 100_000) {
    throw new UsageError(`--simulate expects a number of nodes from 2 to 100000; got ${nodes}.`);
  }
  const topology = await readTopology(str(values, "topology") ?? "flat", ctx);
  if (topology.layout === "rail-optimised") return simulateRailBench(ctx, nodes, topology);
  const railOnly = ["bad-uplinks", "bad-spine-ports"].find((n) => (num(values, n) ?? 0) !== 0);
  if (railOnly) {
    throw new UsageError(
      `--${railOnly} plants a fault on a leaf uplink or spine port of a rail-optimised fabric: it needs --topology rail-optimised (a flat fabric plants leaf uplinks with --bad-links).`,
      "kube-rdma fleet bench --simulate 1024 --topology rail-optimised --bad-uplinks 2",
    );
  }
  const s = benchSettings(values);
  const count = (name: string) => wholeAtLeast(values, name, 0, 0);
  const noise = num(values, "noise") ?? 0.03;
  if (!(noise >= 0 && noise < 0.5))
    throw new UsageError(`--noise expects a fraction from 0 to 0.5, like 0.03; got ${noise}.`);
  const badNodes = count("bad-nodes");
  if (badNodes >= nodes) {
    // With every node bad there is no fast partner to compare with: the result would say nothing about the planner.
    throw new UsageError(
      `--bad-nodes ${badNodes} plants at least as many bad nodes as the ${nodes} simulated; give fewer than ${nodes}.`,
      "kube-rdma fleet bench --simulate 1024 --bad-nodes 10",
    );
  }
  const leafSize = wholeAtLeast(values, "leaf-size", 1, 32);
  const planted = plantableFaults(nodes, leafSize, badNodes, {
    badRails: count("bad-rails"),
    badLinks: count("bad-links"),
    flapping: count("flapping"),
  });
  const sim = simulateFleet({
    nodes,
    leafSize,
    rails: s.hcas.length,
    gpusPerNode: s.gpusPerNode,
    lineRateGBps: s.lineRateGBps,
    badNodes,
    ...planted,
    noise,
    seed: wholeAtLeast(values, "seed", 0, 1),
  });
  const view: FabricView = { ...sim.view, hcas: s.hcas };
  const budget = budgetFor(view, s);
  const format = str(values, "output") ?? "text";
  if (format === "text") io.stdout(`${renderBudget(budget, nodes, s.plan)}\n`);
  const run = await runFleetBench(view, createPlanner(s.plan, view), sim.measure, {
    maxRounds: s.maxRounds,
    concurrency: s.concurrency,
    tolerance: s.tolerance,
  });
  const report = buildBenchReport(view, run, s.plan, budget);
  const { nodes: plantedNodes, rails, links, flapping } = sim.truth;
  const result = {
    report,
    firstRound: firstRoundPairs(run.results),
    simulated: { nodes: plantedNodes, rails, links, flapping },
  };
  io.stdout(await renderReport(FLEET_BENCH_REPORT, result, format));
  return 0;
}

export async function fleetBench(ctx: CommandContext): Promise<number> {
  const simulate = num(ctx.values, "simulate");
  const ibOption = ["ib-wiring", "ib-routes"].find((n) => str(ctx.values, n) !== undefined);
  if (simulate !== undefined && ibOption)
    throw new UsageError(
      `--${ibOption} reads a real fabric's routes: it does not go with --simulate, whose fabric routes flows itself.`,
      "Drop --simulate to bench the cluster, or --ib-wiring/--ib-routes to simulate.",
    );
  if (simulate !== undefined) return simulateBench(ctx, simulate);
  const simOnly = ["bad-nodes", "bad-rails", "bad-links", "bad-uplinks", "bad-spine-ports", "flapping"].filter(
    (n) => (num(ctx.values, n) ?? 0) !== 0,
  );
  if (simOnly.length) {
    throw new UsageError(
      `--${simOnly[0]} plants faults in a simulated fleet: it needs --simulate N.`,
      "kube-rdma fleet bench --simulate 1024 --bad-nodes 10",
    );
  }
  const paths = await ibPathSource(ctx, benchSettings(ctx.values).hcas);
  const { runClusterBench } = await import("./fleet-bench-cluster.js");
  const code = await runClusterBench(ctx, paths);
  if (paths?.problems.total)
    ctx.io.stderr(
      `kube-rdma fleet bench: ${paths.problems.total} flow(s) could not be traced through the forwarding tables, so no test judged their hops:\n${paths.problems.first.map((p) => `  ${p}\n`).join("")}`,
    );
  return code;
}

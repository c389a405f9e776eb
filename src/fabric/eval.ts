/**
 * One evaluation run: a simulated rail-optimised fleet with planted faults, a planner against its oracle, and the
 * found faults scored against the truth per kind. The planner sees the fabric's shape and the oracle only; the
 * truth is read here, after the run, by the scorer. Used by the evaluation test and bench/fabric-eval.ts.
 */

import { foundOf } from "./bench/report.js";
import { runFleetBench } from "./bench/run-bench.js";
import { cableOf } from "./cables.js";
import { ibRoutesFromText } from "./discover/ib-routes.js";
import type { Flow, FlowPath } from "./model.js";
import { adaptivePlanner } from "./plan/flat.js";
import { createRailPlanner } from "./plan/planner.js";
import { type FabricFound, fabricFound, runRailBench } from "./plan/run.js";
import type { FabricTruth } from "./simulate/faults.js";
import { type RailSimulationOptions, simulateRailFleet } from "./simulate/fleet.js";
import { simulateInfinibandFleet } from "./simulate/ib-fabric.js";

/** Kinds scored: the five a finding names, and two subsets (load-only uplinks, down NICs) scored for recall. */
export const FAULT_KINDS = ["nodes", "rails", "uplinks", "spinePorts", "links", "loadOnly", "downNics"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export type KindCount = { truePositives: number; falsePositives: number; planted: number };
export type EvalRun = {
  rounds: number;
  jobs: number;
  seconds: number;
  counts: Record<FaultKind, KindCount>;
  /** Hops the run could not clear (reported as such), and how many planted faults sit among them. */
  notCleared: number;
  /** Of those, hops no traced flow ever crossed. */
  neverCrossed: number;
  plantedNotCleared: number;
  /** Leaves holding a hop not cleared, and of those whose paths are known, the least load their hops carried (%). */
  notClearedLeaves?: { leaves: number; pathsUnknown: number; provenPct: number[] };
};

/** Where a subset kind is found: load-only faults are uplinks, down NICs are NICs (rails). */
const FOUND_AS: Record<FaultKind, keyof FabricFound> = {
  nodes: "nodes",
  rails: "rails",
  uplinks: "uplinks",
  spinePorts: "spinePorts",
  links: "links",
  loadOnly: "uplinks",
  downNics: "rails",
};

/**
 * `cable`: where a bad cable slows both ways, the cable a leaf uplink or spine port is one end of (cables.ts); hops
 * are then scored by cable: a planted fault is found when either end of its cable is named (from the results alone
 * the two directions of one cable cannot be told apart, nor which end's optic failed), and a named hop is wrong when
 * its cable holds no planted fault (a clean cable named by both ends counts once per kind named).
 */
export function scoreFabric(
  found: FabricFound,
  truth: FabricTruth,
  cable?: (hop: string) => string,
): Record<FaultKind, KindCount> {
  const out = {} as Record<FaultKind, KindCount>;
  const hopKinds = new Set<keyof FabricFound>(["uplinks", "spinePorts"]);
  const namedCables = new Set(cable ? [...found.uplinks, ...found.spinePorts].map(cable) : []);
  const plantedCables = new Set(cable ? [...truth.uplinks, ...truth.spinePorts].map(cable) : []);
  for (const k of FAULT_KINDS) {
    const list = found[FOUND_AS[k]];
    if (cable && hopKinds.has(FOUND_AS[k])) {
      const tp = truth[k].filter((h) => namedCables.has(cable(h))).length;
      const wrong = new Set(list.map(cable).filter((c) => !plantedCables.has(c)));
      out[k] = { truePositives: tp, falsePositives: k === FOUND_AS[k] ? wrong.size : 0, planted: truth[k].length };
      continue;
    }
    const t = new Set(truth[k]);
    const tp = list.filter((x) => t.has(x)).length;
    // A subset's false positives are its parent kind's: counted there only.
    const fp = k === FOUND_AS[k] ? list.length - tp : 0;
    out[k] = { truePositives: tp, falsePositives: fp, planted: truth[k].length };
  }
  return out;
}

/**
 * `infiniband`: the fabric routes as a subnet manager's forwarding tables do (a destination LID leaves each switch by
 * one port, whatever the source port or QP), and the planner traces flows from the text those tables and the wiring
 * print as (`dump_lfts.sh`, `ibnetdiscover -p`), read by the reader `fleet bench --ib-routes --ib-wiring` runs.
 */
export type EvalOptions = RailSimulationOptions & { infiniband?: boolean };

/** The simulated fleet and the planner's trace: the hash calculator, or on InfiniBand the tables read from text. */
function simulate(o: EvalOptions): ReturnType<typeof simulateRailFleet> & { trace: (f: Flow) => FlowPath } {
  if (!o.infiniband) {
    const sim = simulateRailFleet(o);
    return { ...sim, trace: sim.oracle.trace };
  }
  const sim = simulateInfinibandFleet(o);
  const routes = ibRoutesFromText(
    { text: sim.ib.wiring, source: "ibnetdiscover.txt" },
    { text: sim.ib.lfts, source: "lfts.txt" },
    sim.view.hcas,
  );
  if ("message" in routes) throw new Error(`the simulated InfiniBand fabric's text did not read: ${routes.message}`);
  return { ...sim, trace: routes.trace };
}

/** `rail-aware`: the planner of src/fabric/plan. `flat`: the leaf-per-group planner, told each unit is one leaf. */
export async function evaluate(o: EvalOptions, planner: "rail-aware" | "flat" = "rail-aware"): Promise<EvalRun> {
  const sim = simulate(o);
  if (planner === "flat") {
    const run = await runFleetBench(sim.view, adaptivePlanner(sim.view, o.seed), sim.oracle.measure, {
      maxRounds: 6,
      concurrency: sim.view.nodes.length,
    });
    const found = fabricFound(sim.view, foundOf(run.diagnosis.verdicts), null);
    const counts = scoreFabric(found, sim.truth);
    return {
      rounds: run.rounds.length,
      jobs: run.jobs,
      seconds: run.seconds,
      counts,
      notCleared: 0,
      neverCrossed: 0,
      plantedNotCleared: 0,
    };
  }
  const p = createRailPlanner(sim.view, sim.fabric, sim.trace, o.seed === undefined ? {} : { seed: o.seed });
  const run = await runRailBench(p, sim.oracle.measure, { maxRounds: 6 });
  const found = fabricFound(sim.view, foundOf(run.diagnosis.verdicts), run.state.spine, run.state.downNics);
  const byCable = o.bothWays ? (h: string) => cableOf(sim.fabric, h) : undefined;
  const notCleared = new Set(run.state.spine.notCleared);
  const planted = [...sim.truth.uplinks, ...sim.truth.spinePorts].filter((h) => notCleared.has(h)).length;
  return {
    rounds: run.rounds.length,
    jobs: run.jobs,
    seconds: run.seconds,
    counts: scoreFabric(found, sim.truth, byCable),
    notCleared: notCleared.size,
    neverCrossed: [...notCleared].filter((h) => !run.state.spine.crossed.has(h)).length,
    plantedNotCleared: planted,
    notClearedLeaves: {
      leaves: run.state.spine.notClearedByLeaf.length,
      pathsUnknown: run.state.spine.notClearedByLeaf.filter((l) => l.pathsUnknown).length,
      provenPct: run.state.spine.notClearedByLeaf.filter((l) => !l.pathsUnknown).map((l) => l.provenPct),
    },
  };
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

/**
 * The reference scenario's 1,024 nodes shaped as a two-tier InfiniBand fabric can be: a switch port number is 8 bits,
 * so 256 nodes cannot hang off one leaf. 64 nodes and 32 uplinks per leaf (96 ports), 128 leaves on 32 spines of
 * 128 ports each (director-class spines).
 */
export const INFINIBAND_SHAPE = { units: 16, spines: 32 } as const satisfies Partial<RailSimulationOptions>;

/**
 * The realism switches the planner is scored under, one at a time, the combination the targets name (NIC-chosen
 * ports, 2 QPs, one leaf with a hash seed the calculator does not know) and all together (one leaf in eight).
 */
/** The combination the targets name: NIC-chosen ports, 2 QPs, one leaf with a hash seed the calculator does not know. */
const TARGET = { nicPorts: true, qpsPerConnection: 2, unknownSeedLeaves: 1 } as const;
/** Every realism switch at once (one leaf in eight hidden). */
const ALL_TOGETHER = {
  ...TARGET,
  unknownSeedLeaves: 4,
  noBarriers: true,
  loadOnlyUplinks: 1,
  downNics: 1,
  pfc: true,
} as const;

export const REALISM_VARIANTS: readonly { name: string; options: Partial<EvalOptions> }[] = [
  { name: "idealised (steerable ports, 1 QP, known hash seeds, barriers)", options: {} },
  { name: "NIC-chosen source ports", options: { nicPorts: true } },
  { name: "2 QPs per rail connection", options: { qpsPerConnection: 2 } },
  { name: "one leaf in eight with an unknown hash seed", options: { unknownSeedLeaves: 4 } },
  { name: "no wave barriers (start skew)", options: { noBarriers: true } },
  { name: "+1 load-only uplink", options: { loadOnlyUplinks: 1 } },
  { name: "+1 down NIC", options: { downNics: 1 } },
  { name: "PFC spreading", options: { pfc: true } },
  { name: "target: NIC ports + 2 QPs + one leaf with an unknown hash seed", options: TARGET },
  { name: "target, a bad cable slows both ways (scored by cable)", options: { ...TARGET, bothWays: true } },
  { name: "all together", options: ALL_TOGETHER },
  {
    name: "all together, a bad cable slows both ways (scored by cable)",
    options: { ...ALL_TOGETHER, bothWays: true },
  },
  {
    name: "InfiniBand (16 units × 64 nodes, 32 spines): paths from the switches' forwarding tables, read from text",
    options: { ...INFINIBAND_SHAPE, infiniband: true },
  },
  {
    name: "InfiniBand, 2 QPs, no wave barriers, +1 load-only uplink, +1 down NIC",
    options: {
      ...INFINIBAND_SHAPE,
      infiniband: true,
      qpsPerConnection: 2,
      noBarriers: true,
      loadOnlyUplinks: 1,
      downNics: 1,
    },
  },
];

/**
 * A simulated fabric: nodes × rails (HCAs) under leaf switches joined by spine uplinks, with planted faults — a bad
 * node (every rail slow), one bad rail on a node, a bad leaf uplink (every path out of that leaf slow), a flapping
 * rail (slow in some runs), and run-to-run noise — and the nccl-tests results a 2-node job would print. Pure and
 * seedable: 10,000 nodes in well under a second. The truth stays in here; callers get `measure` and a `view`.
 */

import { createRandom, type Random } from "../prng.js";
import { minOf } from "../stats.js";
import { busBwAt, JOB_START_SECONDS, sweepSeconds } from "../timing.js";
import {
  type BenchJob,
  DEFAULT_PAIR_SWEEP,
  DEFAULT_RAIL_SWEEP,
  type FabricView,
  type JobResult,
  type Measure,
  RING_EFFICIENCY,
  railSubject,
  type SweepSpec,
  sweepSizes,
  type TestResult,
  uplinkSubject,
} from "../types.js";

export type SimulationOptions = {
  nodes: number;
  /** Nodes under one leaf switch (default 32). */
  leafSize?: number;
  /** Data HCAs per node, one per rail (default 8). */
  rails?: number;
  /** Line rate of one HCA, GB/s (default 25: 200 Gb/s HDR). */
  lineRateGBps?: number;
  badNodes?: number;
  badRails?: number;
  /** Bad leaf uplinks. */
  badLinks?: number;
  /** Rails that are slow in some runs only. */
  flapping?: number;
  /** Run-to-run noise: standard deviation as a fraction of the bandwidth (0.03 = 3 %). */
  noise?: number;
  seed?: number;
  gpusPerNode?: number;
  pairSweep?: SweepSpec;
  railSweep?: SweepSpec;
};

/** The planted faults, by subject (`gpu-0007`, `gpu-0100/mlx5_3`, `leaf-04 uplink`). */
export type Truth = { nodes: string[]; rails: string[]; links: string[]; flapping: string[] };

export type SimulatedFleet = {
  view: FabricView;
  truth: Truth;
  measure: Measure;
  /** One job's result, at once (what `measure` does per job). */
  runJob: (job: BenchJob) => JobResult;
};

type Faults = {
  node: Map<string, number>;
  rail: Map<string, number>;
  uplink: Map<string, number>;
  flapping: Set<string>;
};

const pad = (i: number, width: number) => String(i).padStart(width, "0");

function plantFaults(
  view: FabricView,
  o: Required<Pick<SimulationOptions, "badNodes" | "badRails" | "badLinks" | "flapping">>,
  rnd: Random,
): Faults {
  const leaves = [...new Set(view.leafOf.values())];
  const badNodes = rnd.pick(view.nodes, Math.min(o.badNodes, view.nodes.length));
  const healthy = view.nodes.filter((n) => !badNodes.includes(n));
  const railNodes = rnd.pick(healthy, Math.min(o.badRails + o.flapping, healthy.length));
  const railOf = (_node: string) => view.hcas[rnd.int(view.hcas.length)]!;
  const faults: Faults = { node: new Map(), rail: new Map(), uplink: new Map(), flapping: new Set() };
  // Deep enough to matter: a node at 30–65 %, a rail at 25–50 % (x1 lanes, a 100G port), an uplink at 30–60 %.
  for (const n of badNodes) faults.node.set(n, 0.3 + 0.35 * rnd.next());
  for (const n of railNodes.slice(0, o.badRails)) faults.rail.set(railSubject(n, railOf(n)), 0.25 + 0.25 * rnd.next());
  for (const n of railNodes.slice(o.badRails)) faults.flapping.add(railSubject(n, railOf(n)));
  for (const leaf of rnd.pick(leaves, Math.min(o.badLinks, leaves.length)))
    faults.uplink.set(leaf, 0.3 + 0.3 * rnd.next());
  return faults;
}

export function simulateFleet(opts: SimulationOptions): SimulatedFleet {
  const n = opts.nodes;
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`a fleet needs at least 2 nodes; got ${n}`);
  const rnd = createRandom(opts.seed ?? 1);
  const leafSize = opts.leafSize ?? 32;
  const rails = opts.rails ?? 8;
  const gpus = opts.gpusPerNode ?? rails;
  const noise = opts.noise ?? 0;
  const width = String(n).length;
  const leafWidth = String(Math.ceil(n / leafSize)).length;
  const nodes = Array.from({ length: n }, (_, i) => `gpu-${pad(i + 1, width)}`);
  const leafOf = new Map(
    nodes.map((name, i) => [name, `leaf-${pad(Math.floor(i / leafSize) + 1, Math.max(2, leafWidth))}`]),
  );
  const view: FabricView = {
    nodes,
    leafOf,
    hcas: Array.from({ length: rails }, (_, i) => `mlx5_${i + 1}`),
    lineRateGBps: opts.lineRateGBps ?? 25,
  };
  const faults = plantFaults(
    view,
    {
      badNodes: opts.badNodes ?? 0,
      badRails: opts.badRails ?? 0,
      badLinks: opts.badLinks ?? 0,
      flapping: opts.flapping ?? 0,
    },
    rnd,
  );
  const pairSweep = opts.pairSweep ?? DEFAULT_PAIR_SWEEP;
  const railSweep = opts.railSweep ?? DEFAULT_RAIL_SWEEP;

  /** Fraction of line rate rail `hca` reaches between a and b in this run (flapping draws per run). */
  const railFactor = (a: string, b: string, hca: string, flaps: Map<string, number>) => {
    const path =
      leafOf.get(a) === leafOf.get(b)
        ? 1
        : Math.min(faults.uplink.get(leafOf.get(a)!) ?? 1, faults.uplink.get(leafOf.get(b)!) ?? 1);
    const side = (x: string) =>
      Math.min(faults.node.get(x) ?? 1, faults.rail.get(railSubject(x, hca)) ?? 1, flaps.get(railSubject(x, hca)) ?? 1);
    return Math.min(path, side(a), side(b));
  };
  const withNoise = (v: number, sd: number) => v * Math.max(0.05, 1 + sd * rnd.gauss());
  const rows = (peak: number, ranks: number, sweep: SweepSpec) =>
    sweepSizes(sweep).map((bytes) => ({ bytes, busbw: withNoise(busBwAt(bytes, peak, ranks), noise / 3) }));

  const run = (job: BenchJob): JobResult => {
    const [a, b] = job.nodes;
    const flaps = new Map<string, number>();
    for (const f of faults.flapping) flaps.set(f, rnd.next() < 0.4 ? 0.3 : 1);
    const start = JOB_START_SECONDS.min + (JOB_START_SECONDS.max - JOB_START_SECONDS.min) * rnd.next();
    const railRate = (hca: string) => view.lineRateGBps * RING_EFFICIENCY * railFactor(a, b, hca, flaps);
    if (job.kind === "pair") {
      // A ring over every rail waits for the slowest one: the pair runs at rails × the slowest rail.
      const peak = withNoise(rails * minOf(view.hcas.map(railRate)), noise);
      const tests: TestResult[] = [{ hca: null, rows: rows(peak, 2 * gpus, pairSweep) }];
      return { job, ok: true, seconds: start + sweepSeconds(pairSweep, peak, 2 * gpus), tests };
    }
    const tests = view.hcas.map((hca) => ({ hca, peak: withNoise(railRate(hca), noise) }));
    const slowest = Math.min(...tests.map((t) => t.peak));
    return {
      job,
      ok: true,
      seconds: start + sweepSeconds(railSweep, slowest, 2),
      tests: tests.map((t) => ({ hca: t.hca, rows: rows(t.peak, 2, railSweep) })),
    };
  };
  const truth: Truth = {
    nodes: [...faults.node.keys()].sort(),
    rails: [...faults.rail.keys()].sort(),
    links: [...faults.uplink.keys()].map(uplinkSubject).sort(),
    flapping: [...faults.flapping].sort(),
  };
  return { view, truth, measure: async (jobs) => jobs.map(run), runJob: run };
}

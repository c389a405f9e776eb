/**
 * A rail-optimised fabric simulated from its physics: every job's flows (one per rail and direction) cross the
 * links their switches hash them onto; flows that run at the same time share each link max-min fairly; a test's
 * bus bandwidth follows from its flows' rates. Congestion is not planted: it happens when two flows land on one
 * uplink. The planted faults stay in here; callers get the fabric description, the oracle and (for scoring only)
 * the truth. Imports nothing from any planner or diagnosis.
 */

import { buildRailFabric, type FabricOracle, type Flow, type RailFabric, unitIndex } from "../model.js";
import { createRandom, type Random } from "../prng.js";
import { railNics } from "../rail-nics.js";
import { minOf } from "../stats.js";
import { busBwAt, JOB_START_SECONDS, sweepSeconds } from "../timing.js";
import {
  type BenchJob,
  DEFAULT_PAIR_SWEEP,
  DEFAULT_RAIL_SWEEP,
  type FabricView,
  type JobResult,
  RING_EFFICIENCY,
  type SweepSpec,
  sweepSizes,
} from "../types.js";
import { maxMinRates } from "./fairshare.js";
import { type FabricTruth, type FaultCounts, plantFaults } from "./faults.js";
import { createRouter, fnv1a } from "./routing.js";

export type RailSimulationOptions = Partial<FaultCounts> & {
  nodes: number;
  units: number;
  rails: number;
  oversubscription: number;
  spines?: number;
  lineRateGBps?: number;
  /** Known node model (GPU → NIC), e.g. `dgx-h100`. */
  nodeModel?: string;
  /** Run-to-run noise, multiplicative: standard deviation as a fraction (0.03 = 3 %). */
  noise?: number;
  seed?: number;
  pairSweep?: SweepSpec;
  railSweep?: SweepSpec;
};

export type RailSimulation = {
  fabric: RailFabric;
  view: FabricView;
  oracle: Required<FabricOracle>;
  truth: FabricTruth;
};

/** How often a flapping cable is down-trained during a wave, and to what. */
const FLAP = { probability: 0.4, factor: 0.3 } as const;

type Wave = { jobs: { job: BenchJob; index: number }[] };

function waves(jobs: readonly BenchJob[]): Wave[] {
  const byWave = new Map<number, Wave>();
  jobs.forEach((job, index) => {
    const w = job.wave ?? 0;
    const known = byWave.get(w);
    if (known) known.jobs.push({ job, index });
    else byWave.set(w, { jobs: [{ job, index }] });
  });
  return [...byWave.entries()].sort((x, y) => x[0] - y[0]).map(([, w]) => w);
}

/** The flows a job starts: per running rail, a→b and b→a (a 2-node ring sends both ways on every rail). */
function jobFlows(job: BenchJob, rails: number): { rail: number; flows: [Flow, Flow] }[] {
  const [a, b] = job.nodes;
  const running =
    job.kind === "rails" && job.routes ? job.routes.map((r) => r.rail) : Array.from({ length: rails }, (_, r) => r);
  // A NIC picks the UDP source port from the QP number: stable per connection, unrelated between connections.
  const qpPort = (dir: number, r: number) => 49152 + (fnv1a(`${job.id}|${r}|${dir}`) % 16384);
  return running.map((rail) => {
    const route = job.routes?.find((x) => x.rail === rail);
    const [s0, s1] = route?.sports ?? [qpPort(0, rail), qpPort(1, rail)];
    return {
      rail,
      flows: [
        { src: a, dst: b, rail, sport: s0 },
        { src: b, dst: a, rail, sport: s1 },
      ] as [Flow, Flow],
    };
  });
}

export function simulateRailFleet(o: RailSimulationOptions): RailSimulation {
  const fabric = buildRailFabric({
    nodes: o.nodes,
    units: o.units,
    rails: o.rails,
    oversubscription: o.oversubscription,
    lineRateGBps: o.lineRateGBps ?? 50,
    ...(o.spines !== undefined ? { spines: o.spines } : {}),
  });
  const rnd: Random = createRandom(o.seed ?? 1);
  const faults = plantFaults(
    fabric,
    {
      badNodes: o.badNodes ?? 0,
      badRails: o.badRails ?? 0,
      badUplinks: o.badUplinks ?? 0,
      badSpinePorts: o.badSpinePorts ?? 0,
      flapping: o.flapping ?? 0,
    },
    rnd,
  );
  const unitOf = unitIndex(fabric);
  const router = createRouter(fabric, unitOf, rnd.int(2 ** 31));
  const hcas = railNics(fabric.rails, o.nodeModel ?? "dgx-h100");
  const view: FabricView = {
    nodes: fabric.nodes,
    leafOf: new Map([...unitOf].map(([n, u]) => [n, `unit${u}`])),
    hcas,
    lineRateGBps: fabric.lineRateGBps,
  };
  const noise = o.noise ?? 0;
  const pairSweep = o.pairSweep ?? DEFAULT_PAIR_SWEEP;
  const railSweep = o.railSweep ?? DEFAULT_RAIL_SWEEP;
  const withNoise = (v: number, sd: number) => v * Math.max(0.05, 1 + sd * rnd.gauss());
  const rows = (peak: number, ranks: number, sweep: SweepSpec) =>
    sweepSizes(sweep).map((bytes) => ({ bytes, busbw: withNoise(busBwAt(bytes, peak, ranks), noise / 3) }));
  const f = (id: string) => faults.factor.get(id) ?? 1;

  const capacityIn = (flaps: ReadonlySet<string>) => (link: string) => {
    const id = link.slice(link.indexOf(" ") + 1);
    if (link.startsWith("tx ") || link.startsWith("rx ")) {
      const node = id.slice(0, id.indexOf("/"));
      return fabric.lineRateGBps * f(node) * f(id) * (flaps.has(id) ? FLAP.factor : 1);
    }
    return fabric.lineRateGBps * f(id);
  };

  const runWave = (w: Wave, out: JobResult[]) => {
    const flaps = new Set([...faults.flapping].filter(() => rnd.next() < FLAP.probability));
    const perJob = w.jobs.map(({ job }) => jobFlows(job, fabric.rails));
    const flows = perJob.flatMap((rs) => rs.flatMap((r) => r.flows));
    const rates = maxMinRates(
      flows.map((fl) => router.links(fl)),
      capacityIn(flaps),
    );
    let k = 0;
    w.jobs.forEach(({ job, index }, i) => {
      // A ring moves at its slower direction; NCCL reaches ~95 % of that as bus bandwidth.
      const perRail = perJob[i]!.map((r) => ({ rail: r.rail, rate: Math.min(rates[k++]!, rates[k++]!) }));
      const start = JOB_START_SECONDS.min + (JOB_START_SECONDS.max - JOB_START_SECONDS.min) * rnd.next();
      if (job.kind === "pair") {
        // One ring over every rail waits for the slowest: rails × the slowest rail.
        const peak = withNoise(fabric.rails * minOf(perRail.map((r) => r.rate)) * RING_EFFICIENCY, noise);
        const ranks = 2 * fabric.rails;
        out[index] = {
          job,
          ok: true,
          seconds: start + sweepSeconds(pairSweep, peak, ranks),
          tests: [{ hca: null, rows: rows(peak, ranks, pairSweep) }],
        };
        return;
      }
      const tests = perRail.map((r) => ({ hca: hcas[r.rail]!, peak: withNoise(r.rate * RING_EFFICIENCY, noise) }));
      out[index] = {
        job,
        ok: true,
        seconds: start + sweepSeconds(railSweep, minOf(tests.map((t) => t.peak)), 2),
        tests: tests.map((t) => ({ hca: t.hca, rows: rows(t.peak, 2, railSweep) })),
      };
    });
  };

  const measure = async (jobs: readonly BenchJob[]) => {
    const out: JobResult[] = new Array(jobs.length);
    for (const w of waves(jobs)) runWave(w, out);
    return out;
  };
  return { fabric, view, truth: faults.truth, oracle: { measure, trace: (fl) => router.path(fl) } };
}

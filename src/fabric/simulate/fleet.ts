/**
 * A rail-optimised fabric simulated from its physics: every job's flows (one per rail and direction) cross the
 * links their switches hash them onto; flows that run at the same time share each link max-min fairly; a test's
 * bus bandwidth follows from its flows' rates. Congestion is not planted: it happens when two flows land on one
 * uplink. The planted faults stay in here; callers get the fabric description, the oracle and (for scoring only)
 * the truth. Imports nothing from any planner or diagnosis.
 */

import { farEnd } from "../cables.js";
import { maxMinRates } from "../fairshare.js";
import { buildRailFabric, type FabricOracle, type Flow, leafId, type RailFabric, railId, unitIndex } from "../model.js";
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
import { type FabricTruth, type FaultCounts, plantFaults } from "./faults.js";
import { pauseFactor, type Realism, roceSourcePort, START_SKEW_SECONDS } from "./realism.js";
import { createRouter, routerFrom } from "./routing.js";

export type RailSimulationOptions = Partial<FaultCounts> &
  Realism & {
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
  /** Leaves (`unit1/leaf3`) whose hash seed the trace does not know: for scoring and tests only. */
  hiddenSeedLeaves: readonly string[];
};

/** How often a flapping cable is down-trained during a wave, and to what. */
const FLAP = { probability: 0.4, factor: 0.3 } as const;

type Group = { jobs: { job: BenchJob; index: number }[] };

/** Jobs that run at the same time: each wave, one after another; or the whole round at once without barriers. */
function groups(jobs: readonly BenchJob[], barriers: boolean): Group[] {
  const byWave = new Map<number, Group>();
  jobs.forEach((job, index) => {
    const w = barriers ? (job.wave ?? 0) : 0;
    const known = byWave.get(w);
    if (known) known.jobs.push({ job, index });
    else byWave.set(w, { jobs: [{ job, index }] });
  });
  return [...byWave.entries()].sort((x, y) => x[0] - y[0]).map(([, w]) => w);
}

/** One rail of a job: per direction (a→b, b→a), one flow per QP. */
type RailConn = { rail: number; dirs: [Flow[], Flow[]] };

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
  // QP numbers and hidden seeds draw from their own stream: the faults and noise of a seed stay as they were.
  const qpRnd: Random = createRandom(((o.seed ?? 1) * 2654435761) >>> 0);
  const faults = plantFaults(
    fabric,
    {
      badNodes: o.badNodes ?? 0,
      badRails: o.badRails ?? 0,
      badUplinks: o.badUplinks ?? 0,
      badSpinePorts: o.badSpinePorts ?? 0,
      flapping: o.flapping ?? 0,
      loadOnlyUplinks: o.loadOnlyUplinks ?? 0,
      downNics: o.downNics ?? 0,
    },
    rnd,
  );
  const unitOf = unitIndex(fabric);
  const salt = rnd.int(2 ** 31);
  const leaves = fabric.units * fabric.rails;
  const hidden = new Map(
    qpRnd
      .pick(
        Array.from({ length: leaves }, (_, i) => i),
        Math.min(leaves, o.unknownSeedLeaves ?? 0),
      )
      .map((leaf) => [leaf, qpRnd.int(2 ** 31)] as const),
  );
  const calculator = o.forwarding ? routerFrom(o.forwarding) : createRouter(fabric, unitOf, salt);
  const router = hidden.size === 0 || o.forwarding ? calculator : createRouter(fabric, unitOf, salt, hidden);
  const hcas = railNics(fabric.rails, o.nodeModel ?? "dgx-h100");
  const view: FabricView = {
    nodes: fabric.nodes,
    leafOf: new Map([...unitOf].map(([n, u]) => [n, `unit${u}`])),
    hcas,
    lineRateGBps: fabric.lineRateGBps,
  };
  const noise = o.noise ?? 0;
  const qps = Math.max(1, Math.floor(o.qpsPerConnection ?? 1));
  const pairSweep = o.pairSweep ?? DEFAULT_PAIR_SWEEP;
  const railSweep = o.railSweep ?? DEFAULT_RAIL_SWEEP;
  const withNoise = (v: number, sd: number) => v * Math.max(0.05, 1 + sd * rnd.gauss());
  const rows = (peak: number, ranks: number, sweep: SweepSpec) =>
    sweepSizes(sweep).map((bytes) => ({ bytes, busbw: withNoise(busBwAt(bytes, peak, ranks), noise / 3) }));
  const f = (id: string) => faults.factor.get(id) ?? 1;
  /** A hop's capacity factor, with its cable's other end where a bad cable slows both ways. */
  const cableFactor = (hop: string) => {
    const far = o.bothWays ? farEnd(fabric, hop) : null;
    return Math.min(f(hop), far ? f(far) : 1);
  };
  const isDown = (node: string, rail: number) => faults.down.has(railId(node, rail));

  /** The flows a job starts: per running rail and direction, one per QP, on the ports the NIC (or the test) set. */
  const jobConns = (job: BenchJob): RailConn[] => {
    const [a, b] = job.nodes;
    const running =
      job.kind === "rails" && job.routes
        ? job.routes.map((r) => r.rail)
        : Array.from({ length: fabric.rails }, (_, r) => r);
    return running.map((rail) => {
      const route = o.nicPorts ? undefined : job.routes?.find((x) => x.rail === rail);
      // Both ends compute the port from the same two QP numbers: a connection's QP uses one port both ways.
      const ports = Array.from({ length: qps }, () => roceSourcePort(1 + qpRnd.int(2 ** 24), 1 + qpRnd.int(2 ** 24)));
      const dir = (src: string, dst: string, d: 0 | 1) =>
        ports.map((p) => ({ src, dst, rail, sport: route ? route.sports[d] : p }));
      return { rail, dirs: [dir(a, b, 0), dir(b, a, 1)] };
    });
  };

  const capacityIn =
    (flaps: ReadonlySet<string>, load: ReadonlyMap<string, number>, paused: ReadonlyMap<string, number>) =>
    (link: string) => {
      const id = link.slice(link.indexOf(" ") + 1);
      if (link.startsWith("tx ") || link.startsWith("rx ")) {
        const node = id.slice(0, id.indexOf("/"));
        return fabric.lineRateGBps * f(node) * f(id) * (flaps.has(id) ? FLAP.factor : 1);
      }
      // A load-only fault shows while two or more flows cross the hop; a pause holds its sender back; a cable
      // bad both ways slows this direction for a fault planted on its other end too.
      const faultOf = (hop: string) => (faults.loadOnly.has(hop) && (load.get(link) ?? 0) < 2 ? 1 : f(hop));
      const far = o.bothWays ? farEnd(fabric, id) : null;
      const fault = Math.min(faultOf(id), far ? faultOf(far) : 1);
      return fabric.lineRateGBps * fault * (paused.get(link) ?? 1);
    };

  /** Max-min rates; with PFC, then again with the uplinks that feed a faulty spine port paused. */
  const ratesOf = (paths: string[][], flaps: ReadonlySet<string>) => {
    const load = new Map<string, number>();
    for (const p of paths) for (const l of p) load.set(l, (load.get(l) ?? 0) + 1);
    const none = new Map<string, number>();
    const rates = maxMinRates(paths, capacityIn(flaps, load, none));
    if (!o.pfc) return rates;
    const paused = new Map<string, number>();
    for (const p of paths) {
      const down = p.find((l) => l.startsWith("down ") && cableFactor(l.slice(5)) < 1);
      const up = p.find((l) => l.startsWith("up "));
      if (down && up) paused.set(up, Math.min(paused.get(up) ?? 1, pauseFactor(cableFactor(down.slice(5)))));
    }
    return paused.size === 0 ? rates : maxMinRates(paths, capacityIn(flaps, load, paused));
  };

  const runGroup = (g: Group, offset: number, out: JobResult[]): number => {
    const flaps = new Set([...faults.flapping].filter(() => rnd.next() < FLAP.probability));
    const perJob = g.jobs.map(({ job }) => jobConns(job));
    // A rail with a down NIC at either end has no flows: its test fails at connection set-up.
    const live = (c: RailConn, job: BenchJob) => !isDown(job.nodes[0], c.rail) && !isDown(job.nodes[1], c.rail);
    const flows: Flow[] = [];
    perJob.forEach((conns, i) => {
      for (const c of conns) if (live(c, g.jobs[i]!.job)) flows.push(...c.dirs[0], ...c.dirs[1]);
    });
    const rates = ratesOf(
      flows.map((fl) => router.links(fl)),
      flaps,
    );
    let k = 0;
    let longest = 0;
    g.jobs.forEach(({ job, index }, i) => {
      const conns = perJob[i]!;
      // A ring moves at its slower direction; QPs share a rail's data evenly, so the slowest QP sets the pace.
      const perRail = conns.map((c) => {
        if (!live(c, job)) return { rail: c.rail, rate: 0, down: true };
        let slowest = Number.POSITIVE_INFINITY;
        for (let q = 0; q < 2 * qps; q++) slowest = Math.min(slowest, rates[k++]!);
        return { rail: c.rail, rate: qps * slowest, down: false };
      });
      const start = JOB_START_SECONDS.min + (JOB_START_SECONDS.max - JOB_START_SECONDS.min) * rnd.next();
      const startedAt = o.noBarriers ? START_SKEW_SECONDS * qpRnd.next() : offset;
      const observed = conns
        .filter((c) => live(c, job))
        .map((c) => ({
          rail: c.rail,
          sports: [c.dirs[0].map((x) => x.sport), c.dirs[1].map((x) => x.sport)] as const,
        }));
      const downOn = perRail.find((r) => r.down);
      if (job.kind === "pair") {
        if (downOn) {
          out[index] = { job, ok: false, seconds: start, reason: downReason(job, downOn.rail) };
          longest = Math.max(longest, start);
          return;
        }
        // One ring over every rail waits for the slowest: rails × the slowest rail.
        const peak = withNoise(fabric.rails * minOf(perRail.map((r) => r.rate)) * RING_EFFICIENCY, noise);
        const ranks = 2 * fabric.rails;
        const seconds = start + sweepSeconds(pairSweep, peak, ranks);
        longest = Math.max(longest, seconds);
        out[index] = {
          job,
          ok: true,
          seconds,
          tests: [{ hca: null, rows: rows(peak, ranks, pairSweep) }],
          startedAt,
          flows: observed,
        };
        return;
      }
      const tests = perRail.map((r) =>
        r.down
          ? { hca: hcas[r.rail]!, peak: 0, failed: downReason(job, r.rail) }
          : { hca: hcas[r.rail]!, peak: withNoise(r.rate * RING_EFFICIENCY, noise) },
      );
      const running = tests.filter((t) => t.peak > 0);
      const seconds = start + (running.length ? sweepSeconds(railSweep, minOf(running.map((t) => t.peak)), 2) : 0);
      longest = Math.max(longest, seconds);
      out[index] = {
        job,
        ok: true,
        seconds,
        tests: tests.map((t) =>
          "failed" in t ? { hca: t.hca, rows: [], failed: t.failed } : { hca: t.hca, rows: rows(t.peak, 2, railSweep) },
        ),
        startedAt,
        flows: observed,
      };
    });
    return longest;
  };
  const downReason = (job: BenchJob, rail: number) => {
    const node = job.nodes.find((n) => isDown(n, rail)) ?? job.nodes[0];
    return `NCCL could not connect on ${hcas[rail]} (rail ${rail}): ${node}'s port is down`;
  };
  const measure = async (jobs: readonly BenchJob[]) => {
    const out: JobResult[] = new Array(jobs.length);
    let offset = 0;
    for (const g of groups(jobs, !o.noBarriers)) offset += runGroup(g, offset, out);
    return out;
  };
  const hiddenSeedLeaves = [...hidden.keys()].map((l) => leafId(Math.floor(l / fabric.rails), l % fabric.rails)).sort();
  return {
    fabric,
    view,
    truth: faults.truth,
    oracle: { measure, trace: (fl) => calculator.path(fl) },
    hiddenSeedLeaves,
  };
}

/**
 * The rail-aware planner. It knows the fabric's shape (units, rails, uplinks, spines), can trace a flow's hops, and
 * sees only results.
 *
 * - Round 1: every node once in a pair test with a node of its own unit. Rail to rail through one leaf, no uplink
 *   crossed: nothing in it can congest, and a slow pair points at its nodes.
 * - Then, side by side: each suspect in a rail test with a proven-good node of its unit (slow on every rail → the
 *   node, on one → that NIC), as the flat planner does; and a spine sweep: proven-good nodes of different units in
 *   rail tests whose two flows per rail are steered (UDP source port) onto leaf uplinks and spine ports not yet
 *   crossed, never two flows on one uplink or spine port in a wave. A leaf carries at most half its uplinks' worth
 *   of flows per wave, so every flow finds a free uplink in a few tries and the sweep does not congest what it
 *   measures; waves follow until every uplink and spine port has been crossed twice.
 * - Then, each round while doubt is left: every hop a slow test points at and no fast test cleared is crossed
 *   again, alone among cleared hops, in two waves with different partners where the ports can be steered
 *   (isolate.ts); and group tests (group-waves.ts) load the rails whose leaves hold a hop in doubt, every good node
 *   at once, two waves with new unit matchings, so a fault that shows only under load shows and hops are crossed
 *   whether or not the fabric honours the requested ports. Once a port read back from a QP differs from the one
 *   asked for (the NIC picks them), nothing can be crossed alone: four group waves run instead, each a new random
 *   spread of flows over the hops (two where the runner started a round's waves together: four at once would load
 *   each hop four-fold). Two slow tests that blame a hop alone name it (hop-evidence.ts).
 * Pure given the trace.
 */

import { type Diagnosis, diagnose } from "../bench/diagnose.js";
import { allSpinePorts, allUplinks, type FlowPath, leafId, leafOfHop, type RailFabric, unitIndex } from "../model.js";
import { createRandom } from "../prng.js";
import { minOf } from "../stats.js";
import type { BenchJob, FabricView, JobResult, RailRoute } from "../types.js";
import { type DownNic, downNics } from "./down-nics.js";
import { retestRound } from "./flat.js";
import { groupWave } from "./group-waves.js";
import { isSpineProbe, type SpineEvidence, spineEvidence } from "./hop-evidence.js";
import { isolateRound } from "./isolate.js";
import { steer, type Trace } from "./steer.js";

/** Each uplink and spine port crossed this many times by the sweep: a fast crossing clears, two slow ones name. */
export const SWEEP_COVERAGE = 2;
const MAX_SWEEP_WAVES = 8;
/** Ports tried per sweep flow: enough to find a hop not yet crossed while a leaf is at most half busy. */
const SWEEP_TRIES = 64;

export type RailPlanState = {
  nodeDiagnosis: Diagnosis;
  spine: SpineEvidence;
  downNics: DownNic[];
};

export type RailPlanner = {
  next(round: number, results: readonly JobResult[]): BenchJob[];
  state(results: readonly JobResult[]): RailPlanState;
};

const mkJob = (round: number, i: number, kind: BenchJob["kind"], a: string, b: string, why: string, wave = 0) =>
  ({ id: `r${round}-${i + 1}`, round, kind, nodes: [a, b] as const, why, wave }) satisfies BenchJob;

export function railState(
  view: FabricView,
  fabric: RailFabric,
  trace: Trace,
  results: readonly JobResult[],
  tolerance?: number,
): RailPlanState {
  const opts = tolerance === undefined ? {} : { tolerance };
  const nodeResults = results.filter((r) => !isSpineProbe(r.job));
  return {
    nodeDiagnosis: diagnose(view, nodeResults, opts),
    spine: spineEvidence(view, fabric, trace, results),
    downNics: downNics(view, results),
  };
}

/**
 * Whether the fabric used the UDP source ports the tests asked for: false once a port read back from a QP differs
 * from the one requested (the NIC picks them: nccl-tests and NCCL have no setting for it); true until then.
 */
export function portsHonoured(results: readonly JobResult[]): boolean {
  for (const r of results) {
    if (!r.ok || !r.job.routes || !r.flows) continue;
    for (const seen of r.flows) {
      const asked = r.job.routes.find((x) => x.rail === seen.rail);
      if (!asked) continue;
      if (seen.sports[0].some((p) => p !== asked.sports[0]) || seen.sports[1].some((p) => p !== asked.sports[1]))
        return false;
    }
  }
  return true;
}

/**
 * Whether the runner kept the waves of a round apart: false once two jobs of one round but different waves ran at
 * overlapping times (their start times and durations, where the runner saw them); true until then.
 */
export function wavesKeptApart(results: readonly JobResult[]): boolean {
  const spans = new Map<string, { start: number; end: number }>();
  for (const r of results) {
    if (!r.ok || r.startedAt === undefined) continue;
    const key = `${r.job.round}/${r.job.wave ?? 0}`;
    const s = spans.get(key) ?? { start: r.startedAt, end: r.startedAt + r.seconds };
    spans.set(key, { start: Math.min(s.start, r.startedAt), end: Math.max(s.end, r.startedAt + r.seconds) });
  }
  const list = [...spans].map(([key, s]) => ({ round: key.split("/")[0], ...s }));
  return !list.some((a, i) => list.slice(i + 1).some((b) => a.round === b.round && a.start < b.end && b.start < a.end));
}

export function createRailPlanner(
  view: FabricView,
  fabric: RailFabric,
  trace: Trace,
  o: { seed?: number; tolerance?: number } = {},
): RailPlanner {
  const rnd = createRandom(o.seed ?? 1);
  const unitOf = unitIndex(fabric);
  const members = (nodes: readonly string[]) => {
    const byUnit: string[][] = Array.from({ length: fabric.units }, () => []);
    for (const n of nodes) byUnit[unitOf.get(n)!]!.push(n);
    return byUnit;
  };
  let swept = false;
  const isoCtx = { fabric, trace, rnd, attempts: new Map<string, number>() };

  const firstRound = (): BenchJob[] =>
    members(view.nodes).flatMap((unit, u) => {
      const s = rnd.shuffle(unit);
      return Array.from({ length: Math.floor(s.length / 2) }, (_, i) =>
        mkJob(1, 0, "pair", s[2 * i]!, s[2 * i + 1]!, `round 1: a neighbour of unit ${u} (one leaf per rail)`),
      );
    });

  /** Routes for `a`↔`b` on every rail whose two flows find hops free in this wave (cost = times crossed). */
  const sweepRoutes = (
    a: string,
    b: string,
    used: Set<string>,
    crossed: Map<string, number>,
    enough: number,
  ): RailRoute[] => {
    const cost = (p: FlowPath) =>
      used.has(p.uplink!) || used.has(p.spinePort!)
        ? Infinity
        : (crossed.get(p.uplink!) ?? 0) + (crossed.get(p.spinePort!) ?? 0);
    const routes: RailRoute[] = [];
    for (let rail = 0; rail < fabric.rails; rail++) {
      const ab = steer(trace, { src: a, dst: b, rail }, cost, SWEEP_TRIES, rnd.int(16384), enough);
      if (!ab) continue;
      const hopsAb = [ab.path.uplink!, ab.path.spinePort!];
      const ba = steer(
        trace,
        { src: b, dst: a, rail },
        (p) => (hopsAb.includes(p.uplink!) || hopsAb.includes(p.spinePort!) ? Infinity : cost(p)),
        SWEEP_TRIES,
        rnd.int(16384),
        enough,
      );
      if (!ba) continue;
      for (const h of [...hopsAb, ba.path.uplink!, ba.path.spinePort!]) {
        used.add(h);
        crossed.set(h, (crossed.get(h) ?? 0) + 1);
      }
      routes.push({ rail, sports: [ab.sport, ba.sport], paths: [ab.path, ba.path] });
    }
    return routes;
  };

  const sweep = (round: number, good: readonly string[], start: number): BenchJob[] => {
    const hops = [...allUplinks(fabric), ...allSpinePorts(fabric)];
    const crossed = new Map<string, number>();
    const perWave = Math.max(1, Math.floor(fabric.uplinksPerLeaf / 2));
    const pools = members(good).map((u) => rnd.shuffle(u));
    const jobs: BenchJob[] = [];
    for (let wave = 0; wave < MAX_SWEEP_WAVES; wave++) {
      const level = minOf(hops.map((h) => crossed.get(h) ?? 0));
      if (level >= SWEEP_COVERAGE) break;
      // Interleave the units (a random order per row) and pair neighbours from different units.
      const rows = pools.map((p) =>
        Array.from({ length: Math.min(perWave, p.length) }, (_, i) => p[(wave * perWave + i) % p.length]!),
      );
      const line: string[] = [];
      for (let i = 0; i < perWave; i++)
        for (const u of rnd.shuffle(rows.map((_, k) => k))) if (rows[u]![i]) line.push(rows[u]![i]!);
      const used = new Set<string>();
      const inWave = new Set<string>();
      for (let i = 0; i + 1 < line.length; i++) {
        const a = line[i]!;
        const b = line.slice(i + 1).find((x) => !inWave.has(x) && unitOf.get(x) !== unitOf.get(a));
        if (inWave.has(a) || !b) continue;
        inWave.add(a).add(b);
        // Good enough: a flow whose two hops are both at the least-crossed level (more tries buy nothing).
        const routes = sweepRoutes(a, b, used, crossed, 2 * level);
        if (routes.length === 0) continue;
        const why = `spine sweep wave ${wave + 1}: ${a} ↔ ${b} rail by rail, each flow steered onto an uplink and spine port not yet crossed`;
        jobs.push({ ...mkJob(round, start + jobs.length, "rails", a, b, why, wave), routes });
      }
    }
    return jobs;
  };

  const waveCtx = { fabric, trace, rnd };
  let matching = 0;
  const allRails = Array.from({ length: fabric.rails }, (_, r) => r);

  /**
   * The rails (of `a` or `b`) whose leaves hold a hop in doubt that a traced flow can settle (a suspect, or a hop
   * not yet cleared). A leaf whose paths are unknown keeps its uplinks unclearable; the spine ports facing it are
   * traced from upstream and stay in doubt until cleared.
   */
  const doubtRails = (s: SpineEvidence) => {
    const unknown = new Set(s.pathsUnknown.map((x) => x.leaf));
    const doubt = new Set<string>();
    for (const h of [...s.pending, ...s.notCleared]) {
      const w = leafOfHop(fabric, h);
      if (w && !(w.side === "uplink" && unknown.has(leafId(w.unit, w.rail)))) doubt.add(leafId(w.unit, w.rail));
    }
    return (a: string, b: string) =>
      allRails.filter((r) => doubt.has(leafId(unitOf.get(a)!, r)) || doubt.has(leafId(unitOf.get(b)!, r)));
  };

  /** Group tests that load what is still in doubt, without needing the hash (group-waves.ts), in two waves. */
  const loadRound = (round: number, s: SpineEvidence, good: readonly string[], start: number, waves: number) => {
    const rails = doubtRails(s);
    const jobs: BenchJob[] = [];
    for (let wave = 0; wave < waves; wave++)
      jobs.push(
        ...groupWave(waveCtx, {
          round,
          wave,
          matching: matching++,
          good,
          rails,
          start: start + jobs.length,
          why: "group test of the hops in doubt,",
        }),
      );
    return jobs;
  };

  return {
    state: (results) => railState(view, fabric, trace, results, o.tolerance),
    next(round, results) {
      if (round === 1) return firstRound().map((j, i) => ({ ...j, id: `r1-${i + 1}` }));
      const st = railState(view, fabric, trace, results, o.tolerance);
      const nodeJobs = retestRound(view, st.nodeDiagnosis, round).map((j) => ({ ...j, wave: 0 }));
      const busy = new Set(nodeJobs.flatMap((j) => j.nodes));
      const suspects = new Set(st.nodeDiagnosis.verdicts.flatMap((v) => (v.node ? [v.node] : [])));
      const down = new Set(st.downNics.map((d) => d.node));
      const good = view.nodes.filter(
        (n) => st.nodeDiagnosis.good.has(n) && !busy.has(n) && !suspects.has(n) && !down.has(n),
      );
      if (fabric.units < 2) return nodeJobs;
      if (!swept) {
        swept = true;
        return [...nodeJobs, ...sweep(round, good, nodeJobs.length)];
      }
      // Where ports can be steered, each suspect crossed alone (waves 1–2), then the load tests (waves 3–4); where
      // the NIC picks them, a flow cannot be sent through a chosen hop: four waves of load tests instead.
      // Runs without barriers start every wave at once: two group waves then, not four on top of each other.
      const steerable = portsHonoured(results);
      const alone = steerable ? isolateRound(isoCtx, round, st.spine, good, nodeJobs.length) : [];
      const groupWaves = steerable || !wavesKeptApart(results) ? 2 : 4;
      const loaded = loadRound(round, st.spine, good, nodeJobs.length + alone.length, groupWaves).map((j) => ({
        ...j,
        wave: (j.wave ?? 0) + (steerable ? 2 : 0),
      }));
      return [...nodeJobs, ...alone, ...loaded];
    },
  };
}

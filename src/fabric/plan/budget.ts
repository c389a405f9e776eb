/**
 * The wall-time budget of a rail-aware run, printed before anything runs: round 1 (every node in a pair test inside
 * its unit, one wave), round 2 (the suspects' rail tests beside the spine sweep: enough waves for every uplink and
 * spine port to be crossed SWEEP_COVERAGE times at half a leaf's uplinks per wave), and what one more round of
 * isolation re-tests and group tests (two waves each; four group waves where the NIC picks the ports) would add. Each wave lasts start-up + the sweep at the
 * expected bandwidth (a group wave at the share an oversubscribed uplink gives each flow). Pure.
 */
import type { Budget } from "../bench/budget.js";
import type { RailFabric } from "../model.js";
import { JOB_START_SECONDS, sweepSeconds } from "../timing.js";
import { expectedBusBw, type FabricView, type SweepSpec } from "../types.js";
import { SWEEP_COVERAGE } from "./planner.js";

export function sweepWaves(f: Pick<RailFabric, "uplinksPerLeaf" | "units">): number {
  if (f.units < 2) return 0;
  const perWave = Math.max(1, Math.floor(f.uplinksPerLeaf / 2));
  return Math.ceil((SWEEP_COVERAGE * f.uplinksPerLeaf) / perWave);
}

export function estimateRailBudget(
  view: FabricView,
  f: RailFabric,
  o: {
    pairSweep: SweepSpec;
    railSweep: SweepSpec;
    maxRounds?: number;
    /** False where nothing traces a flow's path: only the node re-tests run, one wave per round. */
    spineTests?: boolean;
  },
): Budget {
  const tenth = (x: number) => Math.round(x * 10) / 10;
  const pairJob = JOB_START_SECONDS.max + sweepSeconds(o.pairSweep, expectedBusBw(view, "pair"), 2 * f.rails);
  const railJob = JOB_START_SECONDS.max + sweepSeconds(o.railSweep, expectedBusBw(view, "rail"), 2);
  const slowRailJob = JOB_START_SECONDS.max + sweepSeconds(o.railSweep, expectedBusBw(view, "rail") / 2, 2);
  // A group wave loads every leaf with all its nodes: each flow gets its share of the oversubscribed uplinks.
  const groupJob =
    JOB_START_SECONDS.max + sweepSeconds(o.railSweep, expectedBusBw(view, "rail") / Math.max(1, f.oversubscription), 2);
  const round = (name: string, jobs: number, waves: number, jobSeconds: number) => ({
    round: name,
    jobs,
    waves,
    jobSeconds: tenth(jobSeconds),
    seconds: tenth(waves * jobSeconds),
  });
  const spineTests = o.spineTests ?? true;
  const waves = spineTests ? sweepWaves(f) : 0;
  const perWave = Math.max(1, Math.floor(f.uplinksPerLeaf / 2));
  const rounds = [round("1", Math.floor(view.nodes.length / 2), 1, pairJob)];
  if ((o.maxRounds ?? 2) >= 2)
    rounds.push(
      spineTests
        ? round(
            "2 (re-tests + spine sweep)",
            Math.floor((f.units * perWave) / 2) * waves,
            Math.max(1, waves),
            Math.max(railJob, slowRailJob),
          )
        : // The suspects' rail tests: as many jobs as round 1 can leave suspects, at most.
          round("2 (re-tests)", 0, 1, slowRailJob),
    );
  // A further round: suspects crossed alone (two waves), then group tests on the rails in doubt (two waves); where
  // the NIC picks the source ports nothing can be crossed alone, and four group waves run instead (the longer); or,
  // without spine tests, one wave of node re-tests.
  const groupWave = Math.max(slowRailJob, groupJob);
  const extra = {
    seconds: tenth(spineTests ? Math.max(2 * slowRailJob + 2 * groupWave, 4 * groupWave) : slowRailJob),
  };
  return {
    seconds: tenth(rounds.reduce((s, r) => s + r.seconds, 0)),
    rounds,
    extraRoundSeconds: extra.seconds,
    assumptions: [
      `${JOB_START_SECONDS.max} s to start each job (scheduling, sshd, NCCL init)`,
      `healthy pairs at ${expectedBusBw(view, "pair").toFixed(1)} GB/s busbw (${f.rails} × ${f.lineRateGBps} GB/s NICs at 95 %), one rail at ${expectedBusBw(view, "rail").toFixed(1)} GB/s`,
      spineTests
        ? `${f.units} unit(s) × ${f.rails} rail leaves, ${f.uplinksPerLeaf} uplinks per leaf (${f.oversubscription}:1) over ${f.spines} spine(s): the sweep runs ${waves} wave(s) of at most ${perWave} flows per leaf, each uplink and spine port crossed ${SWEEP_COVERAGE} times`
        : `${f.units} unit(s) × ${f.rails} rail leaves: no spine tests (nothing traces a flow's path), so no sweep waves`,
      spineTests
        ? `each further round (a suspected uplink or spine port crossed alone, two waves, then group tests of every good node on the rails whose leaves hold a hop in doubt, two waves; four waves of group tests where the NIC picks the source ports) adds up to ${extra.seconds} s`
        : `each further round (the suspects' rail tests, one wave) adds up to ${extra.seconds} s`,
    ],
  };
}

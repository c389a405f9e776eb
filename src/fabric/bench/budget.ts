/**
 * The wall-time budget printed before anything runs: round by round, (start-up + sweep time at the expected
 * bandwidth) × waves of `concurrency` jobs. The adaptive plan is budgeted as round 1 plus one re-test round of rail
 * tests run at half the expected bandwidth (they test the slow nodes); `pairs` as its n−1 rounds. Pure.
 */
import type { PlanName } from "../plan/flat.js";
import { JOB_START_SECONDS, sweepSeconds } from "../timing.js";
import { expectedBusBw, type FabricView, type SweepSpec } from "../types.js";

export type BudgetOptions = {
  plan: PlanName;
  concurrency: number;
  gpusPerNode: number;
  pairSweep: SweepSpec;
  railSweep: SweepSpec;
  /** `--max-rounds`: the run stops there, so the budget does too. */
  maxRounds?: number;
};

export type Budget = {
  seconds: number;
  rounds: { round: string; jobs: number; waves: number; jobSeconds: number; seconds: number }[];
  /** What one more re-test round would add (adaptive). */
  extraRoundSeconds: number;
  assumptions: string[];
};

/** Re-tests run suspects, slower than healthy pairs by definition. */
const RETEST_SPEED = 0.5;

export function estimateBudget(view: FabricView, o: BudgetOptions): Budget {
  const n = view.nodes.length;
  const pairJob = JOB_START_SECONDS.max + sweepSeconds(o.pairSweep, expectedBusBw(view, "pair"), 2 * o.gpusPerNode);
  const railJob = JOB_START_SECONDS.max + sweepSeconds(o.railSweep, expectedBusBw(view, "rail") * RETEST_SPEED, 2);
  const perRound = Math.floor(n / 2);
  const waves = Math.ceil(perRound / o.concurrency);
  const round = (name: string, jobs: number, w: number, jobSeconds: number) => ({
    round: name,
    jobs,
    waves: w,
    jobSeconds: Math.round(jobSeconds * 10) / 10,
    seconds: Math.round(w * jobSeconds * 10) / 10,
  });
  const assumptions = [
    `${JOB_START_SECONDS.max} s to start each job (scheduling, sshd, NCCL init)`,
    `healthy pairs at ${expectedBusBw(view, "pair").toFixed(1)} GB/s busbw (${view.hcas.length} × ${view.lineRateGBps} GB/s HCAs at 95 %)`,
    `at most ${o.concurrency} jobs at a time`,
  ];
  if (o.plan === "pairs") {
    const rounds = Math.min(Math.max(0, n % 2 ? n : n - 1), o.maxRounds ?? Number.POSITIVE_INFINITY);
    const r = round(rounds === 1 ? "1" : `1–${rounds}`, rounds * perRound, rounds * waves, pairJob);
    return { seconds: r.seconds, rounds: [r], extraRoundSeconds: 0, assumptions };
  }
  const first = round("1", perRound, waves, pairJob);
  if (o.maxRounds !== undefined && o.maxRounds <= 1) {
    return { seconds: first.seconds, rounds: [first], extraRoundSeconds: 0, assumptions };
  }
  const retest = round("2 (re-tests)", 0, 1, railJob);
  assumptions.push(
    `one re-test round of rail tests, whose slow suspects run at ${RETEST_SPEED * 100} % of the expected bandwidth; each further round adds ${retest.seconds} s`,
  );
  return {
    seconds: Math.round((first.seconds + retest.seconds) * 10) / 10,
    rounds: [first, retest],
    extraRoundSeconds: retest.seconds,
    assumptions,
  };
}

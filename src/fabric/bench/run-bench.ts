/**
 * The bench loop: plan a round, measure it, diagnose everything so far, plan the next, until the planner has
 * nothing left or `maxRounds` is reached. The planner and the diagnosis only ever see the view and the results that
 * `measure` returns — the simulator and a real cluster are interchangeable behind it.
 */

import type { Planner } from "../plan/flat.js";
import { maxOf } from "../stats.js";
import type { FabricView, JobResult, Measure } from "../types.js";
import { type DiagnoseOptions, type Diagnosis, diagnose } from "./diagnose.js";

export type RoundSummary = { round: number; jobs: number; failed: number; seconds: number };

export type BenchRun = {
  rounds: RoundSummary[];
  jobs: number;
  results: JobResult[];
  diagnosis: Diagnosis;
  /** Wall time: per round, waves of `concurrency` jobs, each wave as long as its slowest job. */
  seconds: number;
};

export type BenchRunOptions = DiagnoseOptions & {
  maxRounds: number;
  concurrency: number;
  onRound?: (summary: RoundSummary, diagnosis: () => Diagnosis) => void;
  /** Stops before the next round (Ctrl-C). */
  signal?: AbortSignal;
};

/** Seconds a round takes when its jobs run `concurrency` at a time, in order, each wave waiting for its slowest. */
export function roundSeconds(results: readonly JobResult[], concurrency: number): number {
  let total = 0;
  for (let i = 0; i < results.length; i += concurrency) {
    total += maxOf(results.slice(i, i + concurrency).map((r) => r.seconds));
  }
  return total;
}

export async function runFleetBench(
  view: FabricView,
  planner: Planner,
  measure: Measure,
  o: BenchRunOptions,
): Promise<BenchRun> {
  const results: JobResult[] = [];
  const rounds: RoundSummary[] = [];
  let cached: Diagnosis | null = null;
  const current = () => {
    cached ??= diagnose(view, results, o);
    return cached;
  };
  for (let round = 1; round <= o.maxRounds && !o.signal?.aborted; round++) {
    const jobs = planner.next(round, current);
    if (jobs.length === 0) break;
    const got = await measure(jobs);
    for (const r of got) results.push(r);
    cached = null;
    const summary = {
      round,
      jobs: jobs.length,
      failed: got.filter((r) => !r.ok).length,
      seconds: Math.round(roundSeconds(got, o.concurrency) * 10) / 10,
    };
    rounds.push(summary);
    o.onRound?.(summary, current);
  }
  return {
    rounds,
    jobs: results.length,
    results,
    diagnosis: current(),
    seconds: Math.round(rounds.reduce((s, r) => s + r.seconds, 0) * 10) / 10,
  };
}

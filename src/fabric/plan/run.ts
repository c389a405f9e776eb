/**
 * The rail-aware bench loop: plan a round, measure it through the oracle, plan the next from the results, until
 * nothing is left to test or `maxRounds`. Wall time: per round, its waves one after another, each as long as its
 * slowest job. Pure apart from awaiting the oracle.
 */
import type { BenchRun, RoundSummary } from "../bench/run-bench.js";
import { railId } from "../model.js";
import type { FabricView, JobResult, Measure } from "../types.js";
import type { RailPlanner, RailPlanState } from "./planner.js";

export type RailBenchRun = BenchRun & { state: RailPlanState };

/** Seconds of a round whose jobs run wave by wave. */
export function waveSeconds(results: readonly JobResult[]): number {
  const slowest = new Map<number, number>();
  for (const r of results) slowest.set(r.job.wave ?? 0, Math.max(slowest.get(r.job.wave ?? 0) ?? 0, r.seconds));
  return [...slowest.values()].reduce((s, x) => s + x, 0);
}

export async function runRailBench(
  planner: RailPlanner,
  measure: Measure,
  o: { maxRounds: number; onRound?: (s: RoundSummary) => void },
): Promise<RailBenchRun> {
  const results: JobResult[] = [];
  const rounds: RoundSummary[] = [];
  for (let round = 1; round <= o.maxRounds; round++) {
    const jobs = planner.next(round, results);
    if (jobs.length === 0) break;
    const got = await measure(jobs);
    for (const r of got) results.push(r);
    const summary = {
      round,
      jobs: jobs.length,
      failed: got.filter((r) => !r.ok).length,
      seconds: Math.round(waveSeconds(got) * 10) / 10,
    };
    rounds.push(summary);
    o.onRound?.(summary);
  }
  const state = planner.state(results);
  return {
    rounds,
    jobs: results.length,
    results,
    diagnosis: state.nodeDiagnosis,
    seconds: Math.round(rounds.reduce((s, r) => s + r.seconds, 0) * 10) / 10,
    state,
  };
}

/** What a rail-aware run found, by the fabric's identifiers (model.ts). */
export type FabricFound = {
  nodes: string[];
  rails: string[];
  uplinks: string[];
  spinePorts: string[];
  links: string[];
};

/** A rail verdict names `node/<NIC>`; the fabric names `node/rail<i>`, i = the GPU whose NIC it is. */
export function railOfSubject(view: FabricView, subject: string): string {
  const slash = subject.lastIndexOf("/");
  const rail = view.hcas.indexOf(subject.slice(slash + 1));
  return rail < 0 ? subject : railId(subject.slice(0, slash), rail);
}

export function fabricFound(
  view: FabricView,
  base: { nodes: string[]; rails: string[]; links: string[] },
  spine: { bad: readonly string[] } | null,
  down: readonly { node: string; hca: string }[] = [],
): FabricFound {
  const bad = spine?.bad ?? [];
  const rails = new Set([...base.rails, ...down.map((d) => `${d.node}/${d.hca}`)].map((r) => railOfSubject(view, r)));
  return {
    nodes: [...base.nodes].sort(),
    rails: [...rails].sort(),
    uplinks: bad.filter((h) => h.startsWith("unit")).sort(),
    spinePorts: bad.filter((h) => h.startsWith("spine")).sort(),
    links: [...base.links].sort(),
  };
}

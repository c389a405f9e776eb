/** `fleet bench`: the rounds of 2-node jobs, what they found, and (simulated) what was planted. */

import { renderBenchReport } from "../../fabric/bench/render.js";
import type { FleetBenchReport } from "../../fabric/bench/report.js";
import type { JobResult } from "../../fabric/types.js";
import { defineReport } from "../registry.js";

/** One pair test of round 1: the two nodes and their bus bandwidth at the largest message size (GB/s). */
export type FirstRoundPair = { a: string; b: string; busbw: number };

/** What the simulator planted, printed beside what the rounds found. */
export type Planted = {
  nodes: string[];
  rails: string[];
  links: string[];
  flapping: string[];
  /** Rail-optimised fabrics: leaf uplinks and spine ports. */
  uplinks?: string[];
  spinePorts?: string[];
  /** Of the uplinks, those slow only under load; of the rails, the NICs that are down. */
  loadOnly?: string[];
  downNics?: string[];
};

/** The cluster run the report came from. */
export type ClusterRun = {
  id: string;
  namespace: string;
  image: string;
  leaves: string;
  interrupted: boolean;
  left: string[];
};

export type FleetBenchResult = {
  report: FleetBenchReport;
  /** Round 1's whole-pair tests (for the page's chart; not part of the JSON contract). */
  firstRound: FirstRoundPair[];
} & ({ simulated: Planted } | { run: ClusterRun });

/** Round 1's pair jobs that gave a result, each with its largest message size's bus bandwidth. */
export function firstRoundPairs(results: readonly JobResult[]): FirstRoundPair[] {
  return results.flatMap((r) => {
    if (!r.ok || r.job.round !== 1 || r.job.kind !== "pair") return [];
    const rows = r.tests.find((t) => t.hca === null)?.rows ?? [];
    const top = rows.reduce<(typeof rows)[number] | undefined>((m, x) => (!m || x.bytes > m.bytes ? x : m), undefined);
    return top ? [{ a: r.job.nodes[0], b: r.job.nodes[1], busbw: top.busbw }] : [];
  });
}

/** `2 rail(s) gpu-3/mlx5_4, gpu-9/mlx5_1`, or `0 rail(s)`. */
const planted = (n: number, what: string, names: readonly string[]) =>
  `${n} ${what}(s)${names.length ? ` ${names.join(", ")}` : ""}`;

function plantedLine(t: Planted): string {
  const parts = [
    planted(t.nodes.length, "node", t.nodes),
    planted(t.rails.length, "rail", t.rails),
    planted(t.links.length, "link", t.links),
    ...(t.uplinks ? [planted(t.uplinks.length, "leaf uplink", t.uplinks)] : []),
    ...(t.spinePorts ? [planted(t.spinePorts.length, "spine port", t.spinePorts)] : []),
    ...(t.flapping.length ? [`flapping ${t.flapping.join(", ")}`] : []),
  ];
  // The verdict above is the simulated fleet's: nothing real was tested, so the exit code stays 0.
  return `\nPlanted (simulation): ${parts.join("; ")}. The verdict above is the simulated fleet's; exit 0.\n`;
}

export const FLEET_BENCH_REPORT = defineReport<FleetBenchResult>({
  name: "fleet bench",
  text: (result) => renderBenchReport(result.report) + ("simulated" in result ? plantedLine(result.simulated) : ""),
  structured: (result) => {
    const { report } = result;
    if ("run" in result) return { ...report, run: result.run };
    const { flapping, loadOnly, downNics, ...truth } = result.simulated;
    return {
      schemaVersion: 1,
      simulated: true,
      plan: report.plan,
      nodes: report.nodes,
      rounds: report.rounds.length,
      jobs: report.jobs,
      found: report.found,
      truth,
      budgetSeconds: report.budgetSeconds,
      simulatedSeconds: report.seconds,
      perRound: report.rounds,
      flapping,
      ...(loadOnly?.length ? { loadOnly } : {}),
      ...(downNics?.length ? { downNics } : {}),
      findings: report.findings.map(({ evidence: _e, ...f }) => f),
    };
  },
  html: () => import("../html/pages/fleet-bench.js"),
});

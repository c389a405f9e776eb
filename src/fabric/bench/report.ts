/** The `fleet bench` report: findings from the diagnosis, failed jobs listed, what was found. Pure. */
import { type Finding, makeFinding, summarize } from "../../core/finding.js";
import type { FabricView } from "../types.js";
import type { Budget } from "./budget.js";
import { FLEET_BENCH_FINDINGS as F, type VerdictEvidence } from "./catalogue.js";
import type { Verdict } from "./diagnose.js";
import type { Reference } from "./evidence.js";
import type { BenchRun, RoundSummary } from "./run-bench.js";

/** What a run confirmed. A rail-aware run also names leaf uplinks and spine ports (src/fabric/model.ts ids). */
export type Found = { nodes: string[]; rails: string[]; links: string[]; uplinks?: string[]; spinePorts?: string[] };

export type FleetBenchReport = {
  schemaVersion: 1;
  plan: string;
  nodes: number;
  rounds: RoundSummary[];
  jobs: number;
  failedJobs: { job: string; round: number; nodes: readonly string[]; reason: string; corrupt?: boolean }[];
  budgetSeconds: number;
  seconds: number;
  reference: { pair: Reference; rail: Reference };
  found: Found;
  verdicts: Omit<Verdict, "retest">[];
  findings: Finding[];
  summary: ReturnType<typeof summarize>;
};

const CODE: Record<Verdict["kind"], keyof typeof F> = {
  node: "FLEET_BAD_NODE",
  rail: "FLEET_BAD_RAIL",
  uplink: "FLEET_BAD_UPLINK",
  link: "FLEET_BAD_LINK",
  flaky: "FLEET_FLAKY_LINK",
  suspect: "FLEET_SUSPECT",
};

/** Only high-confidence verdicts count as found; the rest are warnings with their next test. */
export function foundOf(verdicts: readonly Verdict[]): Found {
  const high = verdicts.filter((v) => v.confidence === "high");
  const of = (kinds: Verdict["kind"][]) =>
    high
      .filter((v) => kinds.includes(v.kind))
      .map((v) => v.subject)
      .sort();
  return { nodes: of(["node"]), rails: of(["rail"]), links: of(["uplink", "link"]) };
}

function verdictFinding(v: Verdict, reference: Reference): Finding {
  const largest = reference.sizes.at(-1);
  const evidence: VerdictEvidence = {
    confidence: v.confidence,
    observations: v.observations,
    fastRuns: v.fastRuns,
    referenceGBps: largest?.medianGBps ?? reference.lineGBps,
    retest: v.retest,
    ...(v.node ? { node: v.node } : {}),
    ...(v.hca ? { hca: v.hca } : {}),
    ...(v.leaf ? { leaf: v.leaf } : {}),
  };
  const code = CODE[v.kind];
  const severity = v.confidence === "high" && v.kind !== "flaky" && v.kind !== "suspect" ? "error" : "warning";
  return makeFinding(F, code, v.subject, evidence as never, severity);
}

const ORDER: Verdict["kind"][] = ["node", "rail", "uplink", "link", "flaky", "suspect"];

export function buildBenchReport(view: FabricView, run: BenchRun, plan: string, budget: Budget): FleetBenchReport {
  const d = run.diagnosis;
  const verdicts = [...d.verdicts].sort(
    (x, y) => ORDER.indexOf(x.kind) - ORDER.indexOf(y.kind) || (x.subject < y.subject ? -1 : 1),
  );
  const findings = verdicts.map((v) => verdictFinding(v, v.kind === "rail" ? d.rail : d.pair));
  const failedJobs = run.results.flatMap((r) =>
    r.ok
      ? []
      : [
          {
            job: r.job.id,
            round: r.job.round,
            nodes: r.job.nodes,
            reason: r.reason,
            ...(r.corrupt ? { corrupt: true } : {}),
          },
        ],
  );
  for (const f of failedJobs) {
    // A job whose test returned corrupted data is an error (as `analyze` judges the same output), not a missing result.
    const code = f.corrupt ? "FLEET_JOB_CORRUPT" : "FLEET_JOB_FAILED";
    findings.push(makeFinding(F, code, f.job, { reason: f.reason, nodes: f.nodes, round: f.round }));
  }
  // A node whose every job failed was never measured: that is not a pass, whatever the other nodes show.
  const measured = new Set(run.results.flatMap((r) => (r.ok ? [...r.job.nodes] : [])));
  const untested = view.nodes.filter((n) => !measured.has(n));
  if (untested.length > 0) {
    findings.push(makeFinding(F, "FLEET_NODES_UNTESTED", "fleet", { nodes: untested, total: view.nodes.length }));
  }
  const largest = d.pair.sizes.at(-1);
  if (largest && d.pair.from === "fleet" && largest.medianGBps < 0.8 * d.pair.lineGBps) {
    findings.push(
      makeFinding(F, "FLEET_BELOW_LINE_RATE", "fleet", {
        medianGBps: largest.medianGBps,
        lineGBps: d.pair.lineGBps,
        pct: Math.round((100 * largest.medianGBps) / d.pair.lineGBps),
      }),
    );
  }
  return {
    schemaVersion: 1,
    plan,
    nodes: view.nodes.length,
    rounds: run.rounds,
    jobs: run.jobs,
    failedJobs,
    budgetSeconds: budget.seconds,
    seconds: run.seconds,
    reference: { pair: d.pair, rail: d.rail },
    found: foundOf(d.verdicts),
    verdicts: verdicts.map(({ retest: _r, ...v }) => v),
    findings,
    summary: summarize(findings),
  };
}

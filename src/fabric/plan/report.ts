/**
 * The report of a rail-aware run: the node, NIC and path findings of the shared diagnosis, plus one finding per leaf
 * uplink and spine port the spine evidence names, and `found` by the fabric's identifiers. Pure.
 */
import { makeFinding, summarize } from "../../core/finding.js";
import type { Budget } from "../../nccl/fleet-bench/budget.js";
import { FLEET_BENCH_FINDINGS as F } from "../../nccl/fleet-bench/catalogue.js";
import { buildBenchReport, type FleetBenchReport, foundOf } from "../../nccl/fleet-bench/report.js";
import { leafId, leafOfHop, type RailFabric } from "../model.js";
import type { FabricView } from "../types.js";
import { fabricFound, type RailBenchRun } from "./run.js";

export function buildRailReport(view: FabricView, f: RailFabric, run: RailBenchRun, budget: Budget): FleetBenchReport {
  const base = buildBenchReport(view, run, "adaptive", budget);
  const spine = run.state.spine;
  const hopFindings = spine.bad.map((hop) => {
    const c = spine.cases.get(hop)!;
    const where = leafOfHop(f, hop)!;
    const evidence = {
      alone: c.alone.length,
      examples: c.alone
        .slice(0, 3)
        .map((o) => `${o.job} ${o.pctOfMedian}% of the rail median`)
        .join("; "),
      cleared: spine.cleared.has(hop),
      leaf: leafId(where.unit, where.rail),
      rail: where.rail,
    };
    return makeFinding(F, where.side === "uplink" ? "FLEET_BAD_LEAF_UPLINK" : "FLEET_BAD_SPINE_PORT", hop, evidence);
  });
  const findings = [...base.findings, ...hopFindings];
  return {
    ...base,
    found: fabricFound(view, foundOf(run.diagnosis.verdicts), spine),
    findings,
    summary: summarize(findings),
  };
}

/**
 * The report of a rail-aware run: the node, NIC and path findings of the shared diagnosis, plus one finding per leaf
 * uplink and spine port the spine evidence names, and `found` by the fabric's identifiers. Pure.
 */
import { makeFinding, summarize } from "../../core/finding.js";
import type { Budget } from "../bench/budget.js";
import { FLEET_BENCH_FINDINGS as F } from "../bench/catalogue.js";
import { buildBenchReport, type FleetBenchReport, foundOf } from "../bench/report.js";
import { cableOf } from "../cables.js";
import { leafId, leafOfHop, type RailFabric } from "../model.js";
import type { FabricView } from "../types.js";
import { fabricFound, type RailBenchRun } from "./run.js";

export function buildRailReport(view: FabricView, f: RailFabric, run: RailBenchRun, budget: Budget): FleetBenchReport {
  const base = buildBenchReport(view, run, "adaptive", budget);
  const spine = run.state.spine;
  const hopFindings = spine.verdicts.map(({ hop, confidence, loadOnly, farSide }) => {
    const c = spine.cases.get(hop)!;
    const where = leafOfHop(f, hop)!;
    const evidence = {
      alone: c.alone.length,
      examples: c.alone
        .slice(0, 3)
        .map((o) => `${o.job} at ${o.pctOfExpected}% of what it should reach beside the tests that ran with it`)
        .join("; "),
      cleared: spine.cleared.has(hop),
      leaf: leafId(where.unit, where.rail),
      rail: where.rail,
      confidence,
      loadOnly,
      cable: cableOf(f, hop),
      ...(farSide
        ? {
            farSide: {
              crossed: farSide.crossed,
              slow: farSide.slow,
              baseRatePct: Math.round(1000 * farSide.baseRate) / 10,
              chance: farSide.p,
            },
          }
        : {}),
    };
    return makeFinding(F, where.side === "uplink" ? "FLEET_BAD_LEAF_UPLINK" : "FLEET_BAD_SPINE_PORT", hop, evidence);
  });
  const nicFindings = run.state.downNics.map((d) => makeFinding(F, "FLEET_NIC_DOWN", `${d.node}/${d.hca}`, d));
  // The hops, and the same hops by leaf (how a user acts on them: one switch's ports at a time).
  const notClearedEvidence = {
    hops: spine.notCleared,
    total: f.units * f.rails * f.uplinksPerLeaf * 2,
    pathsUnknown: spine.pathsUnknown,
    byLeaf: spine.notClearedByLeaf,
  };
  const notCleared =
    spine.notCleared.length > 0 && f.units > 1
      ? [makeFinding(F, "FLEET_HOPS_NOT_CLEARED", "fabric", notClearedEvidence)]
      : [];
  const findings = [...base.findings, ...nicFindings, ...hopFindings, ...notCleared];
  return {
    ...base,
    found: fabricFound(view, foundOf(run.diagnosis.verdicts), spine, run.state.downNics),
    findings,
    summary: summarize(findings),
  };
}

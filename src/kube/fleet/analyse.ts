import { type Finding, makeFinding, summarize } from "../../core/finding.js";
import { naturalCompare } from "../../core/natural.js";
import type { Snapshot } from "../../host/types.js";
import type { NodeInventory } from "../../inventory/types.js";
import { FLEET_FINDINGS } from "./catalogue.js";
import { type ConsistencyReport, evaluateFleetConsistency } from "./consistency.js";
import type { CollectOutcome } from "./run.js";

/** How one snapshot becomes a verified node: the same pipeline as `verify --snapshot`. */
export type NodeAnalyser = {
  inventoryOf: (snapshot: Snapshot) => Promise<NodeInventory>;
  checks: (inventory: NodeInventory) => Finding[];
};

export type NodeResult = {
  node: string;
  status: "pass" | "warn" | "fail" | "not-verified";
  errors: number;
  warnings: number;
  findings: Finding[];
  /** Why it could not be verified (collector failed, timeout…). */
  reason?: string;
};

export type FleetReport = {
  nodes: NodeResult[];
  consistency: ConsistencyReport;
  failedNodes: { node: string; reason: string }[];
  /** Every finding: per node, consistency, and NODE_COLLECT_FAILED. */
  findings: Finding[];
};

/** Per-node verify results plus fleet consistency, from the gathered snapshots. */
export async function analyseFleet(
  outcomes: readonly CollectOutcome[],
  analyser: NodeAnalyser,
  strict = false,
): Promise<FleetReport> {
  const verified: { node: string; inventory: NodeInventory }[] = [];
  const nodes: NodeResult[] = [];
  const failedNodes: { node: string; reason: string }[] = [];
  const findings: Finding[] = [];
  for (const o of outcomes) {
    if (!o.ok) {
      failedNodes.push({ node: o.node, reason: o.reason });
      const f = makeFinding(FLEET_FINDINGS, "NODE_COLLECT_FAILED", o.node, { node: o.node, reason: o.reason });
      findings.push(f);
      nodes.push({ node: o.node, status: "not-verified", errors: 1, warnings: 0, findings: [f], reason: o.reason });
      continue;
    }
    const inventory = await analyser.inventoryOf(o.snapshot);
    const nodeFindings = analyser.checks(inventory).map((f) => ({ ...f, subject: `${o.node}/${f.subject}` }));
    const s = summarize(nodeFindings, strict);
    nodes.push({ node: o.node, status: s.status, errors: s.errors, warnings: s.warnings, findings: nodeFindings });
    findings.push(...nodeFindings);
    verified.push({ node: o.node, inventory });
  }
  const consistency = evaluateFleetConsistency(verified);
  findings.push(...consistency.findings);
  nodes.sort((a, b) => naturalCompare(a.node, b.node));
  return { nodes, consistency, failedNodes, findings };
}

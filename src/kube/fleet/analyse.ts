import { type Finding, makeFinding, summarize } from "../../core/finding.js";
import { naturalCompare } from "../../core/natural.js";
import { FLEET_FINDINGS } from "./catalogue.js";
import { type ConsistencyReport, evaluateFleetConsistency } from "./consistency.js";
import type { NodeAnalysis } from "./node-analyser.js";
import { evaluateRails, type NodeRail, type RailAddressing, type RailReport } from "./rails.js";
import type { CollectOutcome } from "./run.js";

export type NodeResult = {
  node: string;
  status: "pass" | "warn" | "fail" | "not-verified";
  errors: number;
  warnings: number;
  findings: Finding[];
  /** Why it could not be verified (collector failed, timeout…). */
  reason?: string;
  /** Where the result came from: the node agent's report, or a collector pod started by this run. */
  source?: "report" | "pod";
};

export type FleetReport = {
  nodes: NodeResult[];
  consistency: ConsistencyReport;
  /** Each rail (N-th data HCA) across the nodes: its subnet and the nodes off it. */
  rails: RailReport;
  failedNodes: { node: string; reason: string }[];
  /** Every finding: per node, consistency, and NODE_COLLECT_FAILED. */
  findings: Finding[];
};

/** Per-node verify results plus fleet consistency, from each node's analysis. Pure. */
export function buildFleetReport(
  outcomes: readonly CollectOutcome<NodeAnalysis>[],
  strict = false,
  railAddressing: RailAddressing | null = null,
): FleetReport {
  const verified: { node: string; values: Record<string, string> }[] = [];
  const railsByNode: { node: string; rails: NodeRail[] }[] = [];
  const nodes: NodeResult[] = [];
  const failedNodes: { node: string; reason: string }[] = [];
  const findings: Finding[] = [];
  for (const o of outcomes) {
    if (!o.ok) {
      failedNodes.push({ node: o.node, reason: o.reason });
      const f =
        o.invalidAt === undefined
          ? makeFinding(FLEET_FINDINGS, "NODE_COLLECT_FAILED", o.node, { node: o.node, reason: o.reason })
          : makeFinding(FLEET_FINDINGS, "SNAPSHOT_INVALID", o.node, {
              node: o.node,
              path: o.invalidAt,
              reason: o.reason,
            });
      findings.push(f);
      nodes.push({ node: o.node, status: "not-verified", errors: 1, warnings: 0, findings: [f], reason: o.reason });
      continue;
    }
    const a = o.result;
    const nodeFindings = a.findings.map((f) => ({ ...f, subject: `${o.node}/${f.subject}` }));
    const s = summarize(nodeFindings, strict);
    nodes.push({ node: o.node, status: s.status, errors: s.errors, warnings: s.warnings, findings: nodeFindings });
    findings.push(...nodeFindings);
    verified.push({ node: o.node, values: a.values });
    railsByNode.push({ node: o.node, rails: a.rails });
  }
  const consistency = evaluateFleetConsistency(verified);
  findings.push(...consistency.findings);
  const rails = evaluateRails(railsByNode, railAddressing);
  findings.push(...rails.findings);
  nodes.sort((a, b) => naturalCompare(a.node, b.node));
  return { nodes, consistency, rails, failedNodes, findings };
}

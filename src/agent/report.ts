/**
 * The per-node report the agent keeps in the cluster: one ConfigMap per node in the agent's namespace, holding what
 * `fleet verify` needs of a node (its verify findings, the values compared across the fleet, its rails) and what a
 * restarted agent needs to carry on (the errors it last reported). A ConfigMap needs no CRD to install and no
 * controller; its data is a JSON document with a published schema (docs/node-report.schema.json).
 */
import { createHash } from "node:crypto";
import { VERSION } from "../cli/version.js";
import { type Finding, type Summary, summarize } from "../core/finding.js";
import type { NodeRail } from "../kube/fleet/rails.js";
import type { ConditionStatus } from "./condition.js";

export const REPORT_SCHEMA_VERSION = 1;
export const REPORT_KIND = "kube-rdma.io/NodeReport";
export const REPORT_LABEL = "kube-rdma.io/node-report";
export const REPORT_NODE_ANNOTATION = "kube-rdma.io/node";
/** A digest of what the report says (not when): the agent rewrites an unchanged report only every heartbeat. */
export const REPORT_DIGEST_ANNOTATION = "kube-rdma.io/report-digest";
export const REPORT_DATA_KEY = "report.json";
/** A failing node's report keeps its first findings only: a ConfigMap holds at most 1 MiB. */
export const REPORT_FINDINGS_LIMIT = 200;

export type NodeReport = {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  kind: typeof REPORT_KIND;
  node: string;
  /** When this report was written (RFC 3339); an unchanged report is rewritten at least every heartbeat. */
  generatedAt: string;
  agentVersion: string;
  /** The condition's status this run wrote. */
  ready: ConditionStatus;
  summary: Summary;
  findings: Finding[];
  /** Findings left out beyond REPORT_FINDINGS_LIMIT. */
  findingsOmitted: number;
  /** The values `fleet verify` compares across nodes (OFED, driver, firmware, …), by attribute name. */
  values: Record<string, string>;
  rails: NodeRail[];
  /** Why the checks could not run, when `ready` is Unknown for that reason. */
  error?: string;
};

/** The ConfigMap's name for a node: `kube-rdma-node-NODE`, shortened with a hash when it would pass 253 characters. */
export function reportName(node: string): string {
  const name = `kube-rdma-node-${node}`;
  if (name.length <= 253) return name;
  const hash = createHash("sha256").update(node).digest("hex").slice(0, 10);
  return `${name.slice(0, 253 - 11)}-${hash}`;
}

export type ReportInput = {
  node: string;
  now: Date;
  ready: ConditionStatus;
  analysis: { findings: readonly Finding[]; values: Record<string, string>; rails: readonly NodeRail[] } | undefined;
  error?: string;
};

export function buildReport(i: ReportInput): NodeReport {
  const findings = [...(i.analysis?.findings ?? [])];
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    kind: REPORT_KIND,
    node: i.node,
    generatedAt: i.now.toISOString(),
    agentVersion: VERSION,
    ready: i.ready,
    summary: summarize(findings),
    findings: findings.slice(0, REPORT_FINDINGS_LIMIT),
    findingsOmitted: Math.max(0, findings.length - REPORT_FINDINGS_LIMIT),
    values: { ...(i.analysis?.values ?? {}) },
    rails: [...(i.analysis?.rails ?? [])],
    ...(i.error !== undefined ? { error: i.error } : {}),
  };
}

/** What the report says, as a short digest: ready, findings, values and rails (not the time). */
export function reportDigest(r: NodeReport): string {
  const what = JSON.stringify([r.ready, r.findings, r.findingsOmitted, r.values, r.rails, r.error ?? null]);
  return createHash("sha256").update(what).digest("hex").slice(0, 16);
}

/** The ConfigMap that holds a report. */
export function reportConfigMap(report: NodeReport, namespace: string) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: reportName(report.node),
      namespace,
      labels: { [REPORT_LABEL]: "true", "app.kubernetes.io/name": "kube-rdma", "app.kubernetes.io/component": "agent" },
      annotations: { [REPORT_NODE_ANNOTATION]: report.node, [REPORT_DIGEST_ANNOTATION]: reportDigest(report) },
    },
    data: { [REPORT_DATA_KEY]: JSON.stringify(report) },
  };
}

/**
 * `fleet verify`'s first source: the reports the node agents keep (one ConfigMap per node). A node whose report is
 * fresh (generated within --max-age) is judged from it; the others — no agent, a stale or damaged report — are
 * collected by pods as before. Fleet consistency is computed the same way on both.
 */
import type { KubeClients } from "../kube/api/client.js";
import type { NodeAnalysis } from "../kube/fleet/node-analyser.js";
import type { CollectOutcome } from "../kube/fleet/run.js";
import { REPORT_DATA_KEY, REPORT_LABEL, REPORT_NODE_ANNOTATION } from "./report.js";
import { parseReport } from "./validate.js";

export type ReportRead = {
  /** Outcomes for the nodes judged from their report. */
  outcomes: CollectOutcome<NodeAnalysis>[];
  /** Nodes to collect with pods, and why each has no usable report. */
  toCollect: { node: string; why: "no report" | "stale" | "damaged" }[];
  /** Damaged reports, by node: what is wrong with each. */
  damaged: { node: string; reason: string }[];
};

type ReportItem = { metadata?: { annotations?: Record<string, string> }; data?: Record<string, string> };

/** Lists every report in `namespace`, 500 a page (10,000 reports are one list of 20 pages, not 10,000 GETs). */
export async function listReports(clients: KubeClients, namespace: string): Promise<ReportItem[]> {
  const items: ReportItem[] = [];
  let cont: string | undefined;
  do {
    const page = await clients.call({ verb: "list", resource: "configmaps", namespace }, () =>
      clients.core.listNamespacedConfigMap({
        namespace,
        labelSelector: `${REPORT_LABEL}=true`,
        limit: 500,
        ...(cont ? { _continue: cont } : {}),
      }),
    );
    items.push(...(page.items as ReportItem[]));
    cont = page.metadata?._continue || undefined;
  } while (cont);
  return items;
}

/** Sorts the selected nodes into judged-from-report and to-collect. Pure. */
export function judgeReports(
  items: readonly ReportItem[],
  nodes: readonly string[],
  maxAgeSeconds: number,
  now: Date,
): ReportRead {
  const wanted = new Set(nodes);
  const byNode = new Map<string, string>();
  for (const item of items) {
    const node = item.metadata?.annotations?.[REPORT_NODE_ANNOTATION];
    const text = item.data?.[REPORT_DATA_KEY];
    if (node !== undefined && text !== undefined && wanted.has(node)) byNode.set(node, text);
  }
  const outcomes: CollectOutcome<NodeAnalysis>[] = [];
  const toCollect: ReportRead["toCollect"] = [];
  const damaged: ReportRead["damaged"] = [];
  for (const node of nodes) {
    const text = byNode.get(node);
    if (text === undefined) {
      toCollect.push({ node, why: "no report" });
      continue;
    }
    const parsed = parseReport(text);
    if (!parsed.ok || parsed.report.node !== node) {
      damaged.push({ node, reason: parsed.ok ? `it names another node (${parsed.report.node})` : parsed.reason });
      toCollect.push({ node, why: "damaged" });
      continue;
    }
    const r = parsed.report;
    const age = (now.getTime() - Date.parse(r.generatedAt)) / 1000;
    // A report from the future (clock skew) counts as fresh only within the same window.
    if (!(Math.abs(age) <= maxAgeSeconds)) {
      toCollect.push({ node, why: "stale" });
      continue;
    }
    outcomes.push({ node, ok: true, result: { findings: r.findings, values: r.values, rails: r.rails }, pod: "" });
  }
  return { outcomes, toCollect, damaged };
}

/** One line for stderr: which nodes came from reports and which were collected. */
export function describeSources(read: ReportRead, maxAgeSeconds: number): string {
  const counts = new Map<string, number>();
  for (const c of read.toCollect) counts.set(c.why, (counts.get(c.why) ?? 0) + 1);
  const why = [...counts].map(([w, n]) => `${n} ${w}`).join(", ");
  const sample = read.toCollect.slice(0, 5).map((c) => c.node);
  const more = read.toCollect.length > sample.length ? `, … ${read.toCollect.length - sample.length} more` : "";
  return (
    `kube-rdma fleet: ${read.outcomes.length} node(s) read from their agent's report (at most ${maxAgeSeconds} s old), ` +
    `${read.toCollect.length} to collect with pods${read.toCollect.length ? ` (${why}: ${sample.join(", ")}${more})` : ""}\n`
  );
}

import { bySeverity, type Finding, summarize } from "../../core/finding.js";
import { groupIdentical, summaryLine } from "../../report/findings-text.js";
import type { ClusterEvaluation, ResourceAmount } from "./evaluate.js";

const amount = (r: ResourceAmount | null) =>
  r ? `${r.resource} ${r.allocatable}${r.allocatable !== r.capacity ? `/${r.capacity}` : ""}` : "-";

/** One line and its fix per finding; the same finding on several nodes prints once with their names. */
export function renderFindingsText(findings: readonly Finding[]): string {
  const lines: string[] = [];
  for (const f of groupIdentical([...findings].sort(bySeverity))) {
    lines.push(`${f.severity.toUpperCase().padEnd(7)} ${f.code} (${f.subject}): ${f.message}`);
    lines.push(`        fix: ${f.fix}`);
  }
  return lines.join("\n");
}

/** The `cluster` text report: nodes table, components, CRDs, findings and the verdict. */
export function renderClusterText(ev: ClusterEvaluation, header: string, strict = false): string {
  const out: string[] = [header, "", "Nodes (allocatable[/capacity]):"];
  const w = Math.max(4, ...ev.nodes.map((n) => n.name.length)) + 2;
  for (const n of ev.nodes) {
    const state = [n.ready ? "Ready" : "NotReady", n.schedulable ? "" : "cordoned", n.taints.length ? "tainted" : ""]
      .filter(Boolean)
      .join(",");
    const rdma = n.rdma.length ? n.rdma.map(amount).join(" ") : "-";
    out.push(`  ${n.name.padEnd(w)}${state.padEnd(20)}GPU ${amount(n.gpu).padEnd(22)}RDMA ${rdma}`);
  }
  out.push("", "Components:");
  if (ev.components.length === 0) out.push("  (none found)");
  const nameWidth = Math.max(46, ...ev.components.map((c) => c.name.length + 2));
  for (const c of ev.components) {
    out.push(
      `  ${c.kind.padEnd(20)}${c.name.padEnd(nameWidth)}${c.ready}/${c.desired} ready${c.notReadyOn.length ? ` (not ready on ${c.notReadyOn.join(", ")})` : ""}`,
    );
  }
  out.push("", "CRDs:");
  for (const c of ev.crds)
    out.push(`  ${c.present ? "✓" : "✗"} ${c.name}${c.present ? ` (${c.versions.join(", ")})` : " missing"}`);
  out.push("");
  if (ev.findings.length) out.push(renderFindingsText(ev.findings), "");
  const s = summarize(ev.findings, strict);
  out.push(summaryLine(s));
  return `${out.join("\n")}\n`;
}

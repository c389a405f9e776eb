/**
 * The `fleet verify -o html` page: the node × check matrix (one row per node, one column per fleet attribute and per
 * finding code seen), the consistency table, the nodes not verified, and the findings grouped by code.
 */
import { bySeverity, type Finding, type Severity, summarize } from "../../../core/finding.js";
import type { NodeResult } from "../../../kube/fleet/analyse.js";
import { FLEET_ATTRIBUTES } from "../../../kube/fleet/consistency.js";
import type { FleetVerifyResult } from "../../kinds/fleet-verify.js";
import { type MatrixCell, matrixChart } from "../charts/matrix.js";
import { legend, statusOf, table } from "../components.js";
import { count } from "../format.js";
import { type Html, h, richText } from "../html.js";
import { page } from "../page.js";

type Column = { code: string; label: string };

const FILL: Record<Severity | "ok" | "none", string> = {
  error: "var(--error)",
  warning: "var(--warning)",
  info: "var(--info)",
  ok: "var(--ok-bg)",
  none: "var(--panel)",
};
const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** The fleet attributes first (in their order), then every error/warning code any node has, errors first. */
function columnsOf(result: FleetVerifyResult): Column[] {
  const attrCodes = new Set<string>(FLEET_ATTRIBUTES.map((a) => a.code));
  const seen = new Map<string, Severity>();
  for (const n of result.report.nodes) {
    for (const f of n.findings) {
      if (f.severity === "info" || attrCodes.has(f.code) || f.code === "NODE_COLLECT_FAILED") continue;
      const prev = seen.get(f.code);
      if (!prev || RANK[f.severity] < RANK[prev]) seen.set(f.code, f.severity);
    }
  }
  const codes = [...seen].sort((a, b) => RANK[a[1]] - RANK[b[1]] || a[0].localeCompare(b[0])).map(([c]) => c);
  return [
    ...FLEET_ATTRIBUTES.map((a) => ({ code: a.code, label: a.name })),
    ...codes.map((c) => ({ code: c, label: c })),
  ];
}

/** Nodes that need a look first: an error, not verified, a warning (its own or an odd value), then the rest. */
function rowOrder(n: NodeResult, odd: readonly Finding[]): number {
  if (n.status === "not-verified") return 1;
  const all = [...n.findings, ...odd];
  if (all.some((f) => f.severity === "error")) return 0;
  return all.some((f) => f.severity === "warning") ? 2 : 3;
}

function nodeMatrix(result: FleetVerifyResult, columns: readonly Column[]): Html {
  const byNode = new Map<string, Finding[]>();
  for (const f of result.report.consistency.findings) byNode.set(f.subject, [...(byNode.get(f.subject) ?? []), f]);
  const order = (n: NodeResult) => rowOrder(n, byNode.get(n.node) ?? []);
  const report = { ...result.report, nodes: [...result.report.nodes].sort((a, b) => order(a) - order(b)) };
  const cells: MatrixCell[] = [];
  report.nodes.forEach((n, row) => {
    const own = [...n.findings, ...(byNode.get(n.node) ?? [])];
    columns.forEach((c, col) => {
      if (n.status === "not-verified") {
        cells.push({
          row,
          col,
          fill: FILL.none,
          title: `${n.node}: not verified (${n.reason ?? "no snapshot"})`,
          kind: "not-verified",
        });
        return;
      }
      const hits = own.filter((f) => f.code === c.code).sort(bySeverity);
      const worst = hits[0]?.severity;
      // Thousands of ok cells: coloured by their class, no tooltip (the row and column labels name them).
      if (!worst) cells.push({ row, col, kind: "sev-ok" });
      else {
        const title = `${n.node}, ${c.label}: ${hits.map((f) => f.message).join(" ")}`;
        cells.push({ row, col, title, kind: `sev-${worst}` });
      }
    });
  });
  const size = { w: 26, h: report.nodes.length <= 40 ? 22 : 12 };
  return matrixChart({
    rows: report.nodes.map((n) => ({
      name: n.node,
      marked: n.status === "fail" || n.status === "not-verified",
      note: n.status,
    })),
    cols: columns.map((c) => ({ name: c.label })),
    cells,
    cell: size,
    className: "fleet",
    title: `${count(report.nodes.length, "node")} × ${count(columns.length, "check")}`,
  });
}

function consistencyTable(result: FleetVerifyResult): Html {
  return table({
    columns: ["attribute", "majority", { label: "nodes with it", num: true }, "nodes that differ"],
    rows: result.report.consistency.attributes.map((a) => ({
      className: a.odd.length ? "odd" : "",
      cells: [
        a.name,
        a.majority,
        a.majorityNodes,
        a.odd.length ? a.odd.map((o) => `${o.node}: ${o.value}`).join("; ") : "none: all nodes agree",
      ],
    })),
  });
}

/** One entry per code: its message and fix as on the first node, and every node it was found on. */
function groupedFindings(findings: readonly Finding[]): Html {
  if (findings.length === 0) return h`<p class="none">No findings on any node.</p>`;
  const groups = new Map<string, Finding[]>();
  for (const f of [...findings].sort(bySeverity)) {
    const key = `${f.severity}\u0000${f.code}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const items = [...groups.values()].map((list) => {
    const f = list[0]!;
    const subjects = list.map((x) => x.subject);
    const shown = subjects.slice(0, 30);
    const more = subjects.length - shown.length;
    return h`<li class="finding sev-${f.severity}" data-severity="${f.severity}" data-code="${f.code}">
<span class="badge ${f.severity}">${f.severity}</span><code>${f.code}</code> <span class="subject">${count(list.length, "subject")}</span>
<p>${richText(f.message)}${list.length > 1 ? " (first of them)" : ""}</p>
<p class="fix"><b>Fix:</b> ${richText(f.fix)}</p>
<p class="fix"><b>On:</b> ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}</p></li>`;
  });
  return h`<ol class="findings">${items}</ol>`;
}

export function renderHtml(result: FleetVerifyResult): string {
  const { report, strict, run } = result;
  const s = summarize(report.findings, strict);
  const columns = columnsOf(result);
  const verified = report.nodes.length - report.failedNodes.length;
  return page({
    title: `kube-rdma fleet verify: ${count(report.nodes.length, "node")}`,
    subtitle: `Context ${result.context}; run ${run.id} in namespace ${run.namespace} with ${run.image}; ${verified} of ${count(report.nodes.length, "node")} verified${run.interrupted ? "; interrupted, partial" : ""}.`,
    status: statusOf(s),
    findings: report.findings,
    body: [
      h`<h2>Nodes × checks</h2>`,
      h`<div class="scroll">${nodeMatrix(result, columns)}</div>`,
      legend([
        { colour: FILL.ok, label: "ok" },
        { colour: FILL.info, label: "info" },
        { colour: FILL.warning, label: "warning (or a value that differs from the fleet's majority)" },
        { colour: FILL.error, label: "error" },
        { colour: FILL.none, label: "not verified" },
      ]),
      h`<h2>Fleet consistency</h2>`,
      consistencyTable(result),
      report.failedNodes.length
        ? h`<h2>Not verified (${report.failedNodes.length})</h2><ul>${report.failedNodes.map((f) => h`<li><b>${f.node}</b>: ${f.reason}</li>`)}</ul>`
        : h``,
      h`<h2>Findings by code</h2>`,
      groupedFindings(report.findings),
    ],
  });
}

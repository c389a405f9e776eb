import { summarize } from "../../core/finding.js";
import { renderFindingSections, summaryLine } from "../../report/findings-text.js";
import type { FleetReport } from "./analyse.js";

/** The `fleet verify` text report: per-node lines, fleet consistency, nodes that failed, findings, verdict. */
export function renderFleetText(r: FleetReport, strict = false): string {
  const out: string[] = ["Per node:"];
  const w = Math.max(4, ...r.nodes.map((n) => n.node.length)) + 2;
  for (const n of r.nodes) {
    const codes = [...new Set(n.findings.filter((f) => f.severity !== "info").map((f) => f.code))];
    const detail =
      n.status === "not-verified"
        ? n.reason
        : `${n.errors} error(s), ${n.warnings} warning(s)${codes.length ? `: ${codes.join(", ")}` : ""}`;
    out.push(`  ${n.node.padEnd(w)}${n.status.toUpperCase().padEnd(14)}${detail}`);
  }
  out.push("", "Fleet consistency (majority, then the nodes that differ):");
  for (const a of r.consistency.attributes) {
    out.push(`  ${a.name}: ${a.majority} on ${a.majorityNodes} node(s)${a.odd.length ? "" : " — all nodes agree"}`);
    for (const o of a.odd) out.push(`    odd: ${o.node}: ${o.value}`);
  }
  if (r.rails.rails.length) {
    const routed = r.rails.addressing === "routed";
    out.push(
      "",
      routed
        ? "Rails (N-th data HCA of every node; routed: a subnet per NIC per node, not compared):"
        : "Rails (N-th data HCA of every node: its subnet, then the nodes off it):",
    );
    for (const rail of r.rails.rails) {
      if (routed) {
        out.push(`  rail ${rail.rail}: ${rail.nodes} node(s) (${rail.hcas})`);
        continue;
      }
      out.push(
        `  rail ${rail.rail}: ${rail.subnet ?? "no IPv4 subnet"} on ${rail.onSubnet}/${rail.nodes} node(s) (${rail.hcas})`,
      );
      for (const o of rail.odd) out.push(`    odd: ${o.node}: ${o.hca} on ${o.subnet ?? "no IPv4 subnet"}`);
    }
    const advice = r.rails.findings.find((f) =>
      ["FLEET_RAIL_LAYOUT", "FLEET_RAIL_LAYOUT_ROUTED", "RAIL_ADDRESSING_NOT_CHECKED"].includes(f.code),
    );
    if (advice) out.push(`  ${advice.fix}`);
  }
  if (r.failedNodes.length) {
    out.push("", `Not verified (${r.failedNodes.length}):`);
    for (const f of r.failedNodes) out.push(`  ${f.node}: ${f.reason}`);
  }
  // Errors and warnings with their fixes; the same finding on N nodes prints once with the N subjects.
  out.push(...renderFindingSections(r.findings.filter((f) => f.severity !== "info")));
  const s = summarize(r.findings, strict);
  const verified = r.nodes.length - r.failedNodes.length;
  const odd = new Set(r.consistency.findings.map((f) => f.subject));
  out.push(
    "",
    summaryLine(
      s,
      `${verified}/${r.nodes.length} node(s) verified, ${odd.size} odd node(s)${odd.size ? ` (${[...odd].join(", ")})` : ""}`,
    ),
  );
  return `${out.join("\n")}\n`;
}

/** A one-line progress bar for stderr on a terminal. */
export function progressLine(done: number, total: number, failed: number, width = 30): string {
  const filled = total ? Math.round((done / total) * width) : width;
  return `\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} nodes${failed ? `, ${failed} failed` : ""}`;
}

/** Text of `fleet bench`: the budget before anything runs, and the report at the end. Pure. */
import { renderFindingSections, summaryLine } from "../../report/findings-text.js";
import type { Budget } from "./budget.js";
import type { FleetBenchReport } from "./report.js";

const gib = (bytes: number) => (bytes >= 2 ** 30 ? `${bytes / 2 ** 30} GiB` : `${bytes / 2 ** 20} MiB`);
const secs = (s: number) => (s >= 120 ? `${Math.round(s / 6) / 10} min` : `${Math.round(s * 10) / 10} s`);

export function renderBudget(b: Budget, nodes: number, plan: string): string {
  const lines = [`Budget for ${nodes} node(s), plan ${plan}: about ${secs(b.seconds)}`];
  for (const r of b.rounds) {
    const jobs = r.jobs ? `${r.jobs} job(s) in ${r.waves} wave(s)` : `${r.waves} wave(s)`;
    lines.push(`  round ${r.round}: ${jobs} × ${secs(r.jobSeconds)} = ${secs(r.seconds)}`);
  }
  lines.push(...b.assumptions.map((a) => `  assumes ${a}`));
  return `${lines.join("\n")}\n`;
}

export function renderBenchReport(r: FleetBenchReport): string {
  const lines = [
    `kube-rdma fleet bench: ${r.nodes} node(s), plan ${r.plan}: ${r.rounds.length} round(s), ${r.jobs} job(s), ${secs(r.seconds)} (budget ${secs(r.budgetSeconds)})`,
  ];
  for (const ref of [r.reference.pair, r.reference.rail]) {
    const top = ref.sizes.at(-1);
    if (!top) continue;
    lines.push(
      `  ${ref.kind === "pair" ? "pairs" : "rails"}: median ${top.medianGBps.toFixed(1)} GB/s at ${gib(top.bytes)} (MAD ${top.madGBps.toFixed(2)}, ${Math.round((100 * top.medianGBps) / ref.lineGBps)}% of line rate), slow below ${top.thresholdGBps.toFixed(1)} GB/s`,
    );
  }
  lines.push("", "Rounds");
  for (const x of r.rounds) {
    lines.push(
      `  ${String(x.round).padStart(3)}  ${String(x.jobs).padStart(5)} job(s)  ${x.failed} failed  ${secs(x.seconds)}`,
    );
  }
  const { nodes, rails, links, uplinks, spinePorts } = r.found;
  const part = (xs: readonly string[], what: string) =>
    `${xs.length} ${what}(s)${xs.length ? ` ${xs.join(", ")}` : ""}`;
  const hops = uplinks && spinePorts ? `; ${part(uplinks, "leaf uplink")}; ${part(spinePorts, "spine port")}` : "";
  lines.push("", `Found (confirmed): ${part(nodes, "node")}; ${part(rails, "rail")}; ${part(links, "link")}${hops}`);
  if (r.failedJobs.length) {
    lines.push("", `Jobs without a result (${r.failedJobs.length})`);
    for (const f of r.failedJobs) lines.push(`  ${f.job}  ${f.nodes.join("↔")}  ${f.reason}`);
  }
  lines.push(...renderFindingSections(r.findings));
  const s = r.summary;
  lines.push("", summaryLine(s));
  return `${lines.join("\n")}\n`;
}

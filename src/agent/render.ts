import type { QuarantineFile } from "../device-plugin/quarantine.js";
import { wrap } from "../report/findings-text.js";
/** `agent --once` in words: what the agent wrote (or, with --dry-run, would write) for its node. */
import type { AgentPlan } from "./plan.js";

export const AGENT_SCHEMA_VERSION = 1;

export type AgentRunResult = {
  plan: AgentPlan;
  dryRun: boolean;
  source: string;
  /** The HCAs in error, for the device plugin's --quarantine-file; null when the checks could not run. */
  quarantine: QuarantineFile | null;
};

export function agentStructured(r: AgentRunResult) {
  return {
    schemaVersion: AGENT_SCHEMA_VERSION,
    dryRun: r.dryRun,
    source: r.source,
    ...r.plan,
    quarantine: r.quarantine,
  };
}

export function renderAgentText(r: AgentRunResult, width = 80): string {
  const { plan } = r;
  const verb = r.dryRun ? "would write" : "wrote";
  const lines = [`kube-rdma agent: node ${plan.node} (${r.source})${r.dryRun ? ", dry run: nothing written" : ""}`, ""];
  const c = plan.condition;
  lines.push(`  ${c.type}=${c.status}  reason ${c.reason}`);
  for (const l of wrap(c.message, width - 4)) lines.push(`    ${l}`);
  lines.push(
    plan.statusPatch
      ? `  Node status: ${verb} the ${c.type} condition`
      : "  Node status: unchanged (heartbeat still fresh), not written",
  );
  lines.push(`  Events: ${plan.events.length === 0 ? "none" : plan.events.length}`);
  for (const e of plan.events) lines.push(`    ${e.type} ${e.reason} on ${e.subject}`);
  const s = plan.report.summary;
  lines.push(
    plan.configMap
      ? `  Report: ConfigMap ${plan.configMap.metadata.namespace}/${plan.configMap.metadata.name} (${s.errors} error(s), ${s.warnings} warning(s), ${s.infos} info)`
      : "  Report: not written (the checks did not run; the last report stays and ages)",
  );
  const q = r.quarantine?.hcas ?? [];
  lines.push(
    `  Quarantine: ${q.length === 0 ? "no HCA" : q.map((h) => `${h.hca} (${h.codes.join(", ")})`).join(", ")}` +
      (q.length ? " — withdrawn by the device plugin given --quarantine-file" : ""),
  );
  if (plan.taint === null) lines.push("  Taint: off (--taint not given)");
  else if (plan.taint.action === "held") lines.push(`  Taint: held back by the circuit breaker: ${plan.taint.why}`);
  else lines.push(`  Taint: ${plan.taint.action}`);
  return `${lines.join("\n")}\n`;
}

/**
 * One agent run, decided without I/O: this run's findings (or why the checks could not run) and what the cluster
 * holds from earlier runs in, everything the agent would write out. `agent --once --dry-run` prints exactly this;
 * the loop applies it.
 */
import type { NodeAnalysis } from "../kube/fleet/node-analyser.js";
import {
  CONDITION_TYPE,
  conditionNeedsWrite,
  deriveCondition,
  type NodeCondition,
  nextCondition,
} from "./condition.js";
import { type AgentEvent, errorKeys, eventsBetween, type ProblemKey } from "./events.js";
import { buildReport, type NodeReport, reportConfigMap, reportDigest } from "./report.js";
import { decideTaint, type TaintDecision } from "./taint.js";

export type AgentSettings = {
  namespace: string;
  heartbeatSeconds: number;
  /** null: --taint is off. */
  taint: { maxShare: number } | null;
};

/** What the cluster says of earlier runs: the condition on the Node, the last report, the taint picture. */
export type ClusterState = {
  condition?: NodeCondition | undefined;
  /** The errors the last report listed; undefined when there is no report (first run on this node). */
  previousErrors?: ProblemKey[] | undefined;
  /** The last report written: its digest and time (an unchanged report is rewritten only every heartbeat). */
  lastReport?: { digest: string; generatedAt: string } | undefined;
  tainted: boolean;
  taintedNodes: number;
  selectedNodes: number;
  /** The previous run of this process held the taint back (its Event was written then; not again each run). */
  taintHeld?: boolean;
};

export type RunOutcome = { ok: true; analysis: NodeAnalysis; withinGrace: boolean } | { ok: false; reason: string };

export type AgentPlan = {
  node: string;
  condition: NodeCondition;
  /** The Node status patch, or null when nothing changed and the heartbeat is fresh. */
  statusPatch: { status: { conditions: NodeCondition[] } } | null;
  events: AgentEvent[];
  report: NodeReport;
  /**
   * The report's ConfigMap; null when it need not be written: the checks could not run (the last good report stays,
   * and ages), or it says what the last one said and that one is younger than the heartbeat.
   */
  configMap: ReturnType<typeof reportConfigMap> | null;
  taint: TaintDecision | null;
};

export function planRun(
  node: string,
  outcome: RunOutcome,
  state: ClusterState,
  s: AgentSettings,
  now: Date,
): AgentPlan {
  const verdict = deriveCondition(
    outcome.ok
      ? { kind: "checked", findings: outcome.analysis.findings, withinGrace: outcome.withinGrace }
      : { kind: "failed", reason: outcome.reason },
  );
  const condition = nextCondition(verdict, state.condition, now);
  const write = conditionNeedsWrite(condition, state.condition, now, s.heartbeatSeconds);
  // A run that could not check says nothing new about problems: it neither raises nor clears them.
  const events = outcome.ok ? eventsBetween(state.previousErrors, outcome.analysis.findings) : [];
  const report = buildReport({
    node,
    now,
    ready: condition.status,
    analysis: outcome.ok ? outcome.analysis : undefined,
    ...(outcome.ok ? {} : { error: outcome.reason }),
  });
  const taint =
    s.taint === null || condition.status === "Unknown"
      ? null
      : decideTaint({
          failing: condition.status === "False",
          tainted: state.tainted,
          taintedNodes: state.taintedNodes,
          selectedNodes: state.selectedNodes,
          maxShare: s.taint.maxShare,
        });
  return {
    node,
    condition,
    statusPatch: write ? { status: { conditions: [condition] } } : null,
    events,
    report,
    configMap:
      outcome.ok && reportNeedsWrite(report, state.lastReport, now, s.heartbeatSeconds)
        ? reportConfigMap(report, s.namespace)
        : null,
    taint,
  };
}

function reportNeedsWrite(
  report: NodeReport,
  last: ClusterState["lastReport"],
  now: Date,
  heartbeatSeconds: number,
): boolean {
  if (last === undefined || last.digest !== reportDigest(report)) return true;
  const at = Date.parse(last.generatedAt);
  return !Number.isFinite(at) || now.getTime() - at >= heartbeatSeconds * 1000;
}

/**
 * What the cluster holds after a plan is applied: the agent keeps this in memory, so that a steady run reads
 * nothing from the API server (a restarted agent reads it back once, readClusterState).
 */
export function stateAfter(plan: AgentPlan, before: ClusterState, outcomeOk: boolean): ClusterState {
  const tainted = plan.taint?.action === "taint" ? true : plan.taint?.action === "untaint" ? false : before.tainted;
  return {
    condition: plan.statusPatch ? plan.condition : before.condition,
    previousErrors: outcomeOk ? errorKeys(plan.report.findings) : before.previousErrors,
    lastReport: plan.configMap
      ? { digest: reportDigest(plan.report), generatedAt: plan.report.generatedAt }
      : before.lastReport,
    tainted,
    taintedNodes: 0,
    selectedNodes: 1,
    taintHeld: plan.taint?.action === "held",
  };
}

/** The errors a report lists (what the next run compares with). */
export function reportErrors(report: NodeReport): ProblemKey[] {
  return errorKeys(report.findings);
}

/** The agent's condition among a Node's conditions, if any. */
export function conditionOf(conditions: readonly { type?: string }[] | undefined): NodeCondition | undefined {
  return conditions?.find((c) => c.type === CONDITION_TYPE) as NodeCondition | undefined;
}

/**
 * The Events the agent emits on its Node: one Warning for each error finding that is new since the last run, one
 * Normal for each that cleared. Pure. An Event is the record a person finds in `kubectl describe node` and
 * `kubectl get events --field-selector involvedObject.kind=Node`; the condition says the current state, events say
 * what happened (https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/event-v1/).
 */
import type { Finding } from "../core/finding.js";
import { oneLine } from "./condition.js";

/** What identifies one problem across runs: its code and its subject (`PORT_DOWN mlx5_3/1`). */
export type ProblemKey = { code: string; subject: string };

export const RECOVERED_REASON = "RDMARecovered";

export type AgentEvent = { type: "Warning" | "Normal"; reason: string; message: string; subject: string };

const keyOf = (p: ProblemKey) => `${p.code}\u0000${p.subject}`;

/** The error findings of a run, as keys (what the report keeps so that a restarted agent knows what it said). */
export function errorKeys(findings: readonly Finding[]): ProblemKey[] {
  return findings.filter((f) => f.severity === "error").map((f) => ({ code: f.code, subject: f.subject }));
}

/**
 * Events for the change from the previous run's errors to this run's findings. `previous` undefined means the agent
 * knows nothing of earlier runs (first start on this node): every error is new.
 */
export function eventsBetween(previous: readonly ProblemKey[] | undefined, findings: readonly Finding[]): AgentEvent[] {
  const before = new Set((previous ?? []).map(keyOf));
  const errors = findings.filter((f) => f.severity === "error");
  const now = new Set(errors.map(keyOf));
  const events: AgentEvent[] = [];
  for (const f of errors) {
    if (!before.has(keyOf(f)))
      events.push({ type: "Warning", reason: f.code, message: oneLine(f), subject: f.subject });
  }
  for (const p of previous ?? []) {
    if (now.has(keyOf(p))) continue;
    events.push({
      type: "Normal",
      reason: RECOVERED_REASON,
      message: `${p.subject}: ${p.code} no longer found`,
      subject: p.subject,
    });
  }
  return events;
}

export const TAINT_HELD_REASON = "RDMATaintHeld";

/** A failing node the breaker did not taint: why, in the Event a person finds on the Node. */
export function heldEvent(why: string): AgentEvent {
  return {
    type: "Warning",
    reason: TAINT_HELD_REASON,
    subject: "node",
    message: `the node fails its RDMA checks but was not tainted: ${why}`,
  };
}

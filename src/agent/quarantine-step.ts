/**
 * What the agent does with the device plugin's quarantine file in one run, decided without I/O. The quarantine is
 * the node's own decision and does not wait on the API server: it is written on every run, before anything is sent
 * to the API server, so an outage (or an admission denial) longer than the plugin's --quarantine-max-age does not
 * let a broken HCA be handed out again. It is lifted only by a run that checked the HCA and found it healthy (or by
 * an operator who removes the file and stops the agent); a run that could not check keeps what was quarantined and
 * refreshes its time. Within the start-up grace (links and OFED still coming up) nothing is written: the errors are
 * not yet a verdict.
 */
import { type QuarantineFile, quarantineOf } from "../device-plugin/quarantine.js";
import type { NodeInventory } from "../inventory/types.js";
import type { AgentEvent } from "./events.js";
import type { RunOutcome } from "./plan.js";

export const QUARANTINED_REASON = "HCAQuarantined";
export const RELEASED_REASON = "HCAReleased";

export type QuarantineStep = {
  /** The file to write this run; null: leave the file as it is (start-up grace, nothing ever quarantined). */
  write: QuarantineFile | null;
  /** HCAs quarantined by this run that were not before, and those released. */
  quarantined: string[];
  released: string[];
  events: AgentEvent[];
};

const names = (q: QuarantineFile | null | undefined) => new Set((q?.hcas ?? []).map((h) => h.hca));

export function decideQuarantine(
  node: string,
  outcome: RunOutcome,
  inventory: NodeInventory | undefined,
  previous: QuarantineFile | null,
  now: Date,
): QuarantineStep {
  const none: QuarantineStep = { write: null, quarantined: [], released: [], events: [] };
  if (!outcome.ok || !inventory) {
    // The checks could not run: what was quarantined stays, with a fresh time so the plugin keeps honouring it.
    return previous ? { ...none, write: { ...previous, generatedAt: now.toISOString() } } : none;
  }
  if (outcome.withinGrace) return none;
  const next = quarantineOf(
    node,
    outcome.analysis.findings,
    inventory.hcas.map((h) => h.name),
    now,
  );
  const before = names(previous);
  const after = names(next);
  const quarantined = [...after].filter((h) => !before.has(h));
  const released = [...before].filter((h) => !after.has(h));
  const codes = new Map(next.hcas.map((h) => [h.hca, h.codes]));
  const events: AgentEvent[] = [
    ...quarantined.map(
      (hca): AgentEvent => ({
        type: "Warning",
        reason: QUARANTINED_REASON,
        subject: hca,
        message: `${hca} quarantined: the device plugin stops handing it to new pods (${(codes.get(hca) ?? []).join(", ")}); the node keeps serving its other HCAs.`,
      }),
    ),
    ...released.map(
      (hca): AgentEvent => ({
        type: "Normal",
        reason: RELEASED_REASON,
        subject: hca,
        message: `${hca} released from quarantine: its checks pass again and the device plugin hands it out again.`,
      }),
    ),
  ];
  return { write: next, quarantined, released, events };
}

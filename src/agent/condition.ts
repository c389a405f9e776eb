/**
 * The Node condition the agent keeps on its own Node: `RDMAReady`. Pure: findings in, condition out.
 *
 * Kubernetes NodeCondition semantics (type, status True/False/Unknown, reason in CamelCase-or-CODE, one-line
 * message, lastHeartbeatTime, lastTransitionTime that moves only when the status changes) follow the core API:
 * https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/#NodeStatus
 * node-problem-detector writes its conditions the same way:
 * https://github.com/kubernetes/node-problem-detector#problem-daemon
 */
import type { Finding } from "../core/finding.js";

export const CONDITION_TYPE = "RDMAReady";

export type ConditionStatus = "True" | "False" | "Unknown";

export type NodeCondition = {
  type: typeof CONDITION_TYPE;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
};

/** Reasons the agent writes besides a finding's code. */
export const REASONS = {
  passed: "RDMAChecksPassed",
  checkFailed: "RDMACheckFailed",
  bootGrace: "RDMAWithinStartupGrace",
  /** No problem found, but nvidia-smi could not run here: the GPU checks (ECC, row remap, GPU PCIe, GPU↔NIC) did not. */
  passedGpuNotChecked: "RDMAChecksPassedGPUChecksNotRun",
  /** No problem found, but some other check could not run (its finding says which and why). */
  passedSomeNotRun: "RDMAChecksPassedSomeNotRun",
} as const;

/** The finding code of a check that could not run (a fact about this environment, not a problem of the node). */
export const SKIPPED_CODE = "CHECK_SKIPPED";

/** A condition message stays one short line: the API server stores it on every Node object. */
export const MESSAGE_LIMIT = 512;

/** One line a person reads in `kubectl describe node`: what is wrong (naming the device) and the fix. */
export function oneLine(f: Pick<Finding, "subject" | "message" | "fix">, suffix = ""): string {
  const what = f.message.includes(f.subject) ? f.message : `${f.subject}: ${f.message}`;
  const text = `${what} Fix: ${f.fix}${suffix}`.replace(/\s+/g, " ").trim();
  return text.length <= MESSAGE_LIMIT ? text : `${text.slice(0, MESSAGE_LIMIT - 1)}…`;
}

const RANK = { error: 0, warning: 1, info: 2 } as const;

/**
 * The finding that names the condition: the first error (checks run from the driver outwards to ports and GIDs,
 * so the first error is the one nearest the cause), else the first warning. Infos never name it.
 */
export function mostSevere(findings: readonly Finding[]): Finding | undefined {
  let best: Finding | undefined;
  for (const f of findings) {
    if (f.severity === "info") continue;
    if (best === undefined || RANK[f.severity] < RANK[best.severity]) best = f;
  }
  return best;
}

export type ConditionInput =
  | { kind: "checked"; findings: readonly Finding[]; withinGrace?: boolean }
  | { kind: "failed"; reason: string };

/** The condition for this run, before the times are merged with the one on the Node. */
export function deriveCondition(input: ConditionInput): Pick<NodeCondition, "status" | "reason" | "message"> {
  if (input.kind === "failed") {
    return {
      status: "Unknown",
      reason: REASONS.checkFailed,
      message: oneLine({
        subject: "node",
        message: `the RDMA checks could not run: ${input.reason}`,
        fix: "see the agent's log (kubectl logs) for the error.",
      }),
    };
  }
  // A check that could not run must neither hide a healthy result (as the worst warning it would name the reason of
  // every healthy node whose pod cannot run nvidia-smi) nor be hidden: it names the reason only when nothing else does.
  const skipped = input.findings.filter((f) => f.code === SKIPPED_CODE && f.severity !== "info");
  const worst = mostSevere(input.findings.filter((f) => f.code !== SKIPPED_CODE)) ?? skipped[0];
  const errors = input.findings.filter((f) => f.severity === "error").length;
  const warnings = input.findings.filter((f) => f.severity === "warning").length;
  if (worst === undefined) {
    return { status: "True", reason: REASONS.passed, message: "every RDMA check passed" };
  }
  if (worst.code === SKIPPED_CODE && worst.severity === "warning") {
    const gpu = skipped.find((f) => f.subject === "nvidia-smi");
    const named = gpu ?? worst;
    const others = skipped.length > 1 ? `; ${skipped.length - 1} more check(s) could not run` : "";
    return {
      status: "True",
      reason: gpu ? REASONS.passedGpuNotChecked : REASONS.passedSomeNotRun,
      message: oneLine(
        { ...named, message: `every check that ran passed; not run: ${named.message}` },
        `${others} (${counts(errors, warnings)})`,
      ),
    };
  }
  const count = counts(errors, warnings);
  if (worst.severity === "error" && input.withinGrace) {
    // Right after start-up OFED and the links may still be coming up (openibd, link training, DHCP on the rails):
    // an error then is not yet a verdict.
    return {
      status: "Unknown",
      reason: REASONS.bootGrace,
      message: oneLine(worst, ` (${count}, within the start-up grace period)`),
    };
  }
  return {
    status: worst.severity === "error" ? "False" : "True",
    reason: worst.code,
    message: oneLine(worst, ` (${count})`),
  };
}

const counts = (errors: number, warnings: number) => `${errors} error(s), ${warnings} warning(s)`;

/** Merges this run's verdict with the condition already on the Node: the transition time moves only on a change. */
export function nextCondition(
  verdict: Pick<NodeCondition, "status" | "reason" | "message">,
  previous: NodeCondition | undefined,
  now: Date,
): NodeCondition {
  const at = now.toISOString().replace(/\.\d{3}Z$/, "Z");
  const transition = previous !== undefined && previous.status === verdict.status ? previous.lastTransitionTime : at;
  return { type: CONDITION_TYPE, ...verdict, lastHeartbeatTime: at, lastTransitionTime: transition };
}

/**
 * Whether the Node status must be written: the verdict changed, or the heartbeat on the Node is older than
 * `heartbeatSeconds` (so a dead agent shows as a stale heartbeat, and an idle one costs one write per heartbeat).
 */
export function conditionNeedsWrite(
  next: NodeCondition,
  previous: NodeCondition | undefined,
  now: Date,
  heartbeatSeconds: number,
): boolean {
  if (previous === undefined) return true;
  if (previous.status !== next.status || previous.reason !== next.reason || previous.message !== next.message) {
    return true;
  }
  const last = Date.parse(previous.lastHeartbeatTime);
  return !Number.isFinite(last) || now.getTime() - last >= heartbeatSeconds * 1000;
}

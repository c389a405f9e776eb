/**
 * The optional NoSchedule taint, behind a circuit breaker. A bad rule (or a fabric-wide event) must not drain the
 * fleet: the agent taints its node only while fewer than `maxShare` of the selected nodes carry the taint. The
 * lesson is NVIDIA NVSentinel's (a cap on the share of nodes it may cordon at once:
 * https://github.com/NVIDIA/NVSentinel) and the Kubernetes taint semantics are
 * https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/. Pure. decideTaint says what this
 * node wants; the count that makes the limit hold across simultaneous agents is a slot claimed atomically in a
 * Lease (taint-slots.ts) before the taint is written.
 */
export const TAINT_KEY = "kube-rdma.io/rdma-not-ready";
export const TAINT_EFFECT = "NoSchedule";

export type TaintDecision = { action: "taint" | "untaint" | "none" } | { action: "held"; why: string };

export type TaintInput = {
  /** This run found error findings (the condition is False). */
  failing: boolean;
  /** This node carries the taint now. */
  tainted: boolean;
  /** Nodes that carry the taint now, this one included when `tainted`. */
  taintedNodes: number;
  /** Nodes the agent runs on (the DaemonSet's desired count). */
  selectedNodes: number;
  /** The largest share of selected nodes tainted at once, 0..1. */
  maxShare: number;
};

/** How many nodes may carry the taint at once: at least one, so a small fleet can still fence its bad node. */
export function taintBudget(selectedNodes: number, maxShare: number): number {
  return Math.max(1, Math.floor(selectedNodes * maxShare));
}

export function decideTaint(i: TaintInput): TaintDecision {
  if (!i.failing) return { action: i.tainted ? "untaint" : "none" };
  if (i.tainted) return { action: "none" };
  const budget = taintBudget(i.selectedNodes, i.maxShare);
  if (i.taintedNodes + 1 > budget) {
    return {
      action: "held",
      why: `${i.taintedNodes} of ${i.selectedNodes} node(s) already carry ${TAINT_KEY}; the limit is ${budget} (--max-tainted-share ${i.maxShare})`,
    };
  }
  return { action: "taint" };
}

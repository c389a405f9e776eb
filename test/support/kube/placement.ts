/**
 * Where a pod may run, as the scheduler's filters and the DaemonSet controller decide: spec.nodeName pins it; else
 * the node must match spec.nodeSelector, the required node affinity (nodeSelectorTerms ORed, matchExpressions ANDed)
 * and the pod must tolerate each of the node's NoSchedule / NoExecute taints. Semantics:
 * https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/ and
 * https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/ (an empty key with operator Exists
 * tolerates everything; an empty effect matches every effect). Resources are not modelled here.
 */
import { type Requirement, requirementHolds } from "./label-selector.js";

// biome-ignore lint/suspicious/noExplicitAny: API objects are free-form JSON here, as on the wire.
type Obj = Record<string, any>;

function tolerates(tolerations: Obj[], taint: Obj): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === "Exists") return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? "") === (taint.value ?? "");
  });
}

/** Why the pod cannot run on the node, or null when it can. */
export function unplaceable(podSpec: Obj, node: Obj): string | null {
  const name = node.metadata?.name;
  if (podSpec.nodeName) return podSpec.nodeName === name ? null : `pinned to ${podSpec.nodeName}`;
  const labels: Record<string, string> = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries((podSpec.nodeSelector ?? {}) as Record<string, string>)) {
    if (labels[k] !== v) return `nodeSelector ${k}=${v} does not match`;
  }
  const terms: { matchExpressions?: Requirement[] }[] | undefined =
    podSpec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms && !terms.some((t) => (t.matchExpressions ?? []).every((r) => requirementHolds(r, labels)))) {
    return "required node affinity does not match";
  }
  for (const taint of (node.spec?.taints ?? []) as Obj[]) {
    if (taint.effect === "PreferNoSchedule") continue;
    if (!tolerates(podSpec.tolerations ?? [], taint)) return `taint ${taint.key}:${taint.effect} not tolerated`;
  }
  return null;
}

/** The nodes a DaemonSet's pods are created on. */
export function daemonSetNodes(ds: Obj, nodes: readonly Obj[]): Obj[] {
  const spec = ds.spec?.template?.spec ?? {};
  return nodes.filter((n) => unplaceable(spec, n) === null);
}

/**
 * The wire of the fake API server (test/support/kube/fake-api.ts): the resource types it serves, Status answers,
 * optimistic concurrency, selectors, patches and discovery documents, as a real API server shapes them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { PodOutcome } from "./fake-api-types.js";

// biome-ignore lint/suspicious/noExplicitAny: API objects are free-form JSON here, as on the wire.
export type Obj = Record<string, any>;

export type ResourceType = { group: string; version: string; plural: string; kind: string; namespaced: boolean };

export const TYPES: ResourceType[] = [
  { group: "", version: "v1", plural: "nodes", kind: "Node", namespaced: false },
  { group: "", version: "v1", plural: "namespaces", kind: "Namespace", namespaced: false },
  { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true },
  { group: "", version: "v1", plural: "serviceaccounts", kind: "ServiceAccount", namespaced: true },
  { group: "", version: "v1", plural: "services", kind: "Service", namespaced: true },
  { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true },
  { group: "", version: "v1", plural: "events", kind: "Event", namespaced: true },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "roles", kind: "Role", namespaced: true },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "clusterroles", kind: "ClusterRole", namespaced: false },
  {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "clusterrolebindings",
    kind: "ClusterRoleBinding",
    namespaced: false,
  },
  {
    group: "admissionregistration.k8s.io",
    version: "v1",
    plural: "validatingadmissionpolicies",
    kind: "ValidatingAdmissionPolicy",
    namespaced: false,
  },
  {
    group: "admissionregistration.k8s.io",
    version: "v1",
    plural: "validatingadmissionpolicybindings",
    kind: "ValidatingAdmissionPolicyBinding",
    namespaced: false,
  },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "rolebindings", kind: "RoleBinding", namespaced: true },
  { group: "apps", version: "v1", plural: "daemonsets", kind: "DaemonSet", namespaced: true },
  { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", namespaced: true },
  { group: "apps", version: "v1", plural: "deployments", kind: "Deployment", namespaced: true },
  {
    group: "apiextensions.k8s.io",
    version: "v1",
    plural: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
  },
  { group: "kubeflow.org", version: "v1", plural: "pytorchjobs", kind: "PyTorchJob", namespaced: true },
  { group: "kubeflow.org", version: "v2beta1", plural: "mpijobs", kind: "MPIJob", namespaced: true },
  { group: "batch.volcano.sh", version: "v1alpha1", plural: "jobs", kind: "Job", namespaced: true },
];

let rv = 1000;
export const nextRv = (): string => String(++rv);
/** The store's current resourceVersion (a list's metadata.resourceVersion). */
export const currentRv = (): string => String(rv);

export function status(res: ServerResponse, code: number, reason: string, message: string, details: Obj = {}): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason,
      details,
      code,
    }),
  );
}

/**
 * A write whose body carries metadata.resourceVersion succeeds only against that version, as on a real API server
 * (optimistic concurrency:
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions and
 * https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency):
 * otherwise 409 Conflict with the apiserver's "the object has been modified" message. Returns true when it answered.
 */
export function conflicted(res: ServerResponse, current: Obj, sent: Obj, resource: string): boolean {
  const want = sent.metadata?.resourceVersion;
  if (want === undefined || want === null || want === "" || want === current.metadata?.resourceVersion) return false;
  const name = current.metadata?.name;
  status(
    res,
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, kind: resource.split(".")[0] },
  );
  return true;
}

export function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export function matchesLabels(obj: Obj, selector: string | null): boolean {
  if (!selector) return true;
  const labels: Obj = obj.metadata?.labels ?? {};
  return selector.split(",").every((term) => {
    const t = term.trim();
    if (t === "") return true;
    const ne = /^([^!=]+)!=(.*)$/.exec(t);
    if (ne) return labels[ne[1]!] !== ne[2];
    const eq = /^([^=]+)==?(.*)$/.exec(t);
    if (eq) return labels[eq[1]!] === eq[2];
    if (t.startsWith("!")) return !(t.slice(1) in labels);
    return t in labels;
  });
}

export function matchesFields(obj: Obj, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const [path, value] = term.split("=");
    const actual = (path ?? "").split(".").reduce<unknown>((o, k) => (o as Obj | undefined)?.[k], obj);
    return String(actual ?? "") === value;
  });
}

/**
 * Strategic merge patch, as far as the tests use it: a merge patch in which a list of conditions merges by `type`
 * (the patchMergeKey of NodeStatus.conditions and PodStatus.conditions), so the kubelet's conditions stay.
 */
export function strategicPatch(target: Obj, patch: Obj): void {
  for (const [k, v] of Object.entries(patch)) {
    if (k === "conditions" && Array.isArray(v) && Array.isArray(target[k])) {
      for (const c of v as Obj[]) {
        const i = (target[k] as Obj[]).findIndex((t) => t.type === c.type);
        if (i >= 0) target[k][i] = c;
        else target[k].push(c);
      }
    } else if (v === null) delete target[k];
    else if (typeof v === "object" && !Array.isArray(v) && typeof target[k] === "object" && target[k] !== null) {
      strategicPatch(target[k], v as Obj);
    } else target[k] = v;
  }
}

/** RFC 7386 JSON merge patch: objects merge, null deletes, anything else replaces. */
export function mergePatch(target: Obj, patch: Obj): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete target[k];
    else if (typeof v === "object" && !Array.isArray(v) && typeof target[k] === "object" && target[k] !== null) {
      mergePatch(target[k], v as Obj);
    } else target[k] = v;
  }
}

export async function body(req: IncomingMessage): Promise<Obj> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Obj;
}

export function discovery(group: string, version: string, unserved: string[] = []): Obj {
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources: TYPES.filter((t) => t.group === group && t.version === version && !unserved.includes(t.plural)).map(
      (t) => ({
        name: t.plural,
        singularName: t.kind.toLowerCase(),
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      }),
    ),
  };
}

/** The status the kubelet reports once a pod ends as `outcome` says (a terminated container unless one is given). */
export function podStatusAfter(pod: Obj, outcome: PodOutcome): Obj {
  const exitCode = outcome.phase === "Succeeded" ? 0 : 1;
  return {
    phase: outcome.phase,
    ...(outcome.conditions ? { conditions: outcome.conditions } : {}),
    ...(outcome.containerStatuses
      ? { containerStatuses: outcome.containerStatuses }
      : outcome.phase === "Succeeded" || outcome.phase === "Failed"
        ? {
            containerStatuses: [
              {
                name: pod.spec?.containers?.[0]?.name ?? "main",
                ready: false,
                restartCount: 0,
                image: pod.spec?.containers?.[0]?.image ?? "",
                imageID: "",
                state: { terminated: { exitCode, reason: exitCode === 0 ? "Completed" : "Error" } },
              },
            ],
          }
        : {}),
  };
}

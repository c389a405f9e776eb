/**
 * The install of deploy/ on a cluster that enforces what a real one does (fake-api.ts's Enforce: authentication,
 * RBAC from the shipped roles, the shipped ValidatingAdmissionPolicies, CRD schemas, the DaemonSet controller's
 * placement, one pullable kube-rdma image), with the identities each part of the product runs as. Shared by the
 * end-to-end install test and the tests that show it catches a refusing policy, role or image name.
 */
import { applyObjects, makeClients } from "../../../src/kube/api/client.js";
import { loadKubeConfig } from "../../../src/kube/api/config.js";
import { KUBE_RDMA_IMAGE } from "../../../src/kube/image.js";
import { PYTORCH_MPI_REPOSITORY } from "../../../src/kube/image-contents.js";
import type { UserInfo } from "./admission.js";
import { node, seedCluster } from "./cluster-fixtures.js";
import { type FakeApi, type Obj, type PodOutcome, startFakeApi } from "./fake-api.js";
import { validateCustomResource } from "./schemas.js";

export const ADMIN: UserInfo = { username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] };
/** `fleet verify` / `fleet bench` run as the ServiceAccount deploy/fleet binds (e.g. from a CI pod). */
export const FLEET_USER: UserInfo = {
  username: "system:serviceaccount:kube-rdma:kube-rdma",
  groups: ["system:serviceaccounts", "system:serviceaccounts:kube-rdma", "system:authenticated"],
};
/** A user bound to deploy/job's kube-rdma-job-creator in namespace default, as that file says. */
export const JOB_USER: UserInfo = { username: "alice", groups: ["system:authenticated"] };
/** The agent pod's token on `node` (Kubernetes >= 1.30 puts the node name in it). */
export const agentUser = (nodeName: string): UserInfo => ({
  username: "system:serviceaccount:kube-rdma:kube-rdma-agent",
  groups: ["system:serviceaccounts", "system:serviceaccounts:kube-rdma", "system:authenticated"],
  extra: { "authentication.kubernetes.io/node-name": [nodeName] },
});

/**
 * The nodes: two RDMA GPU nodes labelled by the NVIDIA operators (GPU Feature Discovery + NFD as the Network Operator
 * configures it), one RDMA GPU node labelled by hand as the README says, and a CPU node that must get no pod.
 */
export const RDMA_NODES = ["gpu-01", "gpu-02", "gpu-03"];
export function clusterNodes(): Obj[] {
  const operators = { "nvidia.com/gpu.present": "true", "feature.node.kubernetes.io/pci-15b3.present": "true" };
  return [
    node({ name: "gpu-01", gpus: 8, rdma: "1k", labels: operators }),
    node({ name: "gpu-02", gpus: 8, rdma: "1k", labels: operators }),
    node({ name: "gpu-03", gpus: 8, rdma: "1k" }),
    node({ name: "cpu-01", rdma: null }),
  ];
}

/** Pod templates anywhere in a job object (PyTorchJob replica specs, MPIJob replica specs, Volcano tasks). */
export function podTemplates(o: unknown, at = ""): { path: string; template: Obj }[] {
  if (Array.isArray(o)) return o.flatMap((x, i) => podTemplates(x, `${at}[${i}]`));
  if (o === null || typeof o !== "object") return [];
  const obj = o as Obj;
  if (obj.template?.spec?.containers) return [{ path: at, template: obj.template }];
  return Object.entries(obj).flatMap(([k, v]) => podTemplates(v, at ? `${at}.${k}` : k));
}

/**
 * The training and MPI operators' part: each created job becomes one pod per template, named after the job and
 * the template's path (what the pods look like, not how many replicas).
 */
export function operatorPods(plural: string, obj: Obj): Obj[] {
  if (!["pytorchjobs", "mpijobs", "jobs"].includes(plural)) return [];
  return podTemplates(obj.spec).map(({ path, template }, i) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${obj.metadata.name}-${i}`,
      labels: {
        ...(template.metadata?.labels ?? {}),
        "training.kubeflow.org/job-name": obj.metadata.name,
        "training.kubeflow.org/job-role": /Launcher/.test(path) ? "launcher" : "worker",
        "kube-rdma.test/template": path.replace(/[^A-Za-z0-9.-]/g, "_").slice(0, 63),
      },
    },
    spec: structuredClone(template.spec),
  }));
}

export type EnforcedCluster = {
  api: FakeApi;
  kubeconfig(user: UserInfo): string;
  /** Creates `objects` as the admin, as `kubectl apply` sends them. */
  apply(objects: Obj[]): Promise<void>;
};

/**
 * Starts the enforcing cluster (Volcano, the training operator, the MPI operator and Node Feature Discovery's labels
 * in place; no kube-rdma yet). `image` is the one kube-rdma image a registry serves.
 */
export async function enforcedCluster(
  opts: {
    image?: string;
    onPodCreated?: (pod: Obj) => PodOutcome | undefined;
    onObjectCreated?: (plural: string, obj: Obj) => Obj[] | undefined;
  } = {},
): Promise<EnforcedCluster> {
  const objects = seedCluster({ nodes: clusterNodes() });
  objects.daemonsets = (objects.daemonsets ?? []).filter((d) => !/rdma/.test(d.metadata.name));
  const users: Record<string, UserInfo> = { admin: ADMIN, fleet: FLEET_USER, alice: JOB_USER };
  for (const n of RDMA_NODES) users[`agent-${n}`] = agentUser(n);
  const tokens = new Map(Object.entries(users).map(([t, u]) => [JSON.stringify(u), t]));
  const image = opts.image ?? KUBE_RDMA_IMAGE;
  const api = await startFakeApi(objects, {
    ...(opts.onPodCreated ? { onPodCreated: opts.onPodCreated } : {}),
    onObjectCreated: opts.onObjectCreated ?? operatorPods,
    enforce: {
      users,
      validate: (_plural, obj) => validateCustomResource(obj as { apiVersion: string; kind: string }),
      // One kube-rdma image exists, and the MPI training image the repository's Dockerfile builds; third-party
      // images (NGC, nccl-tests) are served by their registries.
      pullable: (i) => i === image || i.startsWith(`${PYTORCH_MPI_REPOSITORY}:`) || !/kube-rdma/.test(i),
      operator: {
        username: "system:serviceaccount:kubeflow:training-operator",
        groups: ["system:serviceaccounts", "system:authenticated"],
      },
    },
  });
  const kubeconfig = (user: UserInfo) => {
    const token = tokens.get(JSON.stringify(user));
    if (!token) throw new Error(`no token for ${user.username}`);
    return api.kubeconfigFor(token);
  };
  return {
    api,
    kubeconfig,
    async apply(list: Obj[]) {
      const clients = makeClients(loadKubeConfig({ kubeconfig: kubeconfig(ADMIN), env: {} }), "cluster-admin");
      await applyObjects(clients, list as never);
    },
  };
}

/** The host file a container path lands on through the pod's hostPath mounts, and whether it is writable. */
export function hostFileOf(
  podSpec: Obj,
  containerName: string,
  path: string,
): { host: string; writable: boolean } | null {
  const c = (podSpec.containers as Obj[]).find((x) => x.name === containerName);
  for (const m of (c?.volumeMounts ?? []) as Obj[]) {
    const prefix = (m.mountPath as string).replace(/\/$/, "");
    if (path !== prefix && !path.startsWith(`${prefix}/`)) continue;
    const v = (podSpec.volumes as Obj[]).find((x) => x.name === m.name);
    if (!v?.hostPath) return null;
    return { host: `${v.hostPath.path.replace(/\/$/, "")}${path.slice(prefix.length)}`, writable: m.readOnly !== true };
  }
  return null;
}

/** The value after `flag` in a container's command + args. */
export function flagValue(podSpec: Obj, containerName: string, flag: string): string | undefined {
  const c = (podSpec.containers as Obj[]).find((x) => x.name === containerName);
  const argv = [...(c?.command ?? []), ...(c?.args ?? [])] as string[];
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

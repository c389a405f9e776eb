/**
 * `job … --preflight` (the default): every pod of a generated job runs `kube-rdma preflight` as an init container
 * before its training container, so that a gang whose pods disagree (HCAs, GID index, NCCL, plugin, variables)
 * fails before its first rank starts. Pure: manifests in, manifests out.
 *
 * The init container runs the kube-rdma image (a training image such as nvcr.io/nvidia/pytorch does not carry
 * kube-rdma: a pod whose init container runs a program its image lacks never starts). Otherwise it is the training
 * container's twin — same environment, same GPU and RDMA requests (the kubelet hands an init container's devices on
 * to the app containers, so it sees the devices training will use), same IPC_LOCK and /dev/shm — plus POD_NAME and
 * POD_NAMESPACE from the downward API. It needs no privilege beyond the training container's, and it runs as the
 * training container's user (preflightUser): IPC_LOCK is effective only for a process of uid 0 (a non-root process
 * gets added capabilities in its bounding set but not its effective set,
 * https://man7.org/linux/man-pages/man7/capabilities.7.html "Effect of user ID changes on capabilities"), so the
 * kube-rdma image's own non-root user would judge memlock as no training container sees it. What it cannot see is
 * the training image's NCCL library and net plugin; every pod of a job runs one image, so they cannot differ between
 * pods anyway (`--preflight-image IMAGE` names a training image that carries kube-rdma, to compare them too).
 *
 * Beside the job go the objects the pods meet through: the ConfigMap `<job>-preflight`, and a ServiceAccount, Role
 * and RoleBinding that allow exactly get/patch/list/watch of that one ConfigMap (see src/preflight/gang.ts for
 * why one ConfigMap per job is the least privilege).
 */
import type { KubernetesObject, V1Container, V1EnvVar, V1PodSpec } from "@kubernetes/client-node";
import { KUBE_RDMA_IMAGE } from "../image.js";
import { workloadOf } from "../lint/templates.js";
import { isGpuResource, isRdmaResource } from "../resources.js";

export const PREFLIGHT_CONTAINER = "kube-rdma-preflight";
/** Labels of the objects `job --preflight` adds beside a job; `lint` knows them by these. */
export const PREFLIGHT_LABELS = { "app.kubernetes.io/name": "kube-rdma", "app.kubernetes.io/component": "preflight" };

export type PreflightOptions = {
  /** Seconds each pod waits for the whole gang. */
  timeoutSeconds: number;
  /** Image of the init container; default: the kube-rdma image. */
  image?: string | undefined;
};

const preflightName = (job: string) => `${job}-preflight`.slice(0, 253);

function limitsOf(c: V1Container): Record<string, string> {
  return { ...(c.resources?.requests ?? {}), ...(c.resources?.limits ?? {}) } as Record<string, string>;
}

/** The container training runs in: the first that requests GPUs or an RDMA resource. */
function trainingContainer(spec: V1PodSpec): V1Container | undefined {
  return spec.containers.find((c) => Object.keys(limitsOf(c)).some((k) => isGpuResource(k) || isRdmaResource(k)));
}

/**
 * The user the init container runs as: the training container's (its own runAsUser, else the pod's); where neither
 * says, the training image's default user, which is root in the NGC images `job` generates (their Dockerfiles set
 * no USER) — so uid 0, not the kube-rdma image's uid 1000. A pod that asks runAsNonRoot keeps it.
 */
export function preflightUser(main: V1Container, pod: Pick<V1PodSpec, "securityContext">): { runAsUser?: number } {
  const own = main.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
  if (own !== undefined) return { runAsUser: own };
  if (main.securityContext?.runAsNonRoot || pod.securityContext?.runAsNonRoot) return {};
  return { runAsUser: 0 };
}

export function preflightContainer(
  main: V1Container,
  job: string,
  members: number,
  o: PreflightOptions,
  pod: Pick<V1PodSpec, "securityContext"> = {},
): V1Container {
  const downward = (name: string, fieldPath: string): V1EnvVar => ({ name, valueFrom: { fieldRef: { fieldPath } } });
  const env = [
    ...structuredClone(main.env ?? []).filter((e) => e.name !== "POD_NAME" && e.name !== "POD_NAMESPACE"),
    downward("POD_NAME", "metadata.name"),
    downward("POD_NAMESPACE", "metadata.namespace"),
  ];
  return {
    name: PREFLIGHT_CONTAINER,
    image: o.image ?? KUBE_RDMA_IMAGE,
    imagePullPolicy: "IfNotPresent",
    command: ["kube-rdma", "preflight"],
    args: ["--job", job, "--members", String(members), "--timeout", String(o.timeoutSeconds)],
    env,
    ...(main.resources ? { resources: structuredClone(main.resources) } : {}),
    securityContext: { ...structuredClone(main.securityContext ?? {}), ...preflightUser(main, pod) },
    ...(main.volumeMounts ? { volumeMounts: structuredClone(main.volumeMounts) } : {}),
  };
}

/** The ConfigMap the pods meet in, and the narrow identity that may use it. */
export function preflightSupportObjects(job: string, namespace: string): KubernetesObject[] {
  const name = preflightName(job);
  // A fresh object each time: shared ones would print as YAML anchors.
  const meta = () => ({ name, namespace, labels: { ...PREFLIGHT_LABELS } });
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: meta() },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: meta(),
      rules: [
        { apiGroups: [""], resources: ["configmaps"], resourceNames: [name], verbs: ["get", "patch", "list", "watch"] },
      ],
    } as KubernetesObject,
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta(),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name, namespace }],
    } as KubernetesObject,
    { apiVersion: "v1", kind: "ConfigMap", metadata: meta(), data: {} } as KubernetesObject,
  ];
}

function at(o: unknown, path: readonly (string | number)[]): unknown {
  let v = o;
  for (const k of path) v = (v as Record<string | number, unknown> | undefined)?.[k];
  return v;
}

/**
 * Adds the preflight init container to every GPU/RDMA pod template of each job, `--members` being the sum of
 * those templates' replicas, and puts the support objects first (the pods' ServiceAccount must exist before them).
 */
export function withPreflight(
  objects: readonly KubernetesObject[],
  o: PreflightOptions,
): { objects: KubernetesObject[]; notes: string[] } {
  const out = structuredClone(objects) as KubernetesObject[];
  const support: KubernetesObject[] = [];
  const notes: string[] = [];
  for (const obj of out) {
    // A TrainJob's pods are its runtime's; the runtime gets the init container (see trainerGang).
    if (isTrainer(obj, "TrainJob")) continue;
    const w = workloadOf(obj);
    const gang = isTrainer(obj, "ClusterTrainingRuntime", "TrainingRuntime") ? trainerGang(obj, out) : null;
    if (gang && "note" in gang) {
      notes.push(gang.note);
      continue;
    }
    if (!w) {
      notes.push(
        `preflight: ${obj.kind ?? "object"}/${obj.metadata?.name ?? "?"} has no pod template kube-rdma knows; no init container added`,
      );
      continue;
    }
    const gpuTemplates = w.templates
      .map((t) => ({ t, spec: at(obj, t.specPath) as V1PodSpec | undefined }))
      .filter((x): x is { t: typeof x.t; spec: V1PodSpec } => !!x.spec && !!trainingContainer(x.spec));
    const members = gang?.members ?? gpuTemplates.reduce((n, x) => n + x.t.replicas, 0);
    const job = gang?.job ?? w.name;
    if (members === 0) {
      notes.push(`preflight: ${w.kind}/${w.name} has no pod template with GPUs or RDMA; no init container added`);
      continue;
    }
    const namespace = obj.metadata?.namespace ?? "default";
    for (const { spec } of gpuTemplates) {
      spec.initContainers = [
        ...(spec.initContainers ?? []),
        preflightContainer(trainingContainer(spec)!, job, members, o, spec),
      ];
      spec.serviceAccountName ??= preflightName(job);
    }
    support.push(...preflightSupportObjects(job, namespace));
    notes.push(
      `preflight: each of the ${members} GPU pods first runs \`kube-rdma preflight\` (init container ${PREFLIGHT_CONTAINER}, ` +
        `image ${o.image ?? KUBE_RDMA_IMAGE}) and meets the others in ConfigMap ` +
        `${preflightName(job)}; --no-preflight leaves it out`,
    );
  }
  return { objects: [...support, ...out], notes };
}

function isTrainer(obj: KubernetesObject, ...kinds: string[]): boolean {
  return !!obj.apiVersion?.startsWith("trainer.kubeflow.org/") && kinds.includes(obj.kind ?? "");
}

/**
 * Kubeflow Trainer v2: whose gang a runtime's pods are. A ClusterTrainingRuntime is cluster-wide and shared by every
 * TrainJob naming it, so one job's rendezvous name and member count must not go into it. A namespaced
 * TrainingRuntime takes the preflight of the TrainJob beside it that refers to it: rendezvous under the TrainJob's
 * name, members = the TrainJob's numNodes (which Trainer uses over the runtime's mlPolicy.numNodes).
 */
function trainerGang(
  runtime: KubernetesObject,
  objects: readonly KubernetesObject[],
): { job: string; members?: number } | { note: string } {
  const name = runtime.metadata?.name ?? "?";
  if (runtime.kind === "ClusterTrainingRuntime") {
    return {
      note: `preflight: ClusterTrainingRuntime/${name} is shared by every TrainJob that names it; no job's preflight goes into it`,
    };
  }
  const namespace = runtime.metadata?.namespace ?? "default";
  const users = objects.filter((o) => {
    const ref = at(o, ["spec", "runtimeRef"]) as { kind?: string; name?: string } | undefined;
    return (
      isTrainer(o, "TrainJob") &&
      (o.metadata?.namespace ?? "default") === namespace &&
      ref?.kind === "TrainingRuntime" &&
      ref.name === name
    );
  });
  if (users.length !== 1) {
    return {
      note: `preflight: TrainingRuntime/${name} is used by ${users.length} TrainJobs here, not exactly one; no init container added`,
    };
  }
  const tj = users[0]!;
  const numNodes = at(tj, ["spec", "trainer", "numNodes"]);
  return {
    job: tj.metadata?.name ?? name,
    ...(typeof numNodes === "number" && numNodes > 0 ? { members: numNodes } : {}),
  };
}

import type { V1Affinity, V1Container, V1EnvVar, V1PodTemplateSpec } from "@kubernetes/client-node";
import { MANAGEMENT_HCA_ANNOTATION } from "../annotations.js";
import type { JobOptions } from "./types.js";

/** The two variables the Baidu CCE reference job sets by hand; everything else comes from `nccl-env` or the platform. */
export const SEED_NCCL_ENV: Record<string, string> = { NCCL_DEBUG: "INFO", NCCL_IB_DISABLE: "0" };

export const SHM_VOLUME = "dshm";

/** Label of a job's GPU pods, for the anti-affinity that keeps them one per node under `--on`. */
export const GPU_POD_LABEL = "kube-rdma/gpu-pod";

/**
 * `--on NODES`: the GPU pods may only run on these nodes, and never two on one node (a pair test that landed both
 * pods on one node would measure NVLink, not the fabric).
 */
export function placementAffinity(opts: JobOptions): V1Affinity | undefined {
  if (!opts.onNodes?.length) return undefined;
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [...opts.onNodes] }] },
        ],
      },
    },
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { labelSelector: { matchLabels: { [GPU_POD_LABEL]: opts.name } }, topologyKey: "kubernetes.io/hostname" },
      ],
    },
  };
}

export function envList(env: Record<string, string>): V1EnvVar[] {
  return Object.keys(env)
    .sort()
    .map((name) => ({ name, value: env[name]! }));
}

export type ContainerSpec = {
  name: string;
  command?: string[];
  args?: string[];
  /** Extra variables (e.g. OMPI_ALLOW_RUN_AS_ROOT) added to `env`. */
  extraEnv?: Record<string, string>;
  /** GPUs + RDMA + IPC_LOCK + /dev/shm; false for an MPI launcher that only runs mpirun. */
  rdma: boolean;
  /** Put the job's NCCL variables in this container's env (default: when `rdma`). An MPI launcher forwards
   * them to the ranks with `mpirun -x`, since ranks started over ssh never see a worker pod's env. */
  ncclEnv?: boolean;
  ports?: { name: string; containerPort: number }[];
};

/** A container of an RDMA training pod: GPUs and `rdma/hca` limits, IPC_LOCK, /dev/shm, NCCL env. */
export function rdmaContainer(opts: JobOptions, c: ContainerSpec): V1Container {
  const env = (c.ncclEnv ?? c.rdma) ? { ...opts.env, ...(c.extraEnv ?? {}) } : { ...(c.extraEnv ?? {}) };
  const container: V1Container = {
    name: c.name,
    image: opts.image,
    imagePullPolicy: "IfNotPresent",
    ...(c.command ? { command: c.command } : {}),
    ...(c.args ? { args: c.args } : {}),
    ...(Object.keys(env).length ? { env: envList(env) } : {}),
  };
  if (c.ports) container.ports = c.ports;
  if (!c.rdma) return container;
  const limits: Record<string, string> = {
    [opts.gpuResource]: String(opts.gpusPerNode),
    [opts.rdmaResource]: String(opts.rdmaCount),
  };
  container.resources = { limits, requests: { ...limits } };
  container.securityContext = { capabilities: { add: ["IPC_LOCK"] } };
  container.volumeMounts = [{ name: SHM_VOLUME, mountPath: "/dev/shm" }];
  return container;
}

/** The pod template every generated job uses: no sidecar, gang scheduler, optional host network, /dev/shm. */
export function rdmaPodTemplate(
  opts: JobOptions,
  containers: V1Container[],
  extra: { restartPolicy?: string; schedulerInPod?: boolean; labels?: Record<string, string> } = {},
): V1PodTemplateSpec {
  const usesShm = containers.some((c) => c.volumeMounts?.some((m) => m.name === SHM_VOLUME));
  const annotations: Record<string, string> = { "sidecar.istio.io/inject": "false" };
  if (opts.queue && (opts.gang ?? "volcano") === "volcano")
    annotations["scheduling.volcano.sh/queue-name"] = opts.queue;
  // Tells lint which HCA is the management NIC on the node the NCCL variables came from (mlx5_0 is only a guess).
  if (opts.managementHca !== undefined) annotations[MANAGEMENT_HCA_ANNOTATION] = opts.managementHca ?? "none";
  const gpuPod = containers.some((c) => c.resources?.limits?.[opts.gpuResource] !== undefined);
  const affinity = gpuPod ? placementAffinity(opts) : undefined;
  const labels = { ...extra.labels, ...(affinity ? { [GPU_POD_LABEL]: opts.name } : {}) };
  return {
    metadata: { annotations, ...(Object.keys(labels).length ? { labels } : {}) },
    spec: {
      ...(extra.schedulerInPod === false ? {} : { schedulerName: opts.schedulerName }),
      ...(extra.restartPolicy ? { restartPolicy: extra.restartPolicy } : {}),
      ...(opts.hostNetwork ? { hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" } : {}),
      ...(affinity ? { affinity } : {}),
      containers,
      ...(usesShm ? { volumes: [{ name: SHM_VOLUME, emptyDir: { medium: "Memory", sizeLimit: opts.shmSize } }] } : {}),
    },
  };
}

import { defineCatalogue, type FindingSpec } from "../../core/finding.js";

type Where = { where: string };

/** Every `lint` finding: the failure patterns of RDMA jobs (seed-context §1.3, §6; anchors §3). */
export const LINT_FINDINGS = defineCatalogue({
  NO_RDMA_RESOURCE: {
    severity: "error",
    title: "no RDMA resource",
    message: (e: Where & { gpus: string }) =>
      `${e.where} requests GPUs (${e.gpus}) for a multi-node job but no RDMA resource, is not privileged and mounts no /dev/infiniband: NCCL will find no IB device and fall back to sockets.`,
    fix: () =>
      'Add the RDMA resource to resources.limits, e.g. rdma/hca: 1 (Baidu CCE / Alibaba ACK; "1" gives the pod every HCA).',
  } satisfies FindingSpec<Where & { gpus: string }>,
  NO_IPC_LOCK: {
    severity: "error",
    title: "no IPC_LOCK",
    message: (e: Where) =>
      `${e.where} uses RDMA without the IPC_LOCK capability (and is not privileged): memory registration for RDMA is limited by memlock.`,
    fix: () => "Add securityContext.capabilities.add: [IPC_LOCK] to the container.",
  } satisfies FindingSpec<Where>,
  SHM_MISSING: {
    severity: "error",
    title: "no memory-backed /dev/shm",
    message: (e: Where) =>
      `${e.where} mounts nothing at /dev/shm: the container runtime's default is 64 MiB, too small for NCCL's shared-memory transport between GPUs.`,
    fix: () => "Mount an emptyDir with medium: Memory (and a sizeLimit such as 32Gi) at /dev/shm.",
  } satisfies FindingSpec<Where>,
  SHM_NOT_MEMORY: {
    severity: "warning",
    title: "/dev/shm not memory-backed",
    message: (e: Where & { volume: string }) =>
      `${e.where} mounts volume ${e.volume} at /dev/shm, but it is not an emptyDir with medium: Memory.`,
    fix: () => "Use emptyDir: {medium: Memory, sizeLimit: 32Gi} for /dev/shm.",
  } satisfies FindingSpec<Where & { volume: string }>,
  SHM_SMALL: {
    severity: "warning",
    title: "/dev/shm small",
    message: (e: Where & { size: string }) =>
      `${e.where} limits /dev/shm to ${e.size}; NCCL and PyTorch data loaders need gigabytes (AIHC configures 10 GB).`,
    fix: () => "Raise the emptyDir sizeLimit to at least 1Gi (kube-rdma job uses 32Gi).",
  } satisfies FindingSpec<Where & { size: string }>,
  NCCL_IB_DISABLED: {
    severity: "error",
    title: "NCCL_IB_DISABLE=1",
    message: (e: Where) =>
      `${e.where} sets NCCL_IB_DISABLE=1: NCCL is forbidden to use IB/RoCE and falls back to TCP sockets.`,
    fix: () => 'Set NCCL_IB_DISABLE to "0" (or remove it).',
  } satisfies FindingSpec<Where>,
  NCCL_NET_SOCKET: {
    severity: "error",
    title: "NCCL_NET=Socket",
    message: (e: Where) => `${e.where} sets NCCL_NET=Socket: NCCL will not use RDMA.`,
    fix: () => "Remove NCCL_NET (or set it to IB).",
  } satisfies FindingSpec<Where>,
  NCCL_IB_HCA_PREFIX: {
    severity: "warning",
    title: "NCCL_IB_HCA prefix also matches other HCAs",
    message: (e: Where & { value: string; entries: string[] }) =>
      `${e.where} sets NCCL_IB_HCA=${e.value}; without a leading "=" each entry is a prefix, so ${e.entries.map((x) => `${x} also matches ${x}0…${x}9`).join("; ")}.`,
    fix: (e: Where & { value: string; entries: string[] }) =>
      `Use the exact form: NCCL_IB_HCA==${e.value.replace(/^=/, "")}.`,
  } satisfies FindingSpec<Where & { value: string; entries: string[] }>,
  NCCL_IB_HCA_MANAGEMENT: {
    severity: "warning",
    title: "management NIC in NCCL_IB_HCA",
    message: (e: Where & { value: string; hca: string }) =>
      `${e.where} sets NCCL_IB_HCA=${e.value}, which selects ${e.hca}, usually the management (TCP) NIC; NCCL would send RDMA traffic over it.`,
    fix: (e: { hca: string }) =>
      `List only the data HCAs (e.g. =mlx5_1,…,mlx5_8) or exclude ${e.hca} (^=${e.hca}); kube-rdma nccl-env derives the list.`,
  } satisfies FindingSpec<Where & { value: string; hca: string }>,
  HOSTNETWORK_DNS: {
    severity: "error",
    title: "hostNetwork without ClusterFirstWithHostNet",
    message: (e: Where & { dnsPolicy: string }) =>
      `${e.where} uses hostNetwork with dnsPolicy ${e.dnsPolicy}: the pod resolves with the node's DNS and cannot find MASTER_ADDR or the worker services.`,
    fix: () => "Set dnsPolicy: ClusterFirstWithHostNet next to hostNetwork: true.",
  } satisfies FindingSpec<Where & { dnsPolicy: string }>,
  NOT_GANG_SCHEDULED: {
    severity: "warning",
    title: "multi-pod job not gang-scheduled",
    message: (e: Where & { pods: number; scheduler: string }) =>
      `${e.where} starts ${e.pods} pods with scheduler ${e.scheduler}: without gang scheduling some pods can run while others wait, holding GPUs and deadlocking NCCL's rendezvous.`,
    fix: () =>
      "Set schedulerName: volcano (Baidu CCE's AI Job Scheduler) in every pod template (Volcano Job: spec.schedulerName).",
  } satisfies FindingSpec<Where & { pods: number; scheduler: string }>,
  GPU_COUNT_DIFFERS: {
    severity: "warning",
    title: "GPU counts differ between workers",
    message: (e: Where & { counts: string }) =>
      `${e.where} requests different GPU counts per pod (${e.counts}): --nproc_per_node / slotsPerWorker assume the same on every node.`,
    fix: () => "Request the same number of GPUs in every replica (usually all GPUs of a node).",
  } satisfies FindingSpec<Where & { counts: string }>,
  SIDECAR_NOT_DISABLED: {
    severity: "warning",
    title: "sidecar injection not disabled",
    message: (e: Where) =>
      `${e.where} does not disable service-mesh sidecar injection; in an injecting namespace the sidecar intercepts NCCL's bootstrap connections.`,
    fix: () => 'Add the pod annotation sidecar.istio.io/inject: "false".',
  } satisfies FindingSpec<Where>,
  SH_C_LOSES_INJECTED_ENV: {
    severity: "warning",
    title: "sh -c wrapper loses injected NCCL variables",
    message: (e: Where & { shell: string }) =>
      `${e.where} starts through \`${e.shell} -c\`; a platform that injects NCCL_IB_HCA / NCCL_SOCKET_IFNAME / NCCL_IB_GID_INDEX into PID 1 only (Baidu CCE) gives them to the shell, and processes started through sh do not inherit them.`,
    fix: () =>
      "Run the program directly (command/args with Kubernetes $(VAR) expansion, as kube-rdma job does), start the script with `exec`, or set those NCCL variables in env yourself (kube-rdma nccl-env).",
  } satisfies FindingSpec<Where & { shell: string }>,
  UNKNOWN_KIND: {
    severity: "info",
    title: "kind not linted",
    message: (e: Where & { kind: string }) =>
      `${e.where}: kind ${e.kind} has no pod template kube-rdma knows; skipped.`,
    fix: () =>
      "Nothing to do; kube-rdma lints Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, PyTorchJob, MPIJob, TFJob and Volcano Job.",
  } satisfies FindingSpec<Where & { kind: string }>,
});

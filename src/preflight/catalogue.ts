/**
 * Words of `kube-rdma preflight`: what differs between the pods of one gang (or what one pod cannot do), and the
 * fix. A difference names every side: the value the most pods have and the pods that have each other value.
 */
import { defineCatalogue, type FindingSpec } from "../core/finding.js";

/** One attribute compared across pods: `sides` as `3 on 15 pods, 5 on worker-7`, `odd` the minority's pods. */
export type Differs = { attribute: string; sides: string; odd: string[]; values: Record<string, string[]> };

const differs = (title: string, fix: (e: Differs) => string, severity: "error" | "warning" = "error") =>
  ({ severity, title, message: (e: Differs) => `${e.attribute}: ${e.sides}.`, fix }) satisfies FindingSpec<Differs>;

const onPods = (odd: readonly string[]) => (odd.length ? odd.join(", ") : "the odd pods");

export const PREFLIGHT_FINDINGS = defineCatalogue({
  PREFLIGHT_UVERBS_UNOPENABLE: {
    severity: "error",
    title: "an RDMA device cannot be opened in the pod",
    message: (e: { hca: string; device: string; error: string; pods: string[]; where: string }) =>
      `${e.where}: ${e.hca} cannot be opened (${e.error}): /dev/infiniband/${e.device} is in the pod but open(O_RDWR) ` +
      "fails, so NCCL skips this HCA there (or falls back to sockets) while the other pods use it.",
    fix: (e: { error: string; hca: string }) =>
      (e.error === "EPERM" || e.error === "EACCES"
        ? "The pod's device cgroup does not allow the device: request the RDMA resource (rdma/hca) so that the device " +
          "plugin hands the device to the container, instead of mounting /dev/infiniband with a hostPath volume."
        : "Load ib_uverbs on the node (`modprobe ib_uverbs`) and check the device plugin's health (`kube-rdma cluster`).") +
      ` Check in the pod with \`kube-rdma preflight --facts-only\`: its open line must say ${e.hca}:ok.`,
  },
  PREFLIGHT_NO_DATA_HCA: {
    severity: "error",
    title: "no pod of the gang can use an RDMA data HCA",
    message: (e: { where: string; seen: string }) =>
      `${e.where}: no RDMA data HCA is usable in the pod (${e.seen}): NCCL will run over TCP sockets (NET/Socket), ` +
      "at a fraction of the bandwidth, and the job will not say so.",
    fix: () =>
      "Request the RDMA resource in the training container's limits (rdma/hca: 1; `kube-rdma job` does) so that the " +
      "RDMA device plugin hands the pod its HCAs and /dev/infiniband/uverbs* devices; check that the plugin serves " +
      "the node (`kube-rdma cluster`) and, in the pod, `kube-rdma verify --pod`. If TCP is intended, set " +
      "NCCL_IB_DISABLE=1.",
  },
  PREFLIGHT_HCA_SET_DIFFERS: differs(
    "the pods see different HCAs",
    (e) =>
      `Give every pod the same HCAs: the same RDMA resource request, and the same NCCL_IB_HCA (exact form =mlx5_1,…). ` +
      `Check the device plugin on the nodes of ${onPods(e.odd)} (\`kube-rdma verify\` there). A rank with fewer ` +
      "rails builds different rings and the collective hangs or crawls.",
  ),
  PREFLIGHT_GID_INDEX_DIFFERS: {
    severity: "error",
    title: "the RoCE v2 GID index differs between pods",
    message: (e: Differs & { fixedIndex: string | null }) =>
      `${e.attribute}: ${e.sides}` +
      (e.fixedIndex !== null
        ? `; NCCL_IB_GID_INDEX=${e.fixedIndex} is set, so some pods use a GID of another kind or none.`
        : "; one NCCL_IB_GID_INDEX cannot fit every pod."),
    fix: (e: Differs & { cidr: string | null; family: string }) =>
      "Use the per-pod-safe setting instead of a fixed index: unset NCCL_IB_GID_INDEX and set " +
      `NCCL_IB_ADDR_FAMILY=${e.family}` +
      (e.cidr ? ` and NCCL_IB_ADDR_RANGE=${e.cidr}` : " and NCCL_IB_ADDR_RANGE=<the data network's CIDR>") +
      ` (NCCL ≥ 2.21 then finds the RoCE v2 GID on each HCA by itself); or make the address layout of ${onPods(e.odd)} ` +
      "like the others (an extra IPv6/IPv4 address on a data NIC moves the GID: `ip addr show`).",
  },
  PREFLIGHT_NCCL_VERSION_DIFFERS: differs(
    "the pods load different NCCL libraries",
    (e) =>
      `Build every pod from one image (or pin one NCCL: pip nvidia-nccl-cu12==X / the same base image) for ${onPods(e.odd)}; ` +
      "NCCL versions must match across ranks, or init fails or hangs on protocol differences.",
  ),
  PREFLIGHT_NET_PLUGIN_DIFFERS: differs(
    "the pods load different NCCL net plugins",
    (e) =>
      `Use the same image on ${onPods(e.odd)} as on the others, or set NCCL_NET_PLUGIN (or NCCL_NET=IB) the same on every pod: ` +
      "a rank on the plugin's transport cannot connect to a rank on the built-in one.",
  ),
  PREFLIGHT_NCCL_ENV_DIFFERS: differs(
    "an NCCL variable differs between pods",
    (e) =>
      `Set it once for the whole job (the job's env, not per pod or per node): ${onPods(e.odd)} differ. If a platform ` +
      "webhook or device plugin injects it per node, make the node configurations match (`kube-rdma fleet verify`).",
  ),
  PREFLIGHT_GPU_COUNT_DIFFERS: differs(
    "the pods see different numbers of GPUs",
    (e) =>
      `Request the same GPU count in every replica and check the GPU device plugin on the nodes of ${onPods(e.odd)}; ` +
      "torchrun's --nproc_per_node and mpirun's slots assume the same number on every pod.",
  ),
  PREFLIGHT_GPUDIRECT_DIFFERS: differs(
    "GPUDirect RDMA is available on some pods only",
    (e) =>
      `Load nvidia_peermem (or use a driver with DMA-BUF) on the nodes of ${onPods(e.odd)}: ranks without GPUDirect ` +
      "copy through host memory and the whole collective runs at their speed.",
    "warning",
  ),
  PREFLIGHT_SUBNET_DIFFERS: differs(
    "an HCA's rail is on different subnets on different pods",
    (e) =>
      `Check the addresses of this rail on ${onPods(e.odd)}: RoCE between subnets needs routing the fabric may not ` +
      "have; rail-optimised fabrics put each rail on one subnet.",
    "warning",
  ),
  PREFLIGHT_CANNOT_PIN: {
    severity: "error",
    title: "a pod cannot pin NCCL's buffers",
    message: (e: { where: string; soft: string }) =>
      `${e.where}: the locked-memory limit is ${e.soft} and the container lacks IPC_LOCK: ibv_reg_mr fails for NCCL's buffers.`,
    fix: () =>
      "Add securityContext.capabilities.add: [IPC_LOCK] to the training container (kube-rdma job does), or raise memlock " +
      "to unlimited in the container runtime.",
  },
  PREFLIGHT_GANG_INCOMPLETE: {
    severity: "error",
    title: "not every pod of the gang published its facts in time",
    message: (e: { expected: number; published: string[]; timeoutSeconds: number; configMap: string }) =>
      `${e.published.length} of ${e.expected} pods published their facts to ConfigMap ${e.configMap} within ` +
      `${e.timeoutSeconds} s (${e.published.length ? `present: ${compact(e.published)}` : "none arrived"}); ` +
      `${e.expected - e.published.length} missing.`,
    fix: (e: { configMap: string }) =>
      "See which pods are Pending or failing (`kubectl get pods -l training.kubeflow.org/job-name=…`, " +
      "`kubectl describe pod`): a gang scheduler (Volcano, minAvailable) starts all pods together. Check that the " +
      `pods' service account may get and patch ConfigMap ${e.configMap} (deploy/preflight/rbac.yaml), or raise --timeout.`,
  },
});

function compact(names: readonly string[]): string {
  return names.length <= 6 ? names.join(", ") : `${names.slice(0, 5).join(", ")} and ${names.length - 5} more`;
}

export type PreflightCode = keyof typeof PREFLIGHT_FINDINGS;

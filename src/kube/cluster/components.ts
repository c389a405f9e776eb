import type { V1DaemonSet, V1Deployment, V1PodSpec } from "@kubernetes/client-node";

/** The cluster components of the reference RDMA training setup (plus Kubeflow Trainer v2), recognised by name or image. */
export type ComponentKind =
  | "rdma-device-plugin"
  | "gpu-device-plugin"
  | "volcano-scheduler"
  | "training-operator"
  | "trainer-controller";

function images(spec: V1PodSpec | undefined): string[] {
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])].map((c) => c.image ?? "");
}

const RDMA_PLUGIN = /rdma[-_]?(?:device|dev|shared|sriov)|rdma-dp|ack-rdma|rdma-plugin/i;
const GPU_PLUGIN = /nvidia-device-plugin|gpu-device-plugin|gpu-manager|amdgpu|k8s-device-plugin|cgpu/i;

/** DaemonSets that serve device plugins: `rdma-device-plugin`, ACK `ack-rdma-dp-ds`, Mellanox
 * `rdma-shared-dp-ds`; NVIDIA `nvidia-device-plugin-daemonset`, Baidu `cce-gpu-manager`, AMD `amdgpu-device-plugin`. */
export function classifyDaemonSet(ds: V1DaemonSet): ComponentKind | null {
  const name = ds.metadata?.name ?? "";
  const imgs = images(ds.spec?.template.spec);
  if (RDMA_PLUGIN.test(name) || imgs.some((i) => RDMA_PLUGIN.test(i))) return "rdma-device-plugin";
  if (GPU_PLUGIN.test(name) || imgs.some((i) => /nvidia\/k8s-device-plugin|gpu-manager|amdgpu/i.test(i))) {
    return "gpu-device-plugin";
  }
  return null;
}

/** Deployments of Volcano's scheduler (`volcano-scheduler`, image `vc-scheduler`), of a v1 training operator
 * (`training-operator`, `pytorch-operator`, `mpi-operator`, Baidu's `*-aitraining-operator`) and of Kubeflow
 * Trainer v2's controller (`kubeflow-trainer-controller-manager`, image `…/trainer-controller-manager`), which serves
 * TrainJobs, not PyTorchJobs. */
export function classifyDeployment(d: V1Deployment): ComponentKind | null {
  const name = d.metadata?.name ?? "";
  const imgs = images(d.spec?.template.spec);
  if (/volcano-scheduler|vc-scheduler/.test(name) || imgs.some((i) => /vc-scheduler/.test(i))) {
    return "volcano-scheduler";
  }
  if (/trainer-controller-manager/.test(name) || imgs.some((i) => /trainer-controller-manager/.test(i))) {
    return "trainer-controller";
  }
  if (
    /training-operator|pytorch-operator|mpi-operator|tf-operator|aitraining-operator|kubeflow-trainer/.test(name) ||
    imgs.some((i) => /training-operator|mpi-operator|pytorch-operator/.test(i))
  ) {
    return "training-operator";
  }
  return null;
}

export const VOLCANO_CRDS = [
  "jobs.batch.volcano.sh",
  "podgroups.scheduling.volcano.sh",
  "queues.scheduling.volcano.sh",
];
export const TRAINING_CRDS = [
  "pytorchjobs.kubeflow.org",
  "mpijobs.kubeflow.org",
  "tfjobs.kubeflow.org",
  "paddlejobs.kubeflow.org",
];
/** Kubeflow Trainer v2 (`kube-rdma job trainjob`). */
export const TRAINER_CRDS = [
  "trainjobs.trainer.kubeflow.org",
  "clustertrainingruntimes.trainer.kubeflow.org",
  "trainingruntimes.trainer.kubeflow.org",
];
/** The CRDs of the other gang schedulers `job --scheduler` can use: scheduler-plugins' coscheduling, Kueue. */
export const GANG_CRDS = ["podgroups.scheduling.x-k8s.io", "clusterqueues.kueue.x-k8s.io"];
export const ALL_CRDS = [...VOLCANO_CRDS, ...TRAINING_CRDS, ...TRAINER_CRDS, ...GANG_CRDS];

/** `matchLabels` as a label selector string (`app=rdma-device-plugin`). */
export function selectorString(matchLabels: Record<string, string> | undefined): string {
  return Object.entries(matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}

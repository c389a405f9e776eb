import type { V1ObjectMeta, V1PodTemplateSpec } from "@kubernetes/client-node";

/** What every generated job shares (flags of `kube-rdma job`). */
export type JobOptions = {
  name: string;
  namespace: string;
  /** Pods that each get a node's GPUs (Master + Workers, or MPI workers). */
  nodes: number;
  gpusPerNode: number;
  gpuResource: string;
  rdmaResource: string;
  rdmaCount: number;
  image: string;
  /** Volcano queue (`scheduling.volcano.sh/queue-name`); omitted when undefined. */
  queue?: string | undefined;
  schedulerName: string;
  hostNetwork: boolean;
  /** `/dev/shm` emptyDir sizeLimit, a Kubernetes quantity (`64Gi`). */
  shmSize: string;
  /** NCCL variables for the training containers (derived from a node, plus NCCL_DEBUG / NCCL_IB_DISABLE). */
  env: Record<string, string>;
  /** `--on`: the nodes (kubernetes.io/hostname values) the GPU pods must run on, one pod per node. */
  onNodes?: string[] | undefined;
};

export type ReplicaSpec = { replicas: number; restartPolicy: string; template: V1PodTemplateSpec };

export type SchedulingPolicy = { minAvailable?: number; queue?: string };

export type PyTorchJob = {
  apiVersion: "kubeflow.org/v1";
  kind: "PyTorchJob";
  metadata: V1ObjectMeta;
  spec: {
    runPolicy: { cleanPodPolicy: string; schedulingPolicy?: SchedulingPolicy };
    pytorchReplicaSpecs: { Master: ReplicaSpec; Worker?: ReplicaSpec };
  };
};

export type MPIJob = {
  apiVersion: "kubeflow.org/v2beta1";
  kind: "MPIJob";
  metadata: V1ObjectMeta;
  spec: {
    slotsPerWorker: number;
    launcherCreationPolicy: "WaitForWorkersReady" | "AtStartup";
    runPolicy: { cleanPodPolicy: string; schedulingPolicy?: SchedulingPolicy };
    mpiImplementation?: "OpenMPI" | "Intel" | "MPICH";
    mpiReplicaSpecs: { Launcher: ReplicaSpec; Worker: ReplicaSpec };
  };
};

export type VolcanoTask = {
  name: string;
  replicas: number;
  minAvailable?: number;
  policies?: { event: string; action: string }[];
  template: V1PodTemplateSpec;
};

export type VolcanoJob = {
  apiVersion: "batch.volcano.sh/v1alpha1";
  kind: "Job";
  metadata: V1ObjectMeta;
  spec: {
    minAvailable: number;
    schedulerName: string;
    queue?: string;
    plugins: Record<string, string[]>;
    policies?: { event: string; action: string }[];
    tasks: VolcanoTask[];
  };
};

export type JobManifest = PyTorchJob | MPIJob | VolcanoJob;

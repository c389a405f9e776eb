import type { V1ObjectMeta, V1PodTemplateSpec } from "@kubernetes/client-node";
import type { GangKind } from "./scheduler.js";

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
  /** How the job is gang-scheduled (--scheduler); "volcano" when absent. */
  gang?: GangKind | undefined;
  hostNetwork: boolean;
  /** `/dev/shm` emptyDir sizeLimit, a Kubernetes quantity (`64Gi`). */
  shmSize: string;
  /** NCCL variables for the training containers (derived from a node, plus NCCL_DEBUG / NCCL_IB_DISABLE). */
  env: Record<string, string>;
  /** The management HCA of the node the NCCL env was derived for (null: none with RDMA); undefined: no node source. */
  managementHca?: string | null | undefined;
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

export type JobManifest = PyTorchJob | MPIJob | VolcanoJob | ClusterTrainingRuntime | TrainJob;

/** ClusterTrainingRuntime: cluster-scoped, shared; TrainingRuntime: namespaced, here one job's own. */
export type TrainingRuntimeKind = "ClusterTrainingRuntime" | "TrainingRuntime";

/** Kubeflow Trainer v2: the runtime (a JobSet template) and the TrainJob that runs on it. */
export type ClusterTrainingRuntime = {
  apiVersion: "trainer.kubeflow.org/v1alpha1";
  kind: TrainingRuntimeKind;
  metadata: V1ObjectMeta;
  spec: {
    mlPolicy: { numNodes: number; torch: Record<string, never> };
    podGroupPolicy?: { volcano: Record<string, never> } | { coscheduling: Record<string, never> };
    template: {
      spec: {
        replicatedJobs: {
          name: string;
          replicas: number;
          template: { metadata: V1ObjectMeta; spec: { template: V1PodTemplateSpec } };
        }[];
      };
    };
  };
};

export type TrainJob = {
  apiVersion: "trainer.kubeflow.org/v1alpha1";
  kind: "TrainJob";
  metadata: V1ObjectMeta;
  spec: {
    runtimeRef: { apiGroup: "trainer.kubeflow.org"; kind: TrainingRuntimeKind; name: string };
    trainer: { numNodes: number; numProcPerNode: number };
  };
};

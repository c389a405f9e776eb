import { rdmaContainer, rdmaPodTemplate } from "./pod-template.js";
import type { ClusterTrainingRuntime, JobOptions, TrainingRuntimeKind, TrainJob } from "./types.js";

/** The label that makes Kubeflow Trainer apply a TrainJob's `trainer` fields to a replicated job. */
export const TRAINER_ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step";

/** Trainer v2 gives the TrainJob's trainer fields (image, command, resourcesPerNode, env) to this container. */
export const TRAINER_NODE_CONTAINER = "node";

export type TrainJobOptions = JobOptions & {
  script: string[];
  runtimeName: string;
  /**
   * ClusterTrainingRuntime (default): cluster-scoped and shared by every TrainJob that names it, so it must carry
   * nothing of one job. TrainingRuntime: namespaced, beside the TrainJob, this job's own — the kind `job trainjob`
   * writes when the gang preflight (whose init container names the job and its member count) goes into the runtime.
   */
  runtimeKind?: TrainingRuntimeKind | undefined;
};

/**
 * Kubeflow Trainer v2 (`trainer.kubeflow.org/v1alpha1`): a ClusterTrainingRuntime for torch whose `node` pod
 * template carries the RDMA setup (GPUs + rdma/hca, IPC_LOCK, /dev/shm, NCCL env, no sidecar, gang scheduling), and a
 * TrainJob on it with numNodes and numProcPerNode. The TrainJob sets no `resourcesPerNode`: Trainer replaces the
 * node container's whole `resources` with it, which would drop rdma/hca (or the GPUs) the runtime requests.
 * torchrun is PID 1 and reads the PET_* variables Trainer injects (PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR, …).
 * With `runtimeKind: "TrainingRuntime"` the runtime is namespaced in the job's namespace and the TrainJob refers to it
 * by that kind.
 */
export function buildTrainJob(opts: TrainJobOptions): [ClusterTrainingRuntime, TrainJob] {
  const node = rdmaContainer(opts, {
    name: TRAINER_NODE_CONTAINER,
    command: ["torchrun"],
    args: opts.script,
    rdma: true,
  });
  const kind = opts.runtimeKind ?? "ClusterTrainingRuntime";
  const labels = { "trainer.kubeflow.org/framework": "torch" };
  const runtime: ClusterTrainingRuntime = {
    apiVersion: "trainer.kubeflow.org/v1alpha1",
    kind,
    metadata:
      kind === "TrainingRuntime"
        ? { name: opts.runtimeName, namespace: opts.namespace, labels }
        : { name: opts.runtimeName, labels },
    spec: {
      mlPolicy: { numNodes: opts.nodes, torch: {} },
      ...((opts.gang ?? "volcano") === "volcano" && opts.schedulerName === "volcano"
        ? { podGroupPolicy: { volcano: {} } }
        : opts.gang === "coscheduling"
          ? { podGroupPolicy: { coscheduling: {} } }
          : {}),
      template: {
        spec: {
          replicatedJobs: [
            {
              name: "node",
              replicas: 1,
              template: {
                metadata: { labels: { [TRAINER_ANCESTOR_LABEL]: "trainer" } },
                spec: { template: rdmaPodTemplate(opts, [node], { restartPolicy: "OnFailure" }) },
              },
            },
          ],
        },
      },
    },
  };
  const job: TrainJob = {
    apiVersion: "trainer.kubeflow.org/v1alpha1",
    kind: "TrainJob",
    metadata: { name: opts.name, namespace: opts.namespace },
    spec: {
      runtimeRef: { apiGroup: "trainer.kubeflow.org", kind, name: opts.runtimeName },
      trainer: { numNodes: opts.nodes, numProcPerNode: opts.gpusPerNode },
    },
  };
  return [runtime, job];
}

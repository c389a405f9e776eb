import { jobMetadata, schedulingPolicyFor } from "./gang.js";
import { workerSshdScript } from "./mpirun.js";
import { rdmaContainer, rdmaPodTemplate } from "./pod-template.js";
import type { JobOptions, MPIJob } from "./types.js";

/** Lets OpenMPI run as root in the launcher (the usual nccl-tests images run as root). */
export const OMPI_ROOT_ENV: Record<string, string> = {
  OMPI_ALLOW_RUN_AS_ROOT: "1",
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: "1",
};

export type MpiOptions = JobOptions & {
  /** The launcher's full command line (`mpirun … all_reduce_perf …`). */
  launcherArgv: string[];
  /** Image of the launcher; defaults to the workers' image. */
  launcherImage?: string;
};

/**
 * MPIJob `kubeflow.org/v2beta1`: one Launcher (no GPUs; runs mpirun and forwards the NCCL env with -x), `nodes`
 * Workers with GPUs + RDMA, `slotsPerWorker` = GPUs per node, and `launcherCreationPolicy: WaitForWorkersReady` so the
 * launcher does not burn its ssh retries before the workers run (mpi-operator#386).
 */
export function buildMpiJob(opts: MpiOptions): MPIJob {
  const launcher = rdmaContainer(
    { ...opts, image: opts.launcherImage ?? opts.image },
    {
      name: "launcher",
      command: opts.launcherArgv.slice(0, 1),
      args: opts.launcherArgv.slice(1),
      rdma: false,
      ncclEnv: true,
      extraEnv: OMPI_ROOT_ENV,
    },
  );
  // The worker is sshd (mpi-operator v2 starts the ranks over ssh), after saving its NCCL variables for the ranks.
  const worker = rdmaContainer(opts, { name: "worker", command: ["/bin/bash", "-c", workerSshdScript()], rdma: true });
  return {
    apiVersion: "kubeflow.org/v2beta1",
    kind: "MPIJob",
    metadata: jobMetadata(opts),
    spec: {
      slotsPerWorker: opts.gpusPerNode,
      launcherCreationPolicy: "WaitForWorkersReady",
      runPolicy: {
        cleanPodPolicy: "Running",
        ...schedulingPolicyFor(opts, opts.nodes + 1),
      },
      mpiImplementation: "OpenMPI",
      mpiReplicaSpecs: {
        Launcher: { replicas: 1, restartPolicy: "OnFailure", template: rdmaPodTemplate(opts, [launcher]) },
        Worker: { replicas: opts.nodes, restartPolicy: "OnFailure", template: rdmaPodTemplate(opts, [worker]) },
      },
    },
  };
}

import { OMPI_ROOT_ENV } from "./mpi.js";
import { shellQuote, withForwardedEnv, workerSshdScript } from "./mpirun.js";
import { rdmaContainer, rdmaPodTemplate } from "./pod-template.js";
import type { JobOptions, VolcanoJob } from "./types.js";

export type VolcanoOptions = JobOptions & {
  /** mpirun argv without hosts; `--host $MPI_HOST` is added from Volcano's /etc/volcano/mpiworker.host. */
  launcherArgv: string[];
};

/**
 * Volcano Job `batch.volcano.sh/v1alpha1` with the ssh and svc plugins: `mpimaster` (1, no GPUs; completes the job
 * when it finishes) and `mpiworker` (`nodes`, GPUs + RDMA, running sshd), `minAvailable` = all pods (gang).
 * The master needs a shell to turn Volcano's host file into `--host`; it requests no RDMA, and forwards every NCCL
 * variable with -x. Workers `exec` sshd so nothing sits between PID 1 and the daemon.
 */
export function buildVolcanoJob(opts: VolcanoOptions): VolcanoJob {
  const mpirun = withForwardedEnv(opts.launcherArgv, opts.env);
  const hostRef = "$" + "{MPI_HOST}";
  const withHosts = [mpirun[0]!, "--host", hostRef, ...mpirun.slice(1)];
  const script = [
    'MPI_HOST=$(cat /etc/volcano/mpiworker.host | sed "s/$/:' +
      String(opts.gpusPerNode) +
      '/" | tr "\\n" "," | sed "s/,$//")',
    "mkdir -p /var/run/sshd",
    "/usr/sbin/sshd",
    withHosts.map((w) => (w === hostRef ? w : shellQuote(w))).join(" "),
  ].join("; ");
  const master = rdmaContainer(opts, {
    name: "mpimaster",
    command: ["/bin/bash", "-c", script],
    rdma: false,
    ncclEnv: true,
    extraEnv: OMPI_ROOT_ENV,
  });
  const worker = rdmaContainer(opts, {
    name: "mpiworker",
    command: ["/bin/bash", "-c", workerSshdScript()],
    rdma: true,
  });
  const pod = (c: typeof master) => rdmaPodTemplate(opts, [c], { restartPolicy: "OnFailure", schedulerInPod: false });
  return {
    apiVersion: "batch.volcano.sh/v1alpha1",
    kind: "Job",
    metadata: { name: opts.name, namespace: opts.namespace },
    spec: {
      minAvailable: opts.nodes + 1,
      schedulerName: opts.schedulerName,
      ...(opts.queue ? { queue: opts.queue } : {}),
      plugins: { ssh: [], svc: [] },
      policies: [{ event: "PodEvicted", action: "RestartJob" }],
      tasks: [
        {
          name: "mpimaster",
          replicas: 1,
          policies: [{ event: "TaskCompleted", action: "CompleteJob" }],
          template: pod(master),
        },
        { name: "mpiworker", replicas: opts.nodes, template: pod(worker) },
      ],
    },
  };
}

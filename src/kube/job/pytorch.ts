import { jobMetadata, schedulingPolicyFor } from "./gang.js";
import { rdmaContainer, rdmaPodTemplate } from "./pod-template.js";
import type { JobOptions, PyTorchJob, ReplicaSpec } from "./types.js";

export type PyTorchLauncher = "torchrun" | "launch";

/**
 * The distributed launcher's argv, built from the variables the training operator puts into each container's env
 * (WORLD_SIZE = number of pods, RANK = pod rank, MASTER_ADDR, MASTER_PORT).
 *
 * Why `$(VAR)` and no `sh -c`: the kubelet expands `$(WORLD_SIZE)` in `command`/`args` from the container's env
 * (which is where the operator writes these variables), so no shell is needed. (A shell would do no harm: the
 * variables a device plugin injects are in the container's environment, which sh passes on to its children.)
 */
export function pytorchLaunchArgs(launcher: PyTorchLauncher, gpusPerNode: number): string[] {
  if (launcher === "launch") {
    return [
      "python",
      "-m",
      "torch.distributed.launch",
      "--nproc_per_node",
      String(gpusPerNode),
      "--nnodes",
      "$(WORLD_SIZE)",
      "--node_rank",
      "$(RANK)",
      "--master_addr",
      "$(MASTER_ADDR)",
      "--master_port",
      "$(MASTER_PORT)",
    ];
  }
  return [
    "torchrun",
    `--nproc_per_node=${gpusPerNode}`,
    "--nnodes=$(WORLD_SIZE)",
    "--node_rank=$(RANK)",
    "--master_addr=$(MASTER_ADDR)",
    "--master_port=$(MASTER_PORT)",
  ];
}

export type PyTorchOptions = JobOptions & { launcher: PyTorchLauncher; script: string[] };

/** The Baidu CCE reference PyTorchJob shape: Master (1) + Worker (nodes − 1), Volcano, IPC_LOCK, rdma/hca, /dev/shm, NCCL env. */
export function buildPyTorchJob(opts: PyTorchOptions): PyTorchJob {
  const [launcher, ...launcherArgs] = pytorchLaunchArgs(opts.launcher, opts.gpusPerNode);
  const replica = (replicas: number): ReplicaSpec => ({
    replicas,
    restartPolicy: "OnFailure",
    template: rdmaPodTemplate(opts, [
      rdmaContainer(opts, {
        // The training operator finds the training container by this name.
        name: "pytorch",
        command: [launcher!],
        args: [...launcherArgs, ...opts.script],
        rdma: true,
        ports: [{ name: "pytorchjob-port", containerPort: 23456 }],
      }),
    ]),
  });
  return {
    apiVersion: "kubeflow.org/v1",
    kind: "PyTorchJob",
    metadata: jobMetadata(opts),
    spec: {
      runPolicy: {
        cleanPodPolicy: "None",
        ...schedulingPolicyFor(opts, opts.nodes),
      },
      pytorchReplicaSpecs: {
        Master: replica(1),
        ...(opts.nodes > 1 ? { Worker: replica(opts.nodes - 1) } : {}),
      },
    },
  };
}

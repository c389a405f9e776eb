import { applyObjects, makeClients } from "../../kube/api/client.js";
import { loadKubeConfig } from "../../kube/api/config.js";
import { KUBECONFIG_OPTIONS, kubeOptionsFrom } from "../../kube/api/options.js";
import { kubeRdmaImage } from "../../kube/image.js";
import { buildJobs, JOB_KINDS, type JobKind, jobOptionsFrom } from "../../kube/job/from-flags.js";
import { DEFAULT_TRAINING_IMAGE } from "../../kube/job/images.js";
import { renderManifests } from "../../kube/job/render.js";
import { pollIntervalMs } from "../poll-interval.js";
import { SOURCE_OPTIONS } from "../shared-options.js";
import { bool, type CommandSpec, type Io, num, type OptionValues, str, UsageError } from "../spec.js";
import { usageErrorText } from "../usage-error-text.js";

export const command: CommandSpec = {
  name: "job",
  summary: "Generate RDMA training/benchmark jobs: PyTorchJob, MPIJob, Volcano Job, nccl-tests, TrainJob",
  usage: "kube-rdma job pytorch|mpi|volcano|nccl-tests|trainjob [options] [-- PROGRAM ARGS…]",
  description: `
Writes a manifest ready for \`kubectl apply -f -\` (or creates it with --apply), in the shape of a reference RDMA training setup:
schedulerName volcano, capabilities IPC_LOCK, limits <gpu-resource>: N and rdma/hca: 1, /dev/shm on an emptyDir
with medium Memory, sidecar.istio.io/inject "false", NCCL_DEBUG=INFO, NCCL_IB_DISABLE=0 and the NCCL variables
derived for a node (--example, --snapshot, or --env-from-node NAME, which reads that node through the cluster).
Without a node source only NCCL_DEBUG/NCCL_IB_DISABLE are set and the platform injects the rest.

  pytorch     PyTorchJob kubeflow.org/v1: Master + (nodes-1) Workers. The launcher (torchrun, or
              torch.distributed.launch with --launcher launch) takes --nnodes/--node_rank/--master_addr/--master_port
              from the operator's WORLD_SIZE, RANK, MASTER_ADDR, MASTER_PORT through Kubernetes' own $(VAR)
              expansion, with no \`sh -c\` wrapper (none is needed; a shell would pass the injected NCCL variables
              on too — only sudo, ssh, env -i or su - drop them, which lint flags).
  mpi         MPIJob kubeflow.org/v2beta1: Launcher + N Workers, slotsPerWorker = GPUs per node,
              launcherCreationPolicy WaitForWorkersReady; NCCL variables forwarded with mpirun -x.
  volcano     Volcano Job batch.volcano.sh/v1alpha1 with the ssh and svc plugins, minAvailable = all pods,
              tasks mpimaster and mpiworker.
  nccl-tests  all_reduce_perf across --nodes N nodes, as an MPIJob (default) or --kind volcano.
  trainjob    Kubeflow Trainer v2: a ClusterTrainingRuntime for torch (--runtime NAME, default <name>-torch-rdma)
              whose "node" pod template carries the RDMA setup, and a TrainJob trainer.kubeflow.org/v1alpha1 on it
              (numNodes, numProcPerNode). The TrainJob sets no resourcesPerNode: Trainer replaces the node
              container's resources with it, which would drop rdma/hca or the GPUs. With the gang preflight
              (the default) the runtime is a namespaced TrainingRuntime of the job's own, since the preflight
              names the job; --no-preflight writes the shared ClusterTrainingRuntime.

PROGRAM after \`--\` is the training script for pytorch (default train.py) and the program mpirun starts for
mpi/volcano. Images must match the node's driver: with a node source, nccl-tests takes the newest nccl-tests image
the driver runs (NVIDIA's table of CUDA releases and their minimum drivers, and CUDA minor version compatibility:
any 11.x on R450.80+, any 12.x on R525.60+), without a node source a CUDA 12 image, and refuses when none runs,
naming --image and --skip-driver-check. The training kinds take the newest NGC PyTorch image the driver runs,
natively or, on data-center GPUs, in forward-compatibility mode on the driver branches its release notes list.`,
  options: [
    { name: "name", type: "string", valueName: "NAME", description: "Job name (default: rdma-<kind>)" },
    { name: "namespace", short: "n", type: "string", valueName: "NS", default: "default", description: "Namespace" },
    { name: "nodes", type: "number", valueName: "N", default: 2, description: "Nodes (pods with GPUs)" },
    { name: "gpus", type: "number", valueName: "N", default: 8, description: "GPUs per node" },
    {
      name: "gpu-resource",
      type: "string",
      valueName: "NAME",
      default: "nvidia.com/gpu",
      description: "GPU resource name (e.g. baidu.com/a100_80g_cgpu, amd.com/gpu)",
    },
    {
      name: "rdma-resource",
      type: "string",
      valueName: "NAME",
      description:
        "RDMA resource name (default: what --env-from-node's node advertises, else rdma/hca; `kube-rdma cluster` names the nodes')",
    },
    { name: "rdma-count", type: "number", valueName: "N", default: 1, description: "RDMA resource units per pod" },
    {
      name: "image",
      type: "string",
      valueName: "IMAGE",
      description: `Container image (default ${DEFAULT_TRAINING_IMAGE}, or the newest NGC PyTorch image the node's driver runs; nccl-tests: the newest nccl-tests image the driver runs, a CUDA 12 one when the driver is unknown)`,
    },
    {
      name: "skip-driver-check",
      type: "boolean",
      description: "Generate even when no known image's CUDA release runs on the node's driver (NVIDIA's driver table)",
    },
    { name: "command", type: "string", valueName: "CMD", description: "PROGRAM as one string (instead of after --)" },
    {
      name: "launcher",
      type: "string",
      valueName: "L",
      choices: ["torchrun", "launch"],
      default: "torchrun",
      description: "pytorch: torchrun or python -m torch.distributed.launch (the launcher of older PyTorch jobs)",
    },
    {
      name: "kind",
      type: "string",
      valueName: "K",
      choices: ["mpi", "volcano"],
      default: "mpi",
      description: "nccl-tests: job kind",
    },
    {
      name: "collective",
      type: "string",
      valueName: "NAME",
      choices: ["all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv"],
      description: "nccl-tests: collective (default all_reduce)",
    },
    {
      name: "collector-timeout",
      type: "number",
      valueName: "SECONDS",
      default: 120,
      description: "--env-from-node: how long to wait for the collector pod",
    },
    {
      name: "poll-interval",
      type: "number",
      valueName: "MS",
      default: 1000,
      description: "--env-from-node: pod status polling interval",
    },
    {
      name: "collector-image",
      type: "string",
      valueName: "IMAGE",
      description:
        "--env-from-node: kube-rdma image of the collector pod (default $KUBE_RDMA_IMAGE, else this release's image)",
    },
    {
      name: "runtime",
      type: "string",
      valueName: "NAME",
      description:
        "trainjob: name of the runtime (default <name>-torch-rdma; a TrainingRuntime with the preflight, else a ClusterTrainingRuntime)",
    },
    {
      name: "queue",
      type: "string",
      valueName: "QUEUE",
      description: "The queue: Volcano's (scheduling.volcano.sh/queue-name) or, with --scheduler kueue, the LocalQueue",
    },
    {
      name: "scheduler",
      type: "string",
      valueName: "NAME",
      default: "volcano",
      description:
        'Who starts the pods: volcano (gang: all pods or none), coscheduling (scheduler-plugins\' PodGroup), kueue (Kueue admits the whole job; queue from --queue, default "default"), default (no gang), or a schedulerName',
    },
    {
      name: "host-network",
      type: "boolean",
      description:
        "hostNetwork: true (with dnsPolicy ClusterFirstWithHostNet); only then does NCCL_SOCKET_IFNAME name the node's interface",
    },
    {
      name: "pod-interface",
      type: "string",
      valueName: "NAME",
      description:
        "Pod network: the interface the CNI gives each pod (eth0; net1 with Multus) → NCCL_SOCKET_IFNAME==NAME (default: unset)",
    },
    {
      name: "on",
      type: "strings",
      valueName: "NODES",
      description:
        "Run the GPU pods only on these nodes (kubernetes.io/hostname), one per node: a `bench pairs` pair test",
    },
    { name: "shm-size", type: "string", valueName: "SIZE", default: "32Gi", description: "/dev/shm sizeLimit" },
    { name: "env", type: "strings", valueName: "K=V", description: "Extra/overriding environment variables" },
    {
      name: "env-from-node",
      type: "string",
      valueName: "NODE",
      description: "Derive the NCCL variables from this cluster node (runs one collector pod there)",
    },
    {
      name: "preflight",
      type: "boolean",
      default: true,
      description:
        "Run `kube-rdma preflight` as an init container in every GPU pod: the pods compare their HCAs, GIDs, NCCL and variables before training (--no-preflight: leave it out)",
    },
    {
      name: "preflight-timeout",
      type: "number",
      valueName: "SECONDS",
      default: 600,
      description: "--preflight: how long each pod waits for the whole gang",
    },
    {
      name: "preflight-image",
      type: "string",
      valueName: "IMAGE",
      description:
        "--preflight: image of the init container (default: the kube-rdma image; a training image only if it carries kube-rdma)",
    },
    ...SOURCE_OPTIONS.filter((o) => o.name === "snapshot" || o.name === "example"),
    {
      name: "apply",
      type: "boolean",
      description: "Create (or update) the job through the API instead of printing it",
    },
    ...KUBECONFIG_OPTIONS,
    {
      name: "output",
      short: "o",
      type: "string",
      valueName: "FORMAT",
      choices: ["yaml", "json"],
      default: "yaml",
      description: "Manifest format (json: a v1 List)",
    },
  ],
  examples: [
    [
      "kube-rdma job pytorch --nodes 2 --gpus 8 --example a100-8x-roce -- main.py --batch-size 128",
      "the reference PyTorchJob on the A100 RoCE example node",
    ],
    ["kube-rdma job nccl-tests --nodes 4 | kubectl apply -f -", "all_reduce_perf over 4 nodes (MPIJob)"],
    ["kube-rdma job nccl-tests --nodes 2 --kind volcano --env-from-node gpu-a100-1", "Volcano Job, env from a node"],
    ["kube-rdma job mpi --nodes 2 --image my/img -- python train.py", "MPIJob running train.py on 16 ranks"],
  ],
  async run({ values, positionals, io }) {
    const [kind, ...program] = positionals;
    pollIntervalMs(values); // --env-from-node's collector polls with it: a bad value is refused before any pod exists
    if (!kind || !JOB_KINDS.includes(kind as JobKind)) {
      throw new UsageError(
        `job needs a kind: one of ${JOB_KINDS.join(", ")}${kind ? `; got "${kind}"` : ""}.`,
        "Example: kube-rdma job pytorch --nodes 2 --gpus 8",
      );
    }
    refuseOtherKindsOptions(kind as JobKind, values, program.length > 0 || str(values, "command") !== undefined);
    const opts = await jobOptionsFrom(kind as JobKind, values, program, io);
    const { objects, notes } = await preflightJobs(buildJobs(kind as JobKind, opts, values), values, io.env);
    if (bool(values, "apply")) {
      // Ctrl-C or SIGTERM aborts the request in flight; what this run created is deleted again (with clients of their
      // own, the interrupted ones abort every request), and the command exits 130 / 143 as a shell expects.
      const stop = new AbortController();
      let caught: NodeJS.Signals | undefined;
      const onSignal = (s: NodeJS.Signals) => {
        caught ??= s;
        stop.abort();
      };
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      try {
        const target = loadKubeConfig(kubeOptionsFrom(values, io.env));
        const clients = makeClients(target, "kube-rdma-job-creator", { signal: stop.signal });
        const cleanup = makeClients(target, "kube-rdma-job-creator");
        const { missingScheduler, schedulerFor } = await import("../../kube/job/scheduler.js");
        const missing = await missingScheduler(schedulerFor(str(values, "scheduler") ?? "volcano"), async () => {
          try {
            const list = await clients.ext.listCustomResourceDefinition();
            return list.items.map((c) => c.metadata?.name ?? "");
          } catch {
            return null; // not allowed to list CRDs: say nothing rather than guess
          }
        });
        if (missing && !stop.signal.aborted) throw new UsageError(missing.message, missing.hint);
        for (const a of await applyObjects(clients, objects, { signal: stop.signal, cleanup }))
          io.stdout(`${a.action} ${a.ref} in namespace ${a.namespace ?? opts.base.namespace}\n`);
      } catch (err) {
        if (caught === undefined || !(err instanceof UsageError)) throw err;
        io.stderr(usageErrorText("job", err));
        return caught === "SIGINT" ? 130 : 143;
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }
      for (const n of notes) io.stderr(`note: ${n}\n`);
      return nodeErrorsExit(opts.nodeErrors, io);
    }
    if (str(values, "output") === "json") {
      io.stdout(`${JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }, null, 2)}\n`);
      for (const n of notes) io.stderr(`note: ${n}\n`);
    } else {
      io.stdout(renderManifests(objects, [`Generated by kube-rdma job ${kind}`, ...notes]));
    }
    return nodeErrorsExit(opts.nodeErrors, io);
  },
};

/** `--preflight` (default on): the gang preflight init container and the objects its pods meet through. */
async function preflightJobs(
  built: ReturnType<typeof buildJobs>,
  values: Parameters<CommandSpec["run"]>[0]["values"],
  env: Io["env"],
): Promise<ReturnType<typeof buildJobs>> {
  if (!bool(values, "preflight")) return built;
  const timeoutSeconds = num(values, "preflight-timeout") ?? 600;
  if (!(timeoutSeconds > 0)) {
    throw new UsageError(`--preflight-timeout must be a positive number of seconds; got ${timeoutSeconds}.`);
  }
  const { withPreflight } = await import("../../kube/job/preflight.js");
  const r = withPreflight(built.objects, {
    timeoutSeconds,
    image: str(values, "preflight-image") ?? kubeRdmaImage(env),
  });
  return { objects: r.objects, notes: [...built.notes, ...r.notes] };
}

/**
 * A manifest derived from a node with errors (no data HCA: NCCL over TCP) is still written, but a comment inside
 * YAML piped to kubectl is never read: the errors go to standard error too and the exit code is 1 (errors found).
 */
function nodeErrorsExit(errors: readonly string[], io: Io): number {
  for (const e of errors) {
    io.stderr(`kube-rdma job: error ${e}\n`);
  }
  if (errors.length) {
    io.stderr(
      "kube-rdma job: the manifest was written, but its NCCL variables come from a node with the error(s) above; fix the node (`kube-rdma verify`) or derive from another one.\n",
    );
  }
  return errors.length ? 1 : 0;
}

/** Options that shape one kind of job only, with the value that means "not asked for". */
const KIND_ONLY: { name: string; kinds: JobKind[]; unset: unknown }[] = [
  { name: "launcher", kinds: ["pytorch"], unset: "torchrun" },
  { name: "kind", kinds: ["nccl-tests"], unset: "mpi" },
  { name: "collective", kinds: ["nccl-tests"], unset: undefined },
  { name: "skip-driver-check", kinds: ["nccl-tests"], unset: false },
  { name: "runtime", kinds: ["trainjob"], unset: undefined },
];

/**
 * `job pytorch --kind volcano` wrote a PyTorchJob and `job nccl-tests --collective alltoall -- all_reduce_perf`
 * ran all_reduce: an option another kind reads was dropped in silence. It is refused, naming the kind it is for.
 */
function refuseOtherKindsOptions(kind: JobKind, values: OptionValues, hasProgram: boolean): void {
  for (const o of KIND_ONLY) {
    const v = values[o.name];
    if (v === undefined || v === o.unset || o.kinds.includes(kind)) continue;
    throw new UsageError(
      `--${o.name} is for job ${o.kinds.join("/")} only; job ${kind} does not read it.`,
      o.name === "kind"
        ? "For a Volcano Job running your program use `kube-rdma job volcano -- PROGRAM`; for nccl-tests as one, `kube-rdma job nccl-tests --kind volcano`."
        : `Drop --${o.name}, or generate \`kube-rdma job ${o.kinds[0]}\`.`,
    );
  }
  if (kind === "nccl-tests" && hasProgram && values.collective !== undefined) {
    throw new UsageError(
      "--collective picks the nccl-tests binary the job runs, but a PROGRAM was given (after -- or --command), which runs instead.",
      "Give one: `kube-rdma job nccl-tests --collective alltoall`, or `kube-rdma job nccl-tests -- alltoall_perf -b 8 -e 8G`.",
    );
  }
}

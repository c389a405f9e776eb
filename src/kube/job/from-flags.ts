import type { KubernetesObject } from "@kubernetes/client-node";
import { bool, type Io, num, type OptionValues, str, strs, UsageError } from "../../cli/spec.js";
import type { DriverInfo } from "../../inventory/types.js";
import { isInterfaceName, type NetworkMode, ncclTestsCommand, networkModeFrom } from "../../nccl/index.js";
import { beyondLimit, type SizedFlag } from "../../nccl/job-limits.js";
import { PYTORCH_MPI_DOCKERFILE, withSshd } from "../image-contents.js";
import { DEFAULT_LINT_OPTIONS } from "../lint/rules.js";
import { parseQuantity } from "../resources.js";
import { chooseNcclTestsImage, DEFAULT_TRAINING_IMAGE } from "./images.js";
import { buildMpiJob } from "./mpi.js";
import { mpirunArgv, withForwardedEnv, withRankEnv } from "./mpirun.js";
import { deriveJobEnv } from "./nccl-env-source.js";
import { SEED_NCCL_ENV } from "./pod-template.js";
import { buildPyTorchJob, type PyTorchLauncher } from "./pytorch.js";
import { gangNote, schedulerFor } from "./scheduler.js";
import { chooseTrainingImage } from "./training-image.js";
import { buildTrainJob } from "./trainjob.js";
import type { JobOptions } from "./types.js";
import { buildVolcanoJob } from "./volcano.js";
import { splitWords } from "./words.js";

export const JOB_KINDS = ["pytorch", "mpi", "volcano", "nccl-tests", "trainjob"] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** The image of a kind, chosen for the node's driver when a node source is given (nccl-tests or training image). */
function imageFor(
  kind: JobKind,
  values: OptionValues,
  node: { driver: DriverInfo; gpuNames: string[] } | null,
  notes: string[],
): string {
  const given = str(values, "image");
  const skipDriverCheck = bool(values, "skip-driver-check");
  const driver = node?.driver ?? null;
  const choice =
    kind === "nccl-tests"
      ? chooseNcclTestsImage({ driver, image: given, skipDriverCheck })
      : node === null
        ? { ok: true as const, image: given ?? DEFAULT_TRAINING_IMAGE, notes: [] }
        : chooseTrainingImage({ driver, gpuNames: node.gpuNames, image: given, skipDriverCheck });
  if (!choice.ok) throw new UsageError(choice.message, choice.hint);
  notes.push(...choice.notes);
  // MPI and Volcano workers run sshd, which the NGC image lacks: the same image with it added, unless --image.
  if ((kind === "mpi" || kind === "volcano") && given === undefined) {
    const image = withSshd(choice.image);
    if (image !== choice.image) {
      notes.push(
        `image ${image}: ${choice.image} with sshd for the MPI workers; build it from ${PYTORCH_MPI_DOCKERFILE} (its header says how)`,
      );
    }
    return image;
  }
  return choice.image;
}

export type JobFlags = {
  base: JobOptions;
  program: string[];
  notes: string[];
  /** Errors of the node the NCCL variables were derived from: the manifest is written, the exit code says so. */
  nodeErrors: string[];
};

function positiveInt(values: OptionValues, name: SizedFlag): number {
  const n = num(values, name);
  if (n === undefined || !Number.isInteger(n) || n < 1) {
    throw new UsageError(`--${name} must be a whole number ≥ 1; got ${String(values[name])}.`);
  }
  const tooLarge = beyondLimit(name, n);
  if (tooLarge) throw new UsageError(`${tooLarge}.`);
  return n;
}

function parseEnvFlags(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const p of pairs) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(p);
    if (!m) throw new UsageError(`--env expects NAME=VALUE; got "${p}".`);
    env[m[1]!] = m[2]!;
  }
  return env;
}

/** `--on a,b`: distinct node names, at least one per GPU pod. */
function onNodesFrom(names: string[], pods: number): string[] | undefined {
  const nodes = [
    ...new Set(
      names
        .flatMap((n) => n.split(","))
        .map((n) => n.trim())
        .filter(Boolean),
    ),
  ];
  if (nodes.length === 0) return undefined;
  if (nodes.length < pods) {
    throw new UsageError(
      `--on names ${nodes.length} node(s) for --nodes ${pods}: each GPU pod needs a node of its own.`,
      `Name ${pods} nodes (e.g. --on ${["gpu-1", "gpu-2", "gpu-3"].slice(0, Math.min(pods, 3)).join(",")}${pods > 3 ? ",…" : ""}), or lower --nodes.`,
    );
  }
  return nodes;
}

/** The generated pods' network: hostNetwork with --host-network, else the pod network (and its --pod-interface). */
export function jobNetworkMode(hostNetwork: boolean, podInterface: string | undefined): NetworkMode {
  if (podInterface !== undefined && !isInterfaceName(podInterface)) {
    throw new UsageError(`--pod-interface expects an interface name such as eth0 or net1; got "${podInterface}".`);
  }
  if (hostNetwork && podInterface !== undefined) {
    throw new UsageError(
      "--pod-interface names the pod's own interface on the pod network; --host-network pods use the node's.",
      "Drop one of the two flags.",
    );
  }
  return networkModeFrom(hostNetwork ? "host" : "pod", podInterface);
}

/** Reads and checks the flags of `kube-rdma job`; derives the NCCL env when a node source is given. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The operators name Services and pods `<name>-worker-<i>` (`-mpiworker-<i>` under Volcano): DNS-1035 labels of at
 * most 63 characters, so the job name must start with a letter and leave room for the longest suffix. Refused
 * here rather than by `kubectl apply` (or worse, by the operator after the job was accepted).
 */
function checkedNames(values: OptionValues, kind: JobKind, nodes: number): { name: string; namespace: string } {
  const name = str(values, "name") ?? `rdma-${kind}`;
  const namespace = str(values, "namespace") ?? "default";
  const room = 63 - `-mpiworker-${nodes - 1}`.length;
  if (!DNS_LABEL.test(name) || !/^[a-z]/.test(name) || name.length > room) {
    throw new UsageError(
      `--name "${name}" cannot name a job: expected lowercase letters, digits and '-', starting with a letter and ending with a letter or digit, at most ${room} characters (the operators add -worker-<i> to it for pods and Services, which Kubernetes caps at 63).`,
      "Example: --name llama-rdma-2node",
    );
  }
  if (!DNS_LABEL.test(namespace) || namespace.length > 63) {
    throw new UsageError(
      `--namespace "${namespace}" is not a Kubernetes namespace name: expected lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters.`,
    );
  }
  return { name, namespace };
}

/** --scheduler: one of SCHEDULER_CHOICES or a schedulerName; a Volcano Job needs Volcano. */
function schedulerFromFlags(kind: JobKind, values: OptionValues) {
  const scheduler = schedulerFor(str(values, "scheduler") ?? "volcano");
  const volcanoJob = kind === "volcano" || (kind === "nccl-tests" && str(values, "kind") === "volcano");
  if (volcanoJob && scheduler.gang !== "volcano") {
    throw new UsageError(
      `a Volcano Job (batch.volcano.sh) is run by Volcano; --scheduler ${scheduler.name} cannot run it.`,
      "Use job pytorch or job mpi (or nccl-tests --kind mpijob) with that scheduler, or --scheduler volcano.",
    );
  }
  return scheduler;
}

export async function jobOptionsFrom(
  kind: JobKind,
  values: OptionValues,
  positionals: string[],
  io: Io,
): Promise<JobFlags> {
  const nodes = positiveInt(values, "nodes");
  const gpus = positiveInt(values, "gpus");
  const rdmaCount = positiveInt(values, "rdma-count");
  const { name, namespace } = checkedNames(values, kind, nodes);
  const shmSize = str(values, "shm-size") ?? "32Gi";
  const shmBytes = parseQuantity(shmSize);
  if (shmBytes === null) {
    throw new UsageError(`--shm-size must be a Kubernetes quantity such as 32Gi; got "${shmSize}".`);
  }
  // What `lint` would call SHM_SMALL (under 1 GiB) is not a manifest to write: NCCL's SHM transport runs out there.
  if (shmBytes < DEFAULT_LINT_OPTIONS.shmMinBytes) {
    throw new UsageError(
      `--shm-size ${shmSize} is below 1Gi: NCCL's shared-memory transport and the data loaders run out of /dev/shm ` +
        "(lint calls it SHM_SMALL).",
      "Give at least --shm-size 1Gi; 32Gi (the default) suits 8 GPUs.",
    );
  }
  const commandFlag = str(values, "command");
  if (commandFlag && positionals.length) {
    throw new UsageError("give the program either with --command or after --, not both.");
  }
  const program = commandFlag ? splitWords(commandFlag) : positionals;
  const onNodes = onNodesFrom(strs(values, "on"), nodes);
  const hostNetwork = bool(values, "host-network");
  const network = jobNetworkMode(hostNetwork, str(values, "pod-interface"));
  const derived = await deriveJobEnv(values, io, network);
  // The pods' own interface is known without a node: the user named it.
  const podSocket =
    !derived && network.kind === "pod" && network.podInterface
      ? { NCCL_SOCKET_IFNAME: `=${network.podInterface}` }
      : {};
  const notes = derived
    ? [`NCCL variables derived from ${derived.source}`, ...derived.notes]
    : ["no node source given: only NCCL_DEBUG and NCCL_IB_DISABLE are set; the platform injects the rest"];
  const scheduler = schedulerFromFlags(kind, values);
  const gang = gangNote(scheduler, nodes);
  if (gang) notes.push(gang);
  const base: JobOptions = {
    name,
    namespace,
    nodes,
    gpusPerNode: gpus,
    gpuResource: str(values, "gpu-resource") ?? "nvidia.com/gpu",
    rdmaResource: str(values, "rdma-resource") ?? derived?.rdmaResource ?? "rdma/hca",
    rdmaCount,
    image: imageFor(kind, values, derived ?? null, notes),
    queue: str(values, "queue"),
    schedulerName: scheduler.schedulerName,
    gang: scheduler.gang,
    hostNetwork,
    shmSize,
    env: { ...SEED_NCCL_ENV, ...podSocket, ...(derived?.env ?? {}), ...parseEnvFlags(strs(values, "env")) },
    ...(onNodes ? { onNodes } : {}),
    ...(derived ? { managementHca: derived.managementHca } : {}),
  };
  return { base, program, notes, nodeErrors: derived?.errors ?? [] };
}

/** Builds the manifests for a kind; notes explain choices the user should know about. */
export function buildJobs(
  kind: JobKind,
  flags: JobFlags,
  values: OptionValues,
): { objects: KubernetesObject[]; notes: string[] } {
  const { base } = flags;
  const notes = [...flags.notes];
  if (kind === "trainjob") {
    const script = flags.program.length ? flags.program : ["train.py"];
    if (!flags.program.length) notes.push("no training script given after --: using train.py");
    notes.push(
      "the TrainJob sets no resourcesPerNode: Trainer would replace the node container's resources with it and drop rdma/hca",
    );
    const runtimeName = str(values, "runtime") ?? `${base.name}-torch-rdma`;
    // The preflight init container names this job and its member count: it goes into a runtime of this job alone
    // (a namespaced TrainingRuntime), never into a cluster-wide one other TrainJobs share.
    const runtimeKind = bool(values, "preflight") ? "TrainingRuntime" : "ClusterTrainingRuntime";
    if (runtimeKind === "TrainingRuntime") {
      notes.push(
        `the gang preflight names this job, so the runtime is a TrainingRuntime of its own in namespace ${base.namespace}; ` +
          "--no-preflight writes a shared ClusterTrainingRuntime instead",
      );
      if (str(values, "runtime")) {
        notes.push(
          `TrainingRuntime ${runtimeName} carries this job's preflight: give each TrainJob its own --runtime name, or applying another overwrites it`,
        );
      }
    }
    return { objects: buildTrainJob({ ...base, script, runtimeName, runtimeKind }), notes };
  }
  if (kind === "pytorch") {
    const launcher = (str(values, "launcher") ?? "torchrun") as PyTorchLauncher;
    const script = flags.program.length ? flags.program : ["train.py"];
    if (!flags.program.length) notes.push("no training script given after --: using train.py");
    return { objects: [buildPyTorchJob({ ...base, launcher, script })], notes };
  }
  const np = base.nodes * base.gpusPerNode;
  const useVolcano = kind === "volcano" || (kind === "nccl-tests" && str(values, "kind") === "volcano");
  let launcherArgv: string[];
  if (kind === "nccl-tests" && flags.program.length === 0) {
    // The nccl-tests command line of `kube-rdma bench` (one rank per GPU), forwarding the job's NCCL env.
    const collective = str(values, "collective");
    const cmd = ncclTestsCommand({
      nodes: base.nodes,
      gpusPerNode: base.gpusPerNode,
      ...(collective ? { collective } : {}),
    });
    const forwarded = withForwardedEnv(cmd.argv, base.env);
    launcherArgv = withRankEnv(
      forwarded,
      forwarded.findIndex((w) => w.endsWith("_perf")),
    );
    notes.push(...cmd.notes);
  } else if (flags.program.length === 0) {
    throw new UsageError(
      `job ${kind} needs the program mpirun starts, after --.`,
      `Example: kube-rdma job ${kind} -- python train.py`,
    );
  } else {
    launcherArgv = mpirunArgv({ np, perNode: base.gpusPerNode, env: base.env, program: flags.program });
  }
  const job = useVolcano ? buildVolcanoJob({ ...base, launcherArgv }) : buildMpiJob({ ...base, launcherArgv });
  return { objects: [job], notes };
}

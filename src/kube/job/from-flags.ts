import type { KubernetesObject } from "@kubernetes/client-node";
import { bool, type Io, num, type OptionValues, str, strs, UsageError } from "../../cli/spec.js";
import { ncclTestsCommand } from "../../nccl/index.js";
import { parseQuantity } from "../resources.js";
import { buildMpiJob } from "./mpi.js";
import { mpirunArgv, withForwardedEnv } from "./mpirun.js";
import { deriveJobEnv } from "./nccl-env-source.js";
import { SEED_NCCL_ENV } from "./pod-template.js";
import { buildPyTorchJob, type PyTorchLauncher } from "./pytorch.js";
import type { JobOptions } from "./types.js";
import { buildVolcanoJob } from "./volcano.js";
import { splitWords } from "./words.js";

export const JOB_KINDS = ["pytorch", "mpi", "volcano", "nccl-tests"] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const DEFAULT_IMAGES: Record<JobKind, string> = {
  pytorch: "nvcr.io/nvidia/pytorch:24.05-py3",
  mpi: "nvcr.io/nvidia/pytorch:24.05-py3",
  volcano: "nvcr.io/nvidia/pytorch:24.05-py3",
  "nccl-tests": "ghcr.io/coreweave/nccl-tests:13.2.0-devel-ubuntu24.04-nccl2.29.7-1-7112046",
};

export type JobFlags = { base: JobOptions; program: string[]; notes: string[] };

function positiveInt(values: OptionValues, name: string): number {
  const n = num(values, name);
  if (n === undefined || !Number.isInteger(n) || n < 1) {
    throw new UsageError(`--${name} must be a whole number ≥ 1; got ${String(values[name])}.`);
  }
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

/** Reads and checks the flags of `kube-rdma job`; derives the NCCL env when a node source is given. */
export async function jobOptionsFrom(
  kind: JobKind,
  values: OptionValues,
  positionals: string[],
  io: Io,
): Promise<JobFlags> {
  const nodes = positiveInt(values, "nodes");
  const gpus = positiveInt(values, "gpus");
  const rdmaCount = positiveInt(values, "rdma-count");
  const shmSize = str(values, "shm-size") ?? "32Gi";
  if (parseQuantity(shmSize) === null) {
    throw new UsageError(`--shm-size must be a Kubernetes quantity such as 32Gi; got "${shmSize}".`);
  }
  const commandFlag = str(values, "command");
  if (commandFlag && positionals.length) {
    throw new UsageError("give the program either with --command or after --, not both.");
  }
  const program = commandFlag ? splitWords(commandFlag) : positionals;
  const onNodes = onNodesFrom(strs(values, "on"), nodes);
  const derived = await deriveJobEnv(values, io);
  const notes = derived
    ? [`NCCL variables derived from ${derived.source}`, ...derived.notes]
    : ["no node source given: only NCCL_DEBUG and NCCL_IB_DISABLE are set; the platform injects the rest"];
  const base: JobOptions = {
    name: str(values, "name") ?? `rdma-${kind}`,
    namespace: str(values, "namespace") ?? "default",
    nodes,
    gpusPerNode: gpus,
    gpuResource: str(values, "gpu-resource") ?? "nvidia.com/gpu",
    rdmaResource: str(values, "rdma-resource") ?? "rdma/hca",
    rdmaCount,
    image: str(values, "image") ?? DEFAULT_IMAGES[kind],
    queue: str(values, "queue"),
    schedulerName: str(values, "scheduler") ?? "volcano",
    hostNetwork: bool(values, "host-network"),
    shmSize,
    env: { ...SEED_NCCL_ENV, ...(derived?.env ?? {}), ...parseEnvFlags(strs(values, "env")) },
    ...(onNodes ? { onNodes } : {}),
  };
  return { base, program, notes };
}

/** Builds the manifests for a kind; notes explain choices the user should know about. */
export function buildJobs(
  kind: JobKind,
  flags: JobFlags,
  values: OptionValues,
): { objects: KubernetesObject[]; notes: string[] } {
  const { base } = flags;
  const notes = [...flags.notes];
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
    launcherArgv = withForwardedEnv(cmd.argv, base.env);
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

import type { CommandSpec } from "../spec.js";

export type CommandEntry = {
  name: string;
  summary: string;
  /** Loaded lazily so that `verify` never pays for the gRPC or Kubernetes clients. */
  load: () => Promise<{ command: CommandSpec }>;
};

/** Every command, in the order `kube-rdma --help` lists them. One line each. */
export const COMMANDS: readonly CommandEntry[] = [
  { name: "verify", summary: "Check an RDMA GPU node (host, pod or snapshot)", load: () => import("./verify.js") },
  { name: "gids", summary: "Print the GID table like show_gids, from sysfs", load: () => import("./gids.js") },
  { name: "collect", summary: "Write a snapshot of this host for --snapshot", load: () => import("./collect.js") },
  {
    name: "analyze",
    summary: "Recognise and diagnose pasted outputs (show_gids, nvidia-smi, …)",
    load: () => import("./analyze.js"),
  },
  { name: "nccl-env", summary: "Derive and explain NCCL variables", load: () => import("./nccl-env.js") },
  {
    name: "bench",
    summary: "nccl-tests command for N nodes; 2-node rounds and the slow node or link",
    load: () => import("./bench.js"),
  },
  {
    name: "device-plugin",
    summary: "Serve the kubelet RDMA device plugin (rdma/hca) with health, NUMA hints and NCCL variables",
    load: () => import("./device-plugin.js"),
  },
  { name: "cluster", summary: "Check the cluster's GPU+RDMA nodes and components", load: () => import("./cluster.js") },
  {
    name: "job",
    summary: "Generate RDMA PyTorchJob / MPIJob / Volcano Job / nccl-tests manifests",
    load: () => import("./job.js"),
  },
  { name: "lint", summary: "Lint job manifests for RDMA/NCCL failure patterns", load: () => import("./lint.js") },
  {
    name: "fleet",
    summary:
      "Verify every RDMA GPU node through the cluster (fleet verify); find slow nodes, rails, links (fleet bench)",
    load: () => import("./fleet.js"),
  },
  {
    name: "agent",
    summary: "Watch this node's RDMA health: Node condition RDMAReady, Events, a report, an optional taint",
    load: () => import("./agent.js"),
  },
  { name: "examples", summary: "List the embedded example hosts", load: () => import("./examples.js") },
  {
    name: "preflight",
    summary: "Compare a training job's pods with each other before NCCL starts",
    load: () => import("./preflight.js"),
  },
  { name: "version", summary: "Print the kube-rdma version", load: () => import("./version.js") },
];

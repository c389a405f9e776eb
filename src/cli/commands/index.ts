import type { CommandSpec } from "../spec.js";

export type CommandEntry = {
  name: string;
  summary: string;
  /** Loaded lazily so that `verify` never pays for the gRPC or Kubernetes clients. */
  load: () => Promise<{ command: CommandSpec }>;
};

/** Every command, in the order `kube-rdma --help` lists them. One line each. */
export const COMMANDS: readonly CommandEntry[] = [
  { name: "examples", summary: "List the embedded example hosts", load: () => import("./examples.js") },
  { name: "cluster", summary: "Check the cluster's GPU+RDMA nodes and components", load: () => import("./cluster.js") },
  {
    name: "job",
    summary: "Generate RDMA PyTorchJob / MPIJob / Volcano Job / nccl-tests manifests",
    load: () => import("./job.js"),
  },
  { name: "lint", summary: "Lint job manifests for RDMA/NCCL failure patterns", load: () => import("./lint.js") },
  {
    name: "fleet",
    summary: "Verify every RDMA GPU node through the cluster (fleet verify)",
    load: () => import("./fleet.js"),
  },
];

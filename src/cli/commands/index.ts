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
  { name: "gids", summary: "Print the GID table like show_gids, from sysfs", load: () => import("./gids.js") },
  { name: "collect", summary: "Write a snapshot of this host for --snapshot", load: () => import("./collect.js") },
];

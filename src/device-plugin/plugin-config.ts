import type { HostReader } from "../host/types.js";
import type { NodeInventory } from "../inventory/types.js";
import type { Selection } from "./config.js";
import type { Mode, SharedHealthPolicy } from "./devices.js";
import type { Logger } from "./log.js";
import type { DeriveEnv } from "./node-view.js";

/** How the device plugin runs (built from the command line by `device-plugin serve`). */
export type PluginConfig = {
  pluginDir: string;
  resource: string;
  mode: Mode;
  sharedUnits: number;
  sharedHealth: SharedHealthPolicy;
  selection: Selection;
  mad: boolean;
  /** Host root for sysfs and /dev reads (`/`, or `/host` in the DaemonSet), when no `host` reader is given. */
  root: string;
  /**
   * The host the node model is read from (an example or snapshot included): health, MAD devices and char devices
   * are read through it too, so they describe the same node. Default: the tree at `root`.
   */
  host?: HostReader;
  healthIntervalMs: number;
  /** Full node-model re-read even without a device change (GIDs and netdevs can change). 0 disables. */
  refreshIntervalMs: number;
  watchPollMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
  registerTimeoutMs: number;
  /** Reads the node model (H1's readInventory over the host reader). */
  loadInventory: () => Promise<NodeInventory>;
  /** null disables NCCL variable injection. */
  deriveEnv: DeriveEnv | null;
  log: Logger;
  metricsAddr?: { host: string; port: number };
  /** The node agent's quarantine file (an emptyDir shared in the pod), and how old it may be before it is ignored. */
  quarantine?: { path: string; maxAgeSeconds: number };
};

/** A plugin that could not start (missing plugin dir, socket in use): the CLI turns it into exit 2. */
export class PluginStartError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "PluginStartError";
  }
}

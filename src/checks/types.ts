import type { Finding } from "../core/finding.js";
import type { NodeInventory } from "../inventory/types.js";

/** What the caller expects of the node (CLI flags of `verify`, or a fleet policy). */
export type CheckOptions = {
  /** Run the checks that only make sense inside a pod: memlock, IPC_LOCK, /dev/shm. */
  pod?: boolean;
  expectGpus?: number;
  /** Case-insensitive text every GPU name must contain (`A100`, `H100 80GB`). */
  expectGpuModel?: string;
  /** Smallest acceptable /dev/shm in bytes (default 1 GiB). */
  shmMinBytes?: number;
  /** An earlier reading of the same node, `seconds` before this one (`verify --watch`): enables the flap check. */
  earlier?: { inventory: NodeInventory; seconds: number };
  /**
   * With `earlier`: judge error counters by how much they grew since it, not by their totals since boot (the node
   * agent: counters that grew before it started, or before the last run, are old news it already reported).
   */
  countersSinceEarlier?: boolean;
  /**
   * Whether this host passes PCI devices to virtual machines (`verify --vm-host yes|no`): no host shows that intent,
   * and it decides the ACS fix (VMs need ACS; enable ATS there instead). Undefined: not given.
   */
  vmHost?: boolean;
};

/** One small named rule: inventory in, findings out. Pure and fast: `fleet verify` runs it on many nodes. */
export type Check = {
  name: string;
  /** The codes this rule can emit (all of them are in the catalogue). */
  codes: readonly string[];
  run: (inv: NodeInventory, opts: CheckOptions) => Finding[];
};

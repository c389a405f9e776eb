/**
 * The plugin's view of the node, derived (purely) from the node model and the selection: which HCAs it serves,
 * their char devices, placement for preferred allocations, and the prepared Allocate plan. Rebuilt whenever the
 * node model changes; read by every RPC.
 */
import { naturalCompare } from "../core/natural.js";
import type { NodeInventory } from "../inventory/types.js";
import { deriveNcclEnv } from "../nccl/env.js";
import { DEFAULT_NETWORK_MODE, type NetworkMode } from "../nccl/network-mode.js";
import { DEFAULT_NCCL_ENV_PROFILE, type NcclEnvProfile } from "../nccl/profiles.js";
import { type AllocationPlan, buildAllocationPlan } from "./allocate.js";
import { type Selection, selectHcas } from "./config.js";
import { type Mode, sharedUnitIds, type UnitHca } from "./devices.js";
import type { PlacedHca } from "./preferred.js";

/** NCCL variables for this node restricted to some HCAs (the `nccl-env` logic). */
export type DeriveEnv = (inv: NodeInventory, hcas: readonly string[]) => Record<string, string>;

/**
 * The shipped DeriveEnv: `deriveNcclEnv` (what `kube-rdma nccl-env` prints) for exactly the HCAs handed out. The
 * network mode defaults to the pod network: Allocate does not see the pod spec, so it cannot know whether the pod
 * has hostNetwork, and a host interface name injected into a pod-network pod breaks NCCL's bootstrap.
 */
export function ncclEnvDeriver(
  ncclVersion?: string,
  network: NetworkMode = DEFAULT_NETWORK_MODE,
  profile: NcclEnvProfile = DEFAULT_NCCL_ENV_PROFILE,
): DeriveEnv {
  return (inv, hcas) =>
    deriveNcclEnv(inv, { hcas: [...hcas], network, profile, ...(ncclVersion !== undefined ? { ncclVersion } : {}) })
      .env;
}

export type NodeView = {
  inventory: NodeInventory;
  hcas: (UnitHca & PlacedHca)[];
  skipped: { hca: string; reason: string }[];
  plan: AllocationPlan;
  /** Ibdev names the view was built from (a change means the node model must be re-read). */
  ibdevs: string[];
};

export type NodeViewOptions = {
  mode: Mode;
  selection: Selection;
  sharedUnits: number;
  /** Include umadN/issmN (`--mad`). */
  mad: boolean;
  /** ibdev → MAD char devices, read from sysfs (only used with mad). */
  madDevices: ReadonlyMap<string, readonly string[]>;
  /** null: `--inject-nccl-env=false`. */
  deriveEnv: DeriveEnv | null;
};

export function buildNodeView(inv: NodeInventory, opts: NodeViewOptions): NodeView {
  const { selected, skipped } = selectHcas(inv, opts.selection);
  const ordered = [...selected].sort((a, b) => naturalCompare(a.name, b.name));
  const derive = opts.deriveEnv;
  const plan = buildAllocationPlan({
    mode: opts.mode,
    hcas: ordered.map((h) => ({
      name: h.name,
      charDevices: [...h.uverbs, ...(opts.mad ? (opts.madDevices.get(h.name) ?? []) : [])],
    })),
    sharedUnitIds: opts.mode === "shared" ? sharedUnitIds(opts.sharedUnits) : [],
    rdmaCm: true,
    deriveEnv: derive ? (hcas) => derive(inv, hcas) : null,
  });
  return {
    inventory: inv,
    hcas: ordered.map((h) => ({ name: h.name, numaNode: h.numaNode, pciPath: h.pciPath })),
    skipped,
    plan,
    ibdevs: inv.hcas.map((h) => h.name).sort(naturalCompare),
  };
}

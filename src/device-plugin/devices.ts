/**
 * What the plugin advertises to the kubelet (pure): shared units or one unit per HCA, with their health.
 *
 * Shared mode hands every selected data HCA to every unit, so a unit's health is a policy over the HCAs:
 * - `all` (default): a unit is Unhealthy only when every data HCA is down. NCCL skips ports that are not ACTIVE
 *   (its IB init only keeps active ports), so a job on a node with one rail down still runs on the others — slower,
 *   and `kube-rdma verify` names the PORT_DOWN. Good for clusters that prefer capacity over uniform speed.
 * - `any`: every unit goes Unhealthy as soon as one data HCA is down, so the scheduler stops placing RDMA pods on a
 *   node that would be the slowest rank of every ring. Good for fleets that gang-schedule large jobs.
 * Exclusive mode maps 1:1: a unit is its HCA.
 */

import { parsePhysState, parsePortState } from "../parse/sysfs.js";
import { type Device, HEALTHY, UNHEALTHY } from "./api.js";

export type Mode = "shared" | "exclusive";
export type SharedHealthPolicy = "any" | "all";

/** What the device list needs to know of a selected HCA. */
export type UnitHca = { name: string; numaNode: number | null };

/** Stable shared-unit IDs: the same N strings on every start, so kubelet checkpoints stay valid. */
export function sharedUnitIds(units: number): string[] {
  return Array.from({ length: units }, (_, i) => `rdma-shared-${i}`);
}

/** The health of shared units under a policy, from the health of each data HCA. No HCAs → Unhealthy. */
export function sharedUnitHealth(
  hcaHealthy: readonly boolean[],
  policy: SharedHealthPolicy,
): typeof HEALTHY | typeof UNHEALTHY {
  if (hcaHealthy.length === 0) return UNHEALTHY;
  const ok = policy === "all" ? hcaHealthy.some((h) => h) : hcaHealthy.every((h) => h);
  return ok ? HEALTHY : UNHEALTHY;
}

export type DeviceListInput = {
  mode: Mode;
  hcas: readonly UnitHca[];
  /** HCA name → healthy; an HCA missing from the map counts as unhealthy. */
  health: ReadonlyMap<string, boolean>;
  sharedUnits: number;
  sharedHealth: SharedHealthPolicy;
  /**
   * Shared mode: HCAs withdrawn from every unit (the node agent's quarantine). They are no longer handed out, so
   * the units' health is judged over the others; every HCA withdrawn leaves the units Unhealthy.
   */
  withdrawn?: ReadonlySet<string>;
};

/**
 * The ListAndWatch device list. Shared mode with no selected HCA advertises nothing (a node without RDMA must not
 * offer `rdma/hca`); exclusive mode carries each HCA's NUMA node as TopologyInfo so the topology manager can align it.
 */
export function deriveDeviceList(input: DeviceListInput): Device[] {
  const healthOf = (name: string) => input.health.get(name) === true;
  if (input.mode === "exclusive") {
    return input.hcas.map((h) => ({
      ID: h.name,
      health: healthOf(h.name) ? HEALTHY : UNHEALTHY,
      topology: h.numaNode !== null && h.numaNode >= 0 ? { nodes: [{ ID: h.numaNode }] } : null,
    }));
  }
  if (input.hcas.length === 0) return [];
  const served = input.hcas.filter((h) => !input.withdrawn?.has(h.name));
  const health = sharedUnitHealth(
    served.map((h) => healthOf(h.name)),
    input.sharedHealth,
  );
  return sharedUnitIds(input.sharedUnits).map((ID) => ({ ID, health, topology: null }));
}

/** Healthy/unhealthy counts of a device list (for metrics and logs). */
export function countHealth(devices: readonly Device[]): { healthy: number; unhealthy: number } {
  let healthy = 0;
  for (const d of devices) if (d.health === HEALTHY) healthy++;
  return { healthy, unhealthy: devices.length - healthy };
}

/** A port is healthy when `state` is `4: ACTIVE` and `phys_state` is `5: LinkUp` (tech-spec §1.2). */
export function isPortHealthy(state: string | null, physState: string | null): boolean {
  if (state === null || physState === null) return false;
  const s = parsePortState(state);
  const p = parsePhysState(physState);
  return s.ok && s.value.state === "ACTIVE" && p.ok && p.value.state === "LinkUp";
}

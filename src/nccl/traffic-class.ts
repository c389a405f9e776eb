/**
 * NCCL_IB_TC from the node's own QoS settings, when they say it: the data HCAs' global traffic class
 * (MLNX_OFED `tc/1/traffic_class`, which every RoCE QP uses anyway), else the DSCP that lands in the one lossless
 * priority `mlnx_qos` shows (DSCP trust, PFC on one priority). Pure.
 */
import type { NodeInventory, RoceQos } from "../inventory/types.js";
import type { DataPort } from "./data-ports.js";
import type { EnvEntry } from "./gid-select.js";

/** RoCE v2's customary DSCP (AF31): preferred when it maps to the lossless priority. */
const ROCE_DSCP = 26;

function same<T>(values: readonly T[]): T | undefined {
  return values.length > 0 && values.every((v) => v === values[0]) ? values[0] : undefined;
}

function dscpFor(q: RoceQos, priority: number): number | null {
  const map = q.dscpToPriority;
  if (!map) return priority === ROCE_DSCP >> 3 ? ROCE_DSCP : priority * 8;
  if (map[ROCE_DSCP] === priority) return ROCE_DSCP;
  const dscps = Object.entries(map)
    .filter(([, p]) => p === priority)
    .map(([d]) => Number(d))
    .sort((a, b) => a - b);
  return dscps[0] ?? null;
}

/** The NCCL_IB_TC entry the selected data ports' QoS settings imply, or null when they do not say (or disagree). */
export function derivedTrafficClass(inv: NodeInventory, ports: readonly DataPort[]): EnvEntry | null {
  const byNetdev = new Map((inv.roceQos ?? []).map((q) => [q.netdev, q]));
  const qos = ports.flatMap((dp) => {
    const q = dp.port.netdevs.map((n) => byNetdev.get(n)).find((x) => x !== undefined);
    return q ? [q] : [];
  });
  if (qos.length === 0 || qos.length !== ports.length) return null;
  const tclass = same(qos.map((q) => q.trafficClass));
  if (tclass !== undefined && tclass !== null) {
    return {
      name: "NCCL_IB_TC",
      value: String(tclass),
      reason:
        `every data HCA has the global traffic class ${tclass} (tc/1/traffic_class, DSCP ${tclass >> 2}); the ` +
        "driver applies it to every RoCE QP, and the variable says so in the job's environment",
    };
  }
  if (qos.some((q) => q.trafficClass !== null)) return null;
  const trust = same(qos.map((q) => q.trust));
  const pfc = same(qos.map((q) => (q.pfcEnabled?.length === 1 ? q.pfcEnabled[0]! : -1)));
  if (trust !== "dscp" || pfc === undefined || pfc < 0) return null;
  const dscp = same(qos.map((q) => dscpFor(q, pfc)));
  if (dscp === undefined || dscp === null) return null;
  return {
    name: "NCCL_IB_TC",
    value: String(dscp << 2),
    reason:
      `the data NICs trust DSCP and have PFC on priority ${pfc} only (mlnx_qos); DSCP ${dscp} lands there, and ` +
      `NCCL_IB_TC is the ToS byte (DSCP × 4): ${dscp << 2}. Without it NCCL's traffic uses DSCP 0, a lossy queue`,
  };
}

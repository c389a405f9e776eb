/**
 * RoCE data ports below a 4096 active MTU, judged absolutely: a node whose rails all run 1024 is uniform (no
 * MTU_MISMATCH) and still slow. Only when even the largest is below 4096: a single low port among 4096 ones is
 * MTU_MISMATCH's.
 */
import { finding } from "./catalogue.js";
import { roceDataPortMtus } from "./ports.js";
import { compactNames } from "./select.js";
import type { Check } from "./types.js";

export const roceMtuCheck: Check = {
  name: "roce-mtu",
  codes: ["ROCE_MTU_LOW"],
  run(inv) {
    const rated = roceDataPortMtus(inv).filter((r) => r.activeMtu !== null);
    if (rated.length === 0) return [];
    const largest = Math.max(...rated.map((r) => r.activeMtu!));
    if (largest >= 4096) return [];
    const names = compactNames(rated.map((r) => r.dp.hca.name));
    const netdevMtus = [...new Set(rated.map((r) => r.netdevMtu))].sort((a, b) => (a ?? 0) - (b ?? 0)).join(", ");
    return [finding("ROCE_MTU_LOW", names, { ports: names, activeMtu: largest, netdevMtus })];
  },
};

/** InfiniBand data ports under more than one subnet manager: separate subnets, reachable only rail to rail. */
import { finding } from "./catalogue.js";
import { dataPorts, isUp, portSubject } from "./select.js";
import type { Check } from "./types.js";

export const ibSubnetCheck: Check = {
  name: "ib-subnet",
  codes: ["IB_SUBNETS_DIFFER"],
  run(inv) {
    const bySm = new Map<string, string[]>();
    for (const { hca, port } of dataPorts(inv)) {
      if (port.linkLayer !== "InfiniBand" || !isUp(port) || !port.smLid || /^0x0+$/.test(port.smLid)) continue;
      bySm.set(port.smLid, [...(bySm.get(port.smLid) ?? []), portSubject(hca, port)]);
    }
    if (bySm.size < 2) return [];
    const groups = [...bySm]
      .sort(([a], [b]) => Number.parseInt(a, 16) - Number.parseInt(b, 16))
      .map(([sm, ports]) => `${sm} for ${ports.join(", ")}`)
      .join("; ");
    return [finding("IB_SUBNETS_DIFFER", "subnet-manager", { groups, count: bySm.size })];
  },
};

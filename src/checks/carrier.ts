/**
 * Carrier changes of the RoCE data netdevs between two readings (`verify --watch`, the node agent): a link that went
 * down and up. The total since boot is not judged: bringing an interface up counts too.
 */
import { finding } from "./catalogue.js";
import { dataPorts, isRoce } from "./select.js";
import type { Check } from "./types.js";

export const carrierCheck: Check = {
  name: "carrier-changes",
  codes: ["CARRIER_FLAPPING"],
  run(inv, opts) {
    if (!opts.earlier) return [];
    const before = new Map(opts.earlier.inventory.netdevs.map((n) => [n.name, n.carrierChanges]));
    const now = new Map(inv.netdevs.map((n) => [n.name, n.carrierChanges]));
    const seen = new Set<string>();
    return dataPorts(inv).flatMap(({ hca, port }) => {
      if (!isRoce(port)) return [];
      return port.netdevs.flatMap((netdev) => {
        if (seen.has(netdev)) return [];
        seen.add(netdev);
        const a = before.get(netdev);
        const b = now.get(netdev);
        if (a == null || b == null) return [];
        // A counter that went back belongs to a netdev created again (driver reload): count from zero.
        const changes = b >= a ? b - a : b;
        if (changes === 0) return [];
        return [
          finding("CARRIER_FLAPPING", netdev, { netdev, hca: hca.name, changes, seconds: opts.earlier!.seconds }),
        ];
      });
    });
  },
};

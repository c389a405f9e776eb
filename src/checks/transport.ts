/** The RDMA transport of each HCA NCCL may pick: iWARP (node_type RNIC) cannot carry NCCL's IB transport. */
import { finding } from "./catalogue.js";
import type { Check } from "./types.js";

export const transportCheck: Check = {
  name: "rdma-transport",
  codes: ["IWARP_DEVICE"],
  run(inv) {
    return inv.hcas
      .filter((h) => h.role !== "management" && h.nodeType === "RNIC")
      .map((h) =>
        finding("IWARP_DEVICE", h.name, {
          nodeType: "4: RNIC",
          driver: /^irdma/.test(h.name) ? "irdma" : /^(cxgb4|iwp)/.test(h.name) ? "cxgb4" : null,
        }),
      );
  },
};

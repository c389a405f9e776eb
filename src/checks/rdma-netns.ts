/** The kernel's RDMA network-namespace mode: exclusive hides the HCAs from pods that did not get them moved in. */
import { finding } from "./catalogue.js";
import type { Check } from "./types.js";

export const rdmaNetnsCheck: Check = {
  name: "rdma-netns",
  codes: ["RDMA_NETNS_EXCLUSIVE"],
  run(inv) {
    if (inv.rdmaNetns !== "exclusive" || inv.hcas.length === 0) return [];
    return [finding("RDMA_NETNS_EXCLUSIVE", "node", { hcas: inv.hcas.length })];
  },
};

/**
 * rdma_cm's default RoCE ToS on a data HCA with no global traffic class: it reads like the RoCE class is set, but
 * NCCL's own connections never go through rdma_cm, so its traffic stays at NCCL_IB_TC's default.
 */
import { finding } from "./catalogue.js";
import { rocePriority } from "./lossless.js";
import { dataHcas } from "./select.js";
import type { Check } from "./types.js";

export const cmaTosCheck: Check = {
  name: "cma-roce-tos",
  codes: ["CMA_TOS_NOT_NCCL"],
  run(inv) {
    const data = new Set(dataHcas(inv).map((h) => h.name));
    const seen = new Set<string>();
    return (inv.roceQos ?? []).flatMap((q) => {
      if (!data.has(q.hca) || seen.has(q.hca)) return [];
      seen.add(q.hca);
      const tos = q.cmaRoceTos ?? 0;
      if (tos === 0 || q.trafficClass !== null) return [];
      return [finding("CMA_TOS_NOT_NCCL", q.hca, { hca: q.hca, tos, priority: rocePriority(q).priority })];
    });
  },
};

/** GPUDirect RDMA: a mechanism (peermem or DMA-BUF), and a data NIC close enough to each GPU for NCCL to use it. */
import type { Finding } from "../core/finding.js";
import type { NcclDistance } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import { gpuSubject } from "./gpus.js";
import { dataHcas } from "./select.js";
import type { Check } from "./types.js";

export const gpuDirectCheck: Check = {
  name: "gpudirect",
  codes: ["NO_GPUDIRECT"],
  run(inv) {
    if (inv.gpuDirect.mechanism !== null || inv.gpus.length === 0 || dataHcas(inv).length === 0) return [];
    return [
      finding("NO_GPUDIRECT", "node", { driverVersion: inv.driver.driverVersion, reasons: inv.gpuDirect.reasons }),
    ];
  },
};

const RANK: Record<NcclDistance, number> = { PIX: 0, PXB: 1, PHB: 2, SYS: 3 };
/** NCCL's default NCCL_NET_GDR_LEVEL. */
const GDR_DEFAULT_LEVEL = RANK.PXB;

export const nearNicCheck: Check = {
  name: "gpu-near-nic",
  codes: ["GPU_NO_NEAR_NIC"],
  run(inv) {
    const data = new Set(dataHcas(inv).map((h) => h.name));
    const out: Finding[] = [];
    for (const gpu of inv.gpus) {
      const paths = inv.paths.filter((p) => p.gpu === gpu.index && data.has(p.hca));
      if (paths.length === 0) continue; // no resolvable PCIe path: nothing to judge
      const nearest = paths.reduce((a, b) => (RANK[b.distance] < RANK[a.distance] ? b : a));
      if (RANK[nearest.distance] <= GDR_DEFAULT_LEVEL) continue;
      out.push(
        finding("GPU_NO_NEAR_NIC", gpuSubject(gpu), {
          busId: gpu.pciAddress,
          nearestHca: nearest.hca,
          distance: nearest.distance,
          nvsmi: nearest.nvsmi,
          gpuNuma: gpu.numaNode,
        }),
      );
    }
    return out;
  },
};

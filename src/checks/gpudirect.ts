/** GPUDirect RDMA: a mechanism (peermem or DMA-BUF), and a data NIC close enough to each GPU for NCCL to use it. */
import type { Finding } from "../core/finding.js";
import type { GpuNicPath, NcclDistance } from "../inventory/types.js";
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
      finding("NO_GPUDIRECT", "node", {
        driverVersion: inv.driver.driverVersion,
        reasons: inv.gpuDirect.reasons,
        inboxMlx5: inv.ofed.loadedDriver?.from === "inbox",
      }),
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
    const nearestByGpu = new Map<number, GpuNicPath>();
    for (const p of inv.paths) {
      if (!data.has(p.hca)) continue;
      const best = nearestByGpu.get(p.gpu);
      if (!best || RANK[p.distance] < RANK[best.distance]) nearestByGpu.set(p.gpu, p);
    }
    const out: Finding[] = [];
    for (const gpu of inv.gpus) {
      const nearest = nearestByGpu.get(gpu.index);
      // No resolvable PCIe path: nothing to judge.
      if (!nearest || RANK[nearest.distance] <= GDR_DEFAULT_LEVEL) continue;
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

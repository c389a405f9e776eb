import { describe, expect, test } from "vitest";
import { dataHcasByGpuLocality } from "./roles.js";
import type { GpuNicPath, Hca, NcclDistance } from "./types.js";

const hca = (name: string): Hca => ({ name, role: "data", roleReason: "RoCE port 1" }) as unknown as Hca;

/**
 * DGX H100: the eight ConnectX-7 compute ports (mlx5_0, 3, 4, 5, 6, 9, 10, 11) each sit under a GPU's PCIe switch
 * (nvidia-smi topo -m: PIX), the BlueField-3 storage/in-band ports (mlx5_1, 2, 7, 8) hang off the CPUs (NODE/SYS)
 * (NVIDIA DGX H100 User Guide, "Network Ports"; this project's node model src/fabric/rail-nics.ts). NCCL gives each
 * GPU its nearest NIC (src/graph/search.cc ncclTopoGetLocalNet), and GPUDirect reaches only PIX/PXB by default
 * (NCCL_NET_GDR_LEVEL, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-net-gdr-level).
 */
const COMPUTE = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"];
const STORAGE = ["mlx5_1", "mlx5_2", "mlx5_7", "mlx5_8"];

function dgxPaths(): GpuNicPath[] {
  const out: GpuNicPath[] = [];
  for (let gpu = 0; gpu < 8; gpu++) {
    for (const [i, nic] of COMPUTE.entries()) {
      const d: NcclDistance = i === gpu ? "PIX" : i < 4 === gpu < 4 ? "PHB" : "SYS";
      out.push({ gpu, hca: nic, distance: d, nvsmi: d === "PHB" ? "NODE" : d });
    }
    for (const [i, nic] of STORAGE.entries()) {
      const d: NcclDistance = i < 2 === gpu < 4 ? "PHB" : "SYS";
      out.push({ gpu, hca: nic, distance: d, nvsmi: d === "PHB" ? "NODE" : d });
    }
  }
  return out;
}

describe("data NICs are the RDMA ports nearest a GPU", () => {
  test("DGX H100 with 12 RDMA ports: the 8 compute rails stay, the 4 storage NICs leave with the reason", () => {
    const hcas = [...COMPUTE, ...STORAGE].map(hca);
    const kept = dataHcasByGpuLocality(hcas, dgxPaths(), [...COMPUTE, ...STORAGE]);
    expect(kept.sort()).toEqual([...COMPUTE].sort());
    for (const s of STORAGE) {
      const h = hcas.find((x) => x.name === s)!;
      expect(h.role).toBe("excluded");
      expect(h.roleReason).toMatch(/nearest GPU at PHB.*storage or front-end NIC/);
    }
  });

  test("no GPU↔NIC paths (no GPUs, or PCI paths unreadable): nothing is proven, every RDMA NIC stays data", () => {
    const hcas = COMPUTE.map(hca);
    expect(dataHcasByGpuLocality(hcas, [], COMPUTE)).toEqual(COMPUTE);
  });

  test("no NIC near any GPU (GPUs and NICs on separate root ports): locality says nothing, all stay", () => {
    const paths = dgxPaths().map((p) => ({ ...p, distance: p.distance === "PIX" ? ("PHB" as const) : p.distance }));
    const all = [...COMPUTE, ...STORAGE];
    expect(dataHcasByGpuLocality(all.map(hca), paths, all)).toEqual(all);
  });
});

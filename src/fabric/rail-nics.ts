/**
 * Which NIC each GPU uses for its rail: the one nearest it on PCIe, not the i-th name of a list. A rail test puts
 * rank i on GPU i with NCCL_IB_HCA==<that NIC>, so a wrong NIC crosses the CPU interconnect and measures the wrong
 * rail. Pure.
 */
import type { GpuNicPath, NcclDistance } from "../inventory/types.js";

/**
 * Known node models, GPU index → compute NIC. DGX H100: the eight ConnectX-7 compute ports are mlx5_0, 3, 4, 5, 6,
 * 9, 10, 11 (the others are the BlueField-3 storage/in-band ports); NVIDIA DGX H100 User Guide, "Network Ports",
 * and `nvidia-smi topo -m` on the system (each GPU PIX to its own NIC through the same PCIe switch).
 */
export const NODE_MODELS: Readonly<Record<string, readonly string[]>> = {
  "dgx-h100": ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"],
};

export type NodeModel = keyof typeof NODE_MODELS;

/** NCCL's own order of preference (a shared PCIe switch first, the CPU interconnect last): NCCL topology search. */
const RANK: Record<NcclDistance, number> = { PIX: 0, PXB: 1, PHB: 2, SYS: 3 };

/**
 * From a node model read off a host (`verify`'s GPU × NIC paths): for each GPU in index order, the nearest data NIC
 * not already taken by a lower GPU (ties by name). Null when some GPU has no path to a free data NIC.
 */
export function railNicsFromPaths(
  paths: readonly GpuNicPath[],
  gpus: readonly number[],
  dataNics: readonly string[],
): string[] | null {
  const data = new Set(dataNics);
  const taken = new Set<string>();
  const out: string[] = [];
  for (const gpu of [...gpus].sort((x, y) => x - y)) {
    const best = paths
      .filter((p) => p.gpu === gpu && data.has(p.hca) && !taken.has(p.hca))
      .sort((x, y) => RANK[x.distance] - RANK[y.distance] || (x.hca < y.hca ? -1 : x.hca > y.hca ? 1 : 0))[0];
    if (!best) return null;
    taken.add(best.hca);
    out.push(best.hca);
  }
  return out;
}

/** The NICs of `rails` rails: a known node model's (when it has that many GPUs), else `mlx5_0 …` in order. */
export function railNics(rails: number, model?: string): string[] {
  const known = model ? NODE_MODELS[model] : undefined;
  if (known && known.length === rails) return [...known];
  return Array.from({ length: rails }, (_, i) => `mlx5_${i}`);
}

/**
 * What NCCL actually achieves, with provenance (tech-spec §7.2; sources listed in its §9). Bandwidths are nccl-tests
 * busbw in GB/s (10^9 B/s). Entries marked `derived` are our arithmetic from maintainer figures, not published.
 */

export type PerNicCeiling = { rateGbps: number; GBps: number; source: string };

/** Per-NIC NCCL ceilings by port rate. */
export const PER_NIC_CEILINGS: readonly PerNicCeiling[] = [
  {
    rateGbps: 100,
    GBps: 12.2,
    source: 'NVIDIA maintainers: 100 Gb/s ≈ 12.2 GB/s "as good as you can get"', // sources: https://github.com/NVIDIA/nccl-tests/issues/29
  },
  {
    rateGbps: 200,
    GBps: 24,
    source: "NVIDIA maintainers: HDR 200 Gb/s ≈ 24 GB/s per NIC", // sources: https://github.com/NVIDIA/nccl-tests/issues/252, https://github.com/NVIDIA/nccl/issues/412
  },
  {
    rateGbps: 400,
    GBps: 47,
    source: "NVIDIA maintainers: NDR 400 Gb/s ≈ 46–49 GB/s per NIC", // sources: https://github.com/NVIDIA/nccl-tests/issues/290, https://github.com/NVIDIA/nccl-tests/issues/267
  },
];

/** Line rate × this when no maintainer figure exists (the 200G ratio 24/25). */
export const GENERIC_EFFICIENCY = 0.96;

/** Fraction of the expectation below which bandwidth is a problem: 180/192 from the 8×A100+8×HDR baseline. */
export const PROBLEM_FRACTION = 180 / 192;

/** The NCCL ceiling of one NIC at `rateGbps`, with its source and the efficiency it implies. */
export function perNicCeiling(rateGbps: number): { GBps: number; efficiency: number; source: string } {
  const known = PER_NIC_CEILINGS.find((c) => c.rateGbps === rateGbps);
  if (known) return { GBps: known.GBps, efficiency: known.GBps / (rateGbps / 8), source: known.source };
  return {
    GBps: (rateGbps / 8) * GENERIC_EFFICIENCY,
    efficiency: GENERIC_EFFICIENCY,
    source: `line rate ${rateGbps} Gb/s ÷ 8 × ${GENERIC_EFFICIENCY} (our estimate: the HDR efficiency 24/25; no maintainer figure for this rate)`,
  };
}

export type Baseline = {
  id: string;
  description: string;
  gpuModel: RegExp;
  gpusPerNode: number;
  /** Data NICs per node and their rate; null for single-node (NVLink) figures. */
  nics: { count: number; rateGbps: number } | null;
  collective: string;
  typicalGBps: readonly [number, number];
  problemBelowGBps: number;
  source: string;
  derived: boolean;
};

export const BASELINES: readonly Baseline[] = [
  {
    id: "a100x8-hdrx8",
    description: "8×A100 + 8×HDR 200G per node (DGX A100), multi-node AllReduce",
    gpuModel: /A100|A800/,
    gpusPerNode: 8,
    nics: { count: 8, rateGbps: 200 },
    collective: "all_reduce",
    typicalGBps: [187, 192],
    problemBelowGBps: 180,
    source: 'NVIDIA: "we measure 192 GB/s AllReduce BusBW" on DGX A100 multi-node', // sources: https://github.com/NVIDIA/nccl/issues/812
    derived: false,
  },
  {
    id: "a100x8-hdrx4",
    description: "8×A100 + 4×HDR 200G per node, multi-node AllReduce",
    gpuModel: /A100|A800/,
    gpusPerNode: 8,
    nics: { count: 4, rateGbps: 200 },
    collective: "all_reduce",
    typicalGBps: [86, 91],
    problemBelowGBps: 80,
    source: "user reports of 86–91 GB/s against 100 GB/s theoretical", // sources: https://github.com/NVIDIA/nccl-tests/issues/100, https://github.com/NVIDIA/nccl-tests/issues/175
    derived: false,
  },
  {
    id: "h100x8-ndrx8",
    description: "8×H100/H200 + 8×NDR 400G per node, multi-node AllReduce (ring)",
    gpuModel: /H100|H200|H800/,
    gpusPerNode: 8,
    nics: { count: 8, rateGbps: 400 },
    collective: "all_reduce",
    typicalGBps: [370, 390],
    problemBelowGBps: 350,
    source:
      // sources: https://github.com/NVIDIA/nccl-tests/issues/290, https://github.com/NVIDIA/nccl-tests/issues/267, https://github.com/NVIDIA/nccl-tests/issues/283
      "derived: 8 × 46–49 GB/s per NIC; a 248-node 8×H200 cluster reports ~350 GB/s typical",
    derived: true,
  },
  {
    id: "a100x8-single",
    description: "8×A100 SXM, single node (NVLink), AllReduce",
    gpuModel: /A100|A800/,
    gpusPerNode: 8,
    nics: null,
    collective: "all_reduce",
    typicalGBps: [225, 235],
    problemBelowGBps: 210,
    // sources: Azure ND A100 v4 NCCL benchmark (learn.microsoft.com, ND A100 v4 series)
    source: "single-node 8×A100 ≈ 232 GB/s; Azure ND A100 v4 231.6 GB/s", // sources: https://github.com/NVIDIA/nccl-tests/issues/175
    derived: false,
  },
  {
    id: "h100x8-single",
    description: "8×H100 SXM, single node (NVLS), AllReduce",
    gpuModel: /H100/,
    gpusPerNode: 8,
    nics: null,
    collective: "all_reduce",
    typicalGBps: [470, 480],
    problemBelowGBps: 440,
    // sources: Azure ND H100 v5 NCCL benchmark (learn.microsoft.com, ND H100 v5 series)
    source: "8×H100 NVLS allreduce ≈ 480 GB/s; Azure ND H100 v5 478.9 GB/s", // sources: https://github.com/NVIDIA/nccl-tests/issues/212
    derived: false,
  },
];

/** The baseline for a run: GPU model, GPUs per node, NICs (null = single node) and collective. */
export function findBaseline(q: {
  gpu: string;
  gpusPerNode: number;
  nics: { count: number; rateGbps: number } | null;
  collective: string | null;
}): Baseline | null {
  return (
    BASELINES.find(
      (b) =>
        b.gpuModel.test(q.gpu) &&
        b.gpusPerNode === q.gpusPerNode &&
        b.collective === q.collective &&
        (b.nics === null
          ? q.nics === null
          : q.nics !== null && b.nics.count === q.nics.count && b.nics.rateGbps === q.nics.rateGbps),
    ) ?? null
  );
}

/**
 * What each collective's busbw should reach on N nodes, derived from its traffic pattern: which share of each rank's
 * bytes leaves the node, over how many NICs, and the factor nccl-tests turns algbw into busbw with. Pure, one row per
 * collective (the expectation is table-driven, not a special case per collective).
 *
 * busbw factors (nccl-tests doc/PERFORMANCE.md, https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md):
 * all_reduce 2(n−1)/n; all_gather, reduce_scatter and alltoall (n−1)/n; broadcast, reduce and sendrecv 1.
 * - Ring/tree collectives (all_reduce, all_gather, reduce_scatter, broadcast, reduce): the busbw is defined so that
 *   it is comparable to the per-rank link speed; across nodes every GPU's ring or tree channel crosses the fabric on
 *   its own NIC, so busbw ≈ NICs used × per-NIC bandwidth (min(NICs, GPUs per node)): 8 × HDR ≈ 8 × 24 = 192 GB/s,
 *   NVIDIA's DGX A100 figure (https://github.com/NVIDIA/nccl/issues/812).
 * - alltoall: each rank sends (N−1)/N of its bytes to other nodes (nccl-tests issue #130,
 *   https://github.com/NVIDIA/nccl-tests/issues/130); a node's g ranks push g·(N−1)/N·S through k NICs of B each:
 *   algbw = N·k·B / (g·(N−1)), busbw = algbw·(n−1)/n. 2 nodes × 8 GPUs × 8 HDR: ≈ 45 GB/s; 16 nodes: ≈ 25 GB/s.
 * - sendrecv: rank i sends to i+1; across N nodes only one rank per node sends across the fabric, on one NIC, and the
 *   run waits for it: busbw ≈ 1 NIC (≈ 24 GB/s on HDR), whatever the node count.
 * On one node nothing crosses the fabric: there is no network expectation (NVLink/PCIe are judged by baselines).
 */
export type TrafficInput = { nodes: number; gpusPerNode: number; nics: number; nicGBps: number };

export type CollectiveTraffic = {
  /** nccl-tests' busbw = algbw × busFactor(ranks). */
  busFactor: (ranks: number) => number;
  /** The busbw the fabric allows on ≥ 2 nodes, and the words that explain it. */
  fabricBusBw: (t: TrafficInput) => { GBps: number; why: string };
};

const ringNics = (t: TrafficInput) => Math.min(t.nics, Math.max(t.gpusPerNode, 1));
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;

const RING: CollectiveTraffic["fabricBusBw"] = (t) => ({
  GBps: ringNics(t) * t.nicGBps,
  why: `every GPU's channel crosses the fabric on its own NIC: ${plural(ringNics(t), "data NIC")}`,
});

export const COLLECTIVE_TRAFFIC: Readonly<Record<string, CollectiveTraffic>> = {
  all_reduce: { busFactor: (n) => (2 * (n - 1)) / n, fabricBusBw: RING },
  all_gather: { busFactor: (n) => (n - 1) / n, fabricBusBw: RING },
  reduce_scatter: { busFactor: (n) => (n - 1) / n, fabricBusBw: RING },
  broadcast: { busFactor: () => 1, fabricBusBw: RING },
  reduce: { busFactor: () => 1, fabricBusBw: RING },
  alltoall: {
    busFactor: (n) => (n - 1) / n,
    fabricBusBw: (t) => {
      const n = t.nodes * t.gpusPerNode;
      const k = Math.min(t.nics, Math.max(t.gpusPerNode, 1));
      const algbw = (t.nodes * k * t.nicGBps) / (Math.max(t.gpusPerNode, 1) * (t.nodes - 1));
      return {
        GBps: (algbw * (n - 1)) / n,
        why: `each rank sends ${t.nodes - 1}/${t.nodes} of its bytes to other nodes, ${t.gpusPerNode} ranks per node over ${plural(k, "NIC")}`,
      };
    },
  },
  sendrecv: {
    busFactor: () => 1,
    fabricBusBw: (t) => ({ GBps: t.nicGBps, why: "one rank per node sends across the fabric, on one NIC" }),
  },
};

/**
 * Whether the table has a traffic model for the collective. gather, scatter and hypercube have none: how much of their
 * bytes crosses the fabric, and over how many NICs, depends on the root's or the partner's placement, so no figure is
 * given for them rather than a wrong one.
 */
export function hasTrafficModel(collective: string): boolean {
  return Object.hasOwn(COLLECTIVE_TRAFFIC, collective);
}

/** The collective's expected busbw on the fabric, or null on one node or for a collective not in the table. */
export function expectedFabricBusBw(collective: string | null, t: TrafficInput): { GBps: number; why: string } | null {
  if (t.nodes < 2) return null;
  const c = collective ? COLLECTIVE_TRAFFIC[collective] : undefined;
  return c ? c.fabricBusBw(t) : null;
}

/**
 * The words `fleet bench` shares between its planner, its diagnosis, the simulator and the Kubernetes runner.
 * The planner and the diagnosis see only a `FabricView` (names, leaves, HCAs, line rate) and `JobResult`s: what a
 * real cluster would tell them. Faults live only inside the simulator (or the hardware).
 */

/** What is known about the fleet before anything runs. */
export type FabricView = {
  /** Node names, in a stable order. */
  nodes: readonly string[];
  /** Leaf switch (or lowest network tier) of each node; one shared leaf when the topology is unknown. */
  leafOf: ReadonlyMap<string, string>;
  /** The data HCAs every node has, one per rail (`mlx5_1` … `mlx5_8`). */
  hcas: readonly string[];
  /** Line rate of one HCA in GB/s (200 Gb/s HDR = 25 GB/s). */
  lineRateGBps: number;
};

/** A 2-node job. `pair`: one rank per GPU, all HCAs (the usual 2-node all_reduce). `rails`: one 2-rank test per
 * HCA side by side, rank i on GPU i with `NCCL_IB_HCA==<hca i>`, so each rail is measured on its own. */
export type BenchJob = {
  id: string;
  round: number;
  kind: "pair" | "rails";
  nodes: readonly [string, string];
  /** Why the planner asked for it (`round 1: everyone`, `re-test node-7 with a known-good partner`). */
  why: string;
  /** Jobs of one wave run at the same time, waves one after another; without it the whole round runs at once. */
  wave?: number;
  /**
   * Rail tests across the spine: the rails that run (the others stay idle) and, per rail, the UDP source port of
   * each direction (a→b, b→a), chosen so that each flow hashes onto a known leaf uplink and spine port; `paths` are
   * those hops as traced before the job ran.
   */
  routes?: readonly RailRoute[];
};

export type RailRoute = {
  rail: number;
  sports: readonly [number, number];
  paths: readonly [FlowHops, FlowHops];
};

/** A flow's leaf uplink and spine port (null inside one unit). */
export type FlowHops = { uplink: string | null; spinePort: string | null };

export type SizeResult = { bytes: number; busbw: number };

/** One nccl-tests table: the whole pair (`hca: null`) or one rail; `failed` (no rows) when that test died. */
export type TestResult = { hca: string | null; rows: readonly SizeResult[]; failed?: string };

/**
 * The RoCE v2 UDP source ports a rail's QPs used, per direction (a→b, b→a), one per QP. A RoCE NIC derives each
 * RC QP's port from the flow label of its QP numbers (Linux `rdma_get_udp_sport` in include/rdma/ib_verbs.h), so a
 * collector that reads the QPs (`rdma resource show qp`) knows them after the job; nothing lets a test choose them.
 */
export type ObservedRail = { rail: number; sports: readonly [readonly number[], readonly number[]] };

export type JobResult =
  | {
      job: BenchJob;
      ok: true;
      seconds: number;
      tests: readonly TestResult[];
      raw?: string;
      /** Seconds from the round's start to this job's start, where the runner saw it (overlap = shared links). */
      startedAt?: number;
      /** The source ports the job's QPs used, where a collector read them. */
      flows?: readonly ObservedRail[];
    }
  | { job: BenchJob; ok: false; seconds: number; reason: string; raw?: string; corrupt?: true };

/** Runs one round's jobs (side by side) and returns their results, in any order. */
export type Measure = (jobs: readonly BenchJob[]) => Promise<JobResult[]>;

/** Message sizes and iterations of every test (nccl-tests -b/-e/-f 2/-n/-w). */
export type SweepSpec = { minBytes: number; maxBytes: number; iters: number; warmupIters: number };

export const DEFAULT_PAIR_SWEEP: SweepSpec = { minBytes: 2 ** 26, maxBytes: 2 ** 32, iters: 20, warmupIters: 5 };
/** Rail tests move 1/8 of the data per link at 1/8 of the bandwidth: a smaller top size keeps them as short. */
export const DEFAULT_RAIL_SWEEP: SweepSpec = { minBytes: 2 ** 26, maxBytes: 2 ** 30, iters: 20, warmupIters: 5 };

export function sweepSizes(s: SweepSpec): number[] {
  const out: number[] = [];
  for (let b = s.minBytes; b <= s.maxBytes; b *= 2) out.push(b);
  return out;
}

/** NCCL's ring efficiency on a healthy 2-node link: busbw ≈ 95 % of the HCAs' line rate. */
export const RING_EFFICIENCY = 0.95;

/** Bus bandwidth a healthy test should reach: all HCAs for a pair, one for a rail test. */
export function expectedBusBw(view: Pick<FabricView, "hcas" | "lineRateGBps">, kind: "pair" | "rail"): number {
  return (kind === "pair" ? view.hcas.length : 1) * view.lineRateGBps * RING_EFFICIENCY;
}

/** Subjects of findings: a node is its name; these name a rail, a leaf's uplink and a node-to-node path. */
export const railSubject = (node: string, hca: string) => `${node}/${hca}`;
export const uplinkSubject = (leaf: string) => `${leaf} uplink`;
export const linkSubject = (a: string, b: string) => (a < b ? `${a}↔${b}` : `${b}↔${a}`);

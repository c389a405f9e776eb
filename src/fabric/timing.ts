/**
 * How long an nccl-tests sweep takes: per size, (warm-up + timed iterations) × (latency + bytes / algbw), where
 * algbw = busbw / (2(n−1)/n) for all_reduce over n ranks. The budget uses it with the expected bandwidth, the
 * simulator with the bandwidth it draws. Pure.
 */
import { type SweepSpec, sweepSizes } from "./types.js";

/** all_reduce's bus factor 2(n−1)/n: 16 ranks (2 nodes × 8 GPUs) → 1.875; 2 ranks (a rail test) → 1. */
export const busFactor = (ranks: number) => (2 * (ranks - 1)) / ranks;

/** Per-operation latency of a 2-node all_reduce in µs (a ring step over the network). */
export const LATENCY_US = 30;

/** Bus bandwidth at `bytes` of a link whose large-message busbw is `peakBusBw` GB/s. */
export function busBwAt(bytes: number, peakBusBw: number, ranks: number): number {
  const f = busFactor(ranks);
  const seconds = LATENCY_US * 1e-6 + bytes / ((peakBusBw / f) * 1e9);
  return (bytes / seconds / 1e9) * f;
}

/** Seconds one sweep takes at `peakBusBw` (not counting start-up). */
export function sweepSeconds(sweep: SweepSpec, peakBusBw: number, ranks: number): number {
  const f = busFactor(ranks);
  let total = 0;
  for (const bytes of sweepSizes(sweep)) {
    const op = LATENCY_US * 1e-6 + bytes / ((peakBusBw / f) * 1e9);
    total += (sweep.iters + sweep.warmupIters) * op;
  }
  return total;
}

/** Start-up of one job: scheduling both pods, sshd, mpirun, NCCL init. The budget assumes its upper end. */
export const JOB_START_SECONDS = { min: 20, max: 30 } as const;

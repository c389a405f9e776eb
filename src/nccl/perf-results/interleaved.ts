import type { PerfRow, PerfRun } from "./types.js";

/**
 * The ascending sweeps a run's rows make, first fit: each row continues the first sweep whose last size is below it.
 * One sweep for a run printed by one process.
 */
export function lanesOf(rows: readonly PerfRow[]): PerfRow[][] {
  const lanes: PerfRow[][] = [];
  for (const r of rows) {
    const lane = lanes.find((l) => l.at(-1)!.bytes < r.bytes);
    if (lane) lane.push(r);
    else lanes.push([r]);
  }
  return lanes;
}

/**
 * A binary built without MPI and launched N times prints N whole runs into one stream: the same banner and rank 0
 * N times, then the N tables' rows interleaved as the processes write them (shape seen at
 * https://github.com/NVIDIA/nccl-tests/issues/182; NCCL_TESTS_NOT_MPI says why). Their rows are told apart as the
 * ascending sweeps they make, one run each, each with its own footer when every process printed one.
 */
export function splitInterleaved(run: PerfRun, avgs: readonly number[]): PerfRun[] {
  if (run.duplicateRanks === 0 || run.rows.length < 2) return [run];
  const lanes = lanesOf(run.rows);
  if (lanes.length < 2 || lanes.length > run.duplicateRanks + 1) return [run];
  return lanes.map((rows, i) => ({
    ...run,
    rows,
    avgBusBw: avgs.length === lanes.length ? avgs[i]! : i === lanes.length - 1 ? run.avgBusBw : null,
  }));
}

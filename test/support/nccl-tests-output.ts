import { formatNcclTestsOutput } from "../../src/fabric/bench/job-log.js";
import type { SizeResult } from "../../src/fabric/types.js";
/**
 * all_reduce_perf stdout (nccl-tests 2.14 format) of one run over `hosts`, one rank per GPU: header, rank lines
 * naming each host, and a result row per size from 8 B to 8 GiB whose bus bandwidth rises to `peakBusBw` GB/s
 * (time = 28 µs + bytes / rate). For tests of `bench judge`.
 */
export function allReduceOutput(opts: { hosts: readonly string[]; gpusPerNode?: number; peakBusBw: number }): string {
  const gpus = opts.gpusPerNode ?? 8;
  const ranks = opts.hosts.length * gpus;
  const busFactor = (2 * (ranks - 1)) / ranks;
  const rows: SizeResult[] = [];
  for (let bytes = 8; bytes <= 2 ** 33; bytes *= 2) {
    const timeUs = 28 + bytes / ((opts.peakBusBw / busFactor) * 1e3);
    rows.push({ bytes, busbw: (bytes / timeUs / 1e3) * busFactor });
  }
  return formatNcclTestsOutput(rows, opts.hosts, gpus);
}

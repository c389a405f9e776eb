/**
 * all_reduce_perf stdout (nccl-tests 2.14 format) of one run over `hosts`, one rank per GPU: header, rank lines
 * naming each host, and a result row per size from 8 B to 8 GiB whose bus bandwidth rises to `peakBusBw` GB/s
 * (time = 28 µs + bytes / rate). For tests of `bench judge`.
 */
export function allReduceOutput(opts: { hosts: readonly string[]; gpusPerNode?: number; peakBusBw: number }): string {
  const gpus = opts.gpusPerNode ?? 8;
  const ranks = opts.hosts.length * gpus;
  const busFactor = (2 * (ranks - 1)) / ranks;
  const lines = [
    "# nccl-tests version 2.14.1 nccl-headers=21805 nccl-library=21805",
    "# Collective test starting: all_reduce_perf",
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
    "#",
    "# Using devices",
  ];
  opts.hosts.forEach((host, h) => {
    for (let d = 0; d < gpus; d++) {
      const rank = h * gpus + d;
      lines.push(
        `#  Rank ${String(rank).padStart(2)} Group  0 Pid ${40000 + rank} on ${host} device  ${d} [0000:${(7 + d * 16).toString(16).padStart(2, "0")}:00] NVIDIA A100-SXM4-80GB`,
      );
    }
  });
  lines.push(
    "#",
    "#                                                              out-of-place                       in-place          ",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
  );
  let sum = 0;
  let rows = 0;
  for (let bytes = 8; bytes <= 2 ** 33; bytes *= 2) {
    const timeUs = 28 + bytes / ((opts.peakBusBw / busFactor) * 1e3);
    const algbw = bytes / timeUs / 1e3;
    const busbw = algbw * busFactor;
    const perf = `${timeUs.toFixed(2).padStart(8)} ${algbw.toFixed(2).padStart(7)} ${busbw.toFixed(2).padStart(7)} ${"0".padStart(6)}`;
    lines.push(
      `${String(bytes).padStart(12)} ${String(bytes / 4).padStart(13)} ${"float".padStart(9)} ${"sum".padStart(7)} ${"-1".padStart(7)} ${perf} ${perf}`,
    );
    sum += busbw;
    rows++;
  }
  lines.push(
    "# Out of bounds values : 0 OK",
    `# Avg bus bandwidth    : ${(sum / rows).toFixed(4)} `,
    "#",
    "# Collective test concluded: all_reduce_perf",
    "",
  );
  return lines.join("\n");
}

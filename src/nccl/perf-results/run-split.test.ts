import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";

// nccl-tests prints one row per size, sizes rising, for each type and op in turn (the loops around TimeTest in
// https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu). Shape seen at https://github.com/NVIDIA/nccl/issues/306:
// header-less tables of two NCCL versions pasted one after the other under markdown headings. Rows are our own.
const row = (size: number, t: number, alg: number, bus: number) =>
  `${String(size).padStart(12)}  ${String(size / 4).padStart(12)}     float     sum  ${t.toFixed(1).padStart(7)}  ${alg.toFixed(2).padStart(6)}  ${bus.toFixed(2).padStart(6)}  1e-06  ${t.toFixed(1).padStart(7)}  ${alg.toFixed(2).padStart(6)}  ${bus.toFixed(2).padStart(6)}  1e-06`;
const sweep = (alg: number) => [1 << 22, 1 << 24, 1 << 26].map((s) => row(s, s / (alg * 1e3), alg, alg * 1.875));

type Runs = { runs: { rows: unknown[] }[] };

describe("header-less tables one after another", () => {
  test("a size smaller than the row before, same type and op, starts the next run", () => {
    const text = ["#### v2.5.7", "```", ...sweep(4.1), "```", "#### v2.4.8", "```", ...sweep(5.3), "```"].join("\n");
    const e = analyzeText("two.txt", `${text}\n`);
    expect(e.kind).toBe("nccl_tests");
    expect((e.data as Runs).runs.map((r) => r.rows.length)).toEqual([3, 3]);
  });

  test("one sweep per op under one header (-o all) stays one run", () => {
    const prod = sweep(4.1).map((l) => l.replace(" sum ", "prod "));
    const e = analyzeText("ops.txt", `${[...sweep(4.1), ...prod].join("\n")}\n`);
    expect((e.data as Runs).runs.map((r) => r.rows.length)).toEqual([6]);
  });

  test("repeated zero-size rows at the start are one sweep", () => {
    const zero =
      "           0             0     float     sum      -1     5.70    0.00    0.00      0     5.54    0.00    0.00      0";
    const e = analyzeText("zeros.txt", `${[zero, zero, zero].join("\n")}\n`);
    expect((e.data as Runs).runs).toHaveLength(1);
  });
});

// A binary built without MPI launched by mpirun twice: both processes print the banner and a rank 0, then their rows
// interleave in the one stream (shape seen at https://github.com/NVIDIA/nccl-tests/issues/182; hosts and numbers ours).
describe("processes that each ran the test alone, their rows interleaved", () => {
  const banner = "# nThread 1 nGpus 1 minBytes 4194304 maxBytes 67108864 step: 2(factor) warmup iters: 5 iters: 20";
  const rank = (host: string, pid: number) =>
    `#  Rank  0 Group  0 Pid ${pid} on ${host} device  0 [0x3b] NVIDIA A100-SXM4-80GB`;
  const [a, b] = [sweep(4.1), sweep(3.9)];
  const head = [banner, banner, "# Using devices", rank("gpu-a", 5120), rank("gpu-b", 7311)];

  test("rank 0 twice: the rows are told apart as two ascending sweeps, one run each", () => {
    const rows = [a[0]!, b[0]!, a[1]!, a[2]!, b[1]!, b[2]!];
    const e = analyzeText("two.txt", `${[...head, ...rows].join("\n")}\n`);
    const d = e.data as Runs & { nranks: number };
    expect(d.runs.map((r) => r.rows.length)).toEqual([3, 3]);
    expect(d.nranks).toBe(1);
    expect(e.findings.map((f) => f.code)).toContain("NCCL_TESTS_NOT_MPI");
  });

  test("one process (rank 0 once): a smaller size still starts the next run", () => {
    const e = analyzeText("one.txt", `${[banner, rank("gpu-a", 5120), ...a, ...b].join("\n")}\n`);
    expect((e.data as Runs).runs.map((r) => r.rows.length)).toEqual([3, 3]);
  });

  test("a sweep beyond the processes' count starts the next run (both processes had finished theirs)", () => {
    const c = sweep(4.4);
    const rows = [a[0]!, b[0]!, a[1]!, b[1]!, a[2]!, b[2]!, ...c];
    const e = analyzeText("three.txt", `${[...head, ...rows].join("\n")}\n`);
    expect((e.data as Runs).runs.map((r) => r.rows.length)).toEqual([3, 3, 3]);
  });
});

// Each run ends with ` Avg bus bandwidth    : %g` (src/common.cu). Shape seen at
// https://github.com/eunomia-bpf/nccl-eBPF/blob/HEAD/docs/tmp/p1-mixed-workload-experiment.md: one-size runs, each with
// its footer, under a report's headings. Rows ours.
describe("one-size runs, each with its footer", () => {
  test("a row of the same size after a run's footer starts the next run", () => {
    const one = row(4096, 4371.2, 0.0, 0.0);
    const text = [
      "#### Config 1",
      one,
      "# Avg bus bandwidth    : 0.000937",
      "#### Config 2",
      one,
      "# Avg bus bandwidth    : 0.000941",
    ];
    const e = analyzeText("configs.md", `${text.join("\n")}\n`);
    expect((e.data as Runs).runs.map((r) => r.rows.length)).toEqual([1, 1]);
  });
});

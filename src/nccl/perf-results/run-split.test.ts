import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";
import { analyzeNcclTests } from "./analyzer.js";

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

  // The size cell and the count come from one loop (size = count × type size, src/common.cu): a row whose count
  // keeps rising continues the sweep even where its size cell reads smaller (a mistyped or mangled cell; shape seen
  // at https://github.com/thomaslie210/NCCL_Test_Results, a 1 KiB-step alltoall of 1,024 rows; numbers ours).
  test("a smaller size under a still-rising count is a mangled cell of the same sweep", () => {
    const rows = sweep(4.1);
    const mangled = rows[1]!.replace(/^\s*\d+/, (m) => "415600".padStart(m.length));
    const e = analyzeText("mangled.txt", `${[rows[0]!, mangled, rows[2]!].join("\n")}\n`);
    expect((e.data as Runs).runs.map((r) => r.rows.length)).toEqual([3]);
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

/**
 * A report's tables of several tests, each under its own bold label, the counts stated only in the labels (shape seen
 * in a report committed to a public repository, index-file 60744093665), and a page's list of other runs' averages
 * after a table (an EKS README's "Other runs", index-file 3038905784). Rows and figures our own.
 */
describe("the run at the top of a report of several tables", () => {
  const header = [
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)",
  ];
  const alltoall = [
    "     1048576         65536     uint8    none      -1   132.67    7.90    7.41       0   130.41    8.04    7.54    N/A",
    "   134217728       8388608     uint8    none      -1  3096.37   43.35   40.64       0  3168.42   42.36   39.71    N/A",
    "# Avg bus bandwidth    : 24.0",
  ];
  const sendrecv = [
    "     1048576       1048576     uint8     sum      -1   168.47    6.22    6.22       0   169.00    6.20    6.20    N/A",
    "   134217728     134217728     uint8     sum      -1  6720.03   19.97   19.97       0  6665.53   20.14   20.14    N/A",
    "# Avg bus bandwidth    : 13.1",
  ];

  test("is the last one when its rank count is unstated: a count nobody states is not a smaller one", () => {
    const text = ["**alltoall**", ...header, ...alltoall, "", "**sendrecv**", ...header, ...sendrecv].join("\n");
    const d = analyzeNcclTests(text).data!;
    expect(d.runs).toHaveLength(2);
    expect(d).toMatchObject({ collective: "sendrecv", avgBusBw: 13.1 });
  });

  test("other runs' averages quoted after the table are neither its average nor runs of their own", () => {
    const text = [
      ...header,
      ...alltoall,
      "",
      "Other runs:",
      "16 nodes:",
      "Avg bus bandwidth    : 20.8",
      "64 nodes:",
      "Avg bus bandwidth    : 24.3",
    ].join("\n");
    const d = analyzeNcclTests(text).data!;
    expect(d.runs).toHaveLength(1);
    expect(d.avgBusBw).toBe(24.0);
  });
});

/**
 * What a run's own lines leave unsaid, read from around it: a row kept under `#` with the rest of the output, an MPI
 * build's one banner for many processes, the words typed before a run that a hang cut short, a run shown twice. What
 * nccl-tests prints: src/common.cu in https://github.com/NVIDIA/nccl-tests (no `#` line starts with a number; the
 * banner's `nThread N nGpus G` is one process's; busbw = algbw × (n−1)/n for all_gather and alltoall, and the count
 * column is the per-rank count, so size ÷ (count × 4) is n for float). Rows and hosts are our own.
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclTests } from "./analyzer.js";

const HEADER = [
  "#                                                              out-of-place                       in-place",
  "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
  "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
];
const banner = (g: number) =>
  `# nThread 1 nGpus ${g} minBytes 8388608 maxBytes 33554432 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0`;

// Shape seen in a Makefile committed to a public repository (index-file 15643942838): a run kept as comments at its end.
describe("a run kept under `#` with everything else", () => {
  test("its row is read: nccl-tests prints no `#` line that starts with two numbers", () => {
    const text = [
      "# Collective test starting: broadcast_perf",
      `${banner(1)}`,
      "#  Rank  0 Group  0 Pid 40211 on lab-gpu3 device  0 [0000:1a:00] Tesla V100-SXM2-16GB",
      "#  Rank  1 Group  0 Pid 40212 on lab-gpu3 device  1 [0000:1c:00] Tesla V100-SXM2-16GB",
      ...HEADER,
      "#     2097152        524288     float    none       0    873.6    2.40    2.40      0    802.9    2.61    2.61      0",
      "# Out of bounds values : 0 OK",
      "# Avg bus bandwidth    : 2.5053",
    ].join("\n");
    const d = analyzeNcclTests(text).data!;
    expect(d).toMatchObject({ collective: "broadcast", nranks: 2, avgBusBw: 2.5053 });
    expect(d.rows).toHaveLength(1);
    expect(d.peak?.busbw).toBe(2.61);
  });
});

// Shape seen in a docs page committed to a public repository (index-file 431819154): a 16-rank all_gather launched by
// mpirun, the banner `nThread 1 nGpus 1`, no rank line kept.
describe("an MPI build's banner counts one process's ranks", () => {
  const rows = [
    "     8388608        131072     float    none      -1    159.9   52.46   49.18    N/A    161.3   51.99   48.74    N/A",
    "    16777216        262144     float    none      -1    202.4   82.90   77.72    N/A    200.5   83.66   78.43    N/A",
    "    33554432        524288     float    none      -1    282.6  118.72  111.30    N/A    280.5  119.61  112.14    N/A",
  ];
  test("rows that need 16 ranks (size ÷ count × 4, and (n−1)/n) say 16, not the banner's 1", () => {
    const d = analyzeNcclTests([banner(1), ...HEADER, ...rows, "# Avg bus bandwidth    : 80.1"].join("\n")).data!;
    expect(d).toMatchObject({ nranks: 16, nranksSource: "table" });
  });
  test("rows that fit the banner's count leave it: 8 GPUs in one process", () => {
    const eight = rows.map((r) => r.replace(/131072|262144|524288/, (c) => String(Number(c) * 2)));
    const d = analyzeNcclTests([banner(8), ...HEADER, ...eight].join("\n")).data!;
    expect(d).toMatchObject({ nranks: 8, nranksSource: "threads" });
  });
});

// Shape seen in a blog committed to a public repository (index-file 27534547536): attempts by a wrapper script whose
// `-t all_gather` names the test, one that hung after its header, then one with rows.
describe("words typed after a run that printed nothing more introduce the next", () => {
  test("`-t all_gather` typed before the next attempt names the collective its rows leave open", () => {
    const attempt = (host: string) => [
      `root@${host}:/# /usr/local/scripts/run_nccl_tests.sh -t all_gather -b 8M -e 32M -g 1 ${host}-0 ${host}-1`,
      banner(1),
      "#  Rank  0 Group  0 Pid  1702 on w-0 device  0 [0000:8f:00] NVIDIA B200",
      "#  Rank  1 Group  0 Pid  1688 on w-1 device  0 [0000:8f:00] NVIDIA B200",
      ...HEADER,
    ];
    const rows = [
      "     8388608       1048576     float    none      -1    116.2   72.20   36.10      0    122.0   68.78   34.39      0",
      "    16777216       2097152     float    none      -1    224.9   74.60   37.30      0    219.7   76.38   38.19      0",
    ];
    const text = [...attempt("a"), "", "Hangs. After adding the NICs:", "", ...attempt("b"), ...rows].join("\n");
    const d = analyzeNcclTests(text).data!;
    expect(d).toMatchObject({ collective: "all_gather", nranks: 2 });
    expect(d.rows).toHaveLength(2);
  });
});

// Shape seen at https://yuanlehome.github.io/blog/nccl-tests (a code block shown twice, the seam cutting the copy's
// header): the copy is the same run.
describe("a run shown twice", () => {
  test("the copy takes the program and rank lines its seam cut off", () => {
    const run = [
      banner(8),
      ...Array.from(
        { length: 8 },
        (_, i) => `#  Rank  ${i} Group  0 Pid  5512 on gpu-a7 device  ${i} [0x${18 + i}] NVIDIA H800`,
      ),
      ...HEADER,
      "     8388608        262144     float    none      -1    137.1   61.20   53.55       0    138.5   60.59   53.02       0",
      "    16777216        524288     float    none      -1    189.8   88.40   77.35       0    191.7   87.52   76.58       0",
      "# Avg bus bandwidth    : 65.1",
    ];
    const text = ["./build/all_gather_perf -b 8M -e 16M -f 2 -g 8", ...run, ...HEADER, ...run.slice(-3)].join("\n");
    const d = analyzeNcclTests(text).data!;
    expect(d.runs).toHaveLength(2);
    expect(d).toMatchObject({ collective: "all_gather", nranks: 8, nranksSource: "ranks" });
  });
});

// Open MPI's `--tag-output` tags every write, so a row nccl-tests printed in three writes carries the tag inside it too
// (shape seen in an EKS MPIJob log committed at https://github.com/KeitaW/p5-nccl-test-2024-07-19).
test("a row with `[1,0]<stdout>:` inside it, from each of its writes, is one row", () => {
  const tag = "[1,0]<stdout>:";
  const text = [
    `${tag}${banner(1)}`,
    ...HEADER.map((l) => `${tag}${l}`),
    `${tag}     8388608       2097152     float     sum      -1${tag}    63.98  131.11  245.83      0${tag}    61.62  136.14  255.26      0`,
    `${tag}    16777216       4194304     float     sum      -1${tag}    99.10  169.29  317.43      0${tag}    98.02  171.16  320.93      0`,
    `${tag}# Avg bus bandwidth    : 284.86`,
  ].join("\n");
  const d = analyzeNcclTests(text).data!;
  expect(d.rows).toHaveLength(2);
  expect(d.peak?.busbw).toBe(320.93);
});

// Shape seen in a blog committed to a public repository (index-file 27534547536): a run whose rows stop, then another
// attempt's header. The first run never printed its footer: it is said to be unfinished, even cut there.
test("a run with rows and another attempt's header after it, no footer between: the run did not finish", () => {
  const row =
    "    67108864       8388608     float    none      -1    86.63  774.69  387.35      0    86.05  779.87  389.94      0";
  const r = analyzeNcclTests([banner(1), ...HEADER, row, "", "Now between the pods:", banner(1)].join("\n"));
  expect(r.problems.map((p) => p.code)).toContain("nccl_tests.incomplete");
});

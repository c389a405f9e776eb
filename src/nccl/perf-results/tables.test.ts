import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";
import { analyzeNcclTests } from "./analyzer.js";
import { commandRanks, withoutRankTags } from "./line-shapes.js";

const capture = (name: string) => readFileSync(`fixtures/captures/nccl_tests/${name}`, "utf8");

/** Halves the bandwidth of the rows of one reduction op (time × 2, algbw and busbw ÷ 2), as a slow op would print. */
function slowOp(text: string, op: string): string {
  return text
    .split("\n")
    .map((l) => {
      const t = l.replace(/^0: /, "").trim().split(/\s+/);
      if (t[3] !== op || !/^\d+$/.test(t[0] ?? "")) return l;
      const half = (i: number) => (Number(t[i]) / 2).toFixed(2);
      return `0: ${[t[0], t[1], t[2], t[3], t[4], (Number(t[5]) * 2).toFixed(1), half(6), half(7), t[8], (Number(t[9]) * 2).toFixed(1), half(10), half(11), t[12]].join("  ")}`;
    })
    .join("\n");
}

// `-o all` prints one sweep of sizes per reduction op under one header (nccl-tests src/all_reduce.cu, the loop over
// ops around TimeTest): https://github.com/NVIDIA/nccl-tests/issues/167.
describe("a run of several tables (-o all, every root)", () => {
  test("every row is kept, split into one table per op, each labelled", () => {
    const e = analyzeText("op-all.txt", capture("op-all-allreduce-five-ops.txt"));
    const d = e.data as { rows: unknown[]; tables: { label: string; rows: number }[] };
    expect(d.rows).toHaveLength(55);
    expect(d.tables.map((t) => [t.label, t.rows])).toEqual([
      ["float sum", 11],
      ["float prod", 11],
      ["float max", 11],
      ["float min", 11],
      ["float avg", 11],
    ]);
  });

  test("each table is judged on its own: one slow op is the one flagged", () => {
    const text = slowOp(capture("op-all-reducescatter-srun-2node.txt"), "prod");
    const r = analyzeNcclTests(text.replace(/^0: /gm, ""), { expectGBps: 160 });
    const bw = r.findings.filter((f) => f.code.startsWith("NCCL_TESTS_BANDWIDTH_"));
    expect(bw.map((f) => `${f.code}:${f.subject}`).sort()).toEqual([
      "NCCL_TESTS_BANDWIDTH_LOW:float prod",
      "NCCL_TESTS_BANDWIDTH_OK:float max",
      "NCCL_TESTS_BANDWIDTH_OK:float min",
      "NCCL_TESTS_BANDWIDTH_OK:float sum",
    ]);
  });

  test("every root of gather_perf -r -1 is a table of its own", () => {
    const r = analyzeNcclTests(capture("gather-every-root-4gpu.txt"));
    expect(r.data?.tables?.map((t) => t.label)).toEqual([
      "float root 0",
      "float root 1",
      "float root 2",
      "float root 3",
    ]);
    expect(r.data?.rows).toHaveLength(36);
  });
});

// The launcher's process count on a pasted command line (Open MPI `-n`/`-np`,
// https://www.open-mpi.org/doc/current/man1/mpirun.1.php; Slurm `--ntasks`, https://slurm.schedmd.com/srun.html) times
// nccl-tests' `-t` threads and `-g` GPUs per process (https://github.com/NVIDIA/nccl-tests#arguments). Shape of an
// `mpirun -n 256 … all_reduce_perf -g 1` paste with no rank lines seen at https://github.com/NVIDIA/nccl-tests/issues/78.
describe("the rank count a pasted command line asks for", () => {
  const at = (line: string) => {
    const m = /\w+_perf/.exec(line)!;
    return commandRanks(line, m.index, m[0].length);
  };
  test("launcher processes × threads × GPUs per process; nccl-tests' own -n (iterations) is not a rank count", () => {
    expect(at("mpirun -n 32 -npernode 8 ./build/all_reduce_perf -b 8 -e 1G -f 2 -g 1 -n 50")).toBe(32);
    expect(at("mpirun -np 4 --hostfile h ./build/all_gather_perf -t 2 -g 2")).toBe(16);
    expect(at("srun --ntasks=16 --mpi=pmix /opt/nccl-tests/build/alltoall_perf -b 1M")).toBe(16);
    // A binary typed with no launcher runs as one process: its ranks are its threads × GPUs (the README's "total
    // number of ranks = processes × threads × GPUs per thread", https://github.com/NVIDIA/nccl-tests#usage).
    expect(at("./build/all_reduce_perf -b 8 -e 128M -f 2 -g 8 -n 20")).toBe(8);
    expect(at("NCCL_ALGO=RING ./build/sendrecv_perf -t 2 -g 4")).toBe(8);
    // Something else runs the binary (a container runtime, a wrapper script): its process count is unknown.
    expect(at("singularity run --nv img.sif /tests/all_reduce_perf -g 8")).toBeNull();
  });

  test("without rank lines, the command line decides nranks (and says so) before the table's arithmetic", () => {
    const text = [
      "mpirun -n 24 -npernode 8 -x NCCL_DEBUG=WARN ./build/all_reduce_perf -b 64M -e 128M -f 2 -g 1",
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error",
      "    67108864      16777216   float     sum   1411.2   47.56   91.16  5e-07   1402.9   47.84   91.69  5e-07",
      "   134217728      33554432   float     sum   2790.4   48.10   92.19  5e-07   2788.0   48.14   92.27  5e-07",
      "# Avg bus bandwidth    : 91.83",
    ].join("\n");
    const r = analyzeNcclTests(text);
    expect(r.data).toMatchObject({ nranks: 24, nranksSource: "command_line", collective: "all_reduce" });
  });

  // The banner's `nThread 1 nGpus 1` is one process's count: with no rank line, the launcher's `-np 16` counts the
  // processes (an MPI build prints one banner for all of them; shape seen at https://github.com/NVIDIA/nccl/issues/1017:
  // a script's `mpirun … \` continued over lines, no rank lines). A build without MPI run that way is 16 tests of one
  // rank each, and each prints its own banner: where the banner repeats, its count stands.
  test("with no rank line, the launcher's processes × the banner's threads and GPUs; a repeated banner is one test's", () => {
    const banner =
      "# nThread 1 nGpus 1 minBytes 67108864 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0";
    const text = [
      "mpirun -np 16 -N 8 -hostfile hosts \\",
      "    --bind-to none -x NCCL_DEBUG=WARN \\",
      "    ./build/all_reduce_perf -b 64M -e 128M -f 2 -g 1",
      banner,
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
      "    67108864      16777216     float     sum      -1    770.1   87.14  163.39      0    772.0   86.93  162.99      0",
      "# Avg bus bandwidth    : 163.39",
    ].join("\n");
    expect(analyzeNcclTests(text).data).toMatchObject({ nranks: 16, nranksSource: "command_line" });
    const separate = text.replace(banner, `${banner}\n${banner}`);
    expect(analyzeNcclTests(separate).data).toMatchObject({ nranks: 1, nranksSource: "threads" });
  });
});

// rccl-tests' colon banner `# nThreads: 1 nGpus: 4 nRanks: 1 minBytes: 8 …` (shape seen at
// https://github.com/ROCm/rccl-tests/issues/50), then rank lines and a failure before any row. Our own host and GPUs.
describe("rccl-tests' `nThreads:` banner", () => {
  test("is nccl-tests output: the thread line, the rank lines and the failure are read", () => {
    const text = [
      "# nThreads: 1 nGpus: 2 nRanks: 1 minBytes: 8 maxBytes: 1048576 step: 2(factor) warmupIters: 5 iters: 20 validation: 1",
      "#",
      "# Using devices",
      "#   Rank  0 Pid   5120 on kr-mi-1 device  0 [0000:0c:00.0] AMD Instinct MI300X",
      "#   Rank  1 Pid   5120 on kr-mi-1 device  1 [0000:22:00.0] AMD Instinct MI300X",
      "kr-mi-1: Test NCCL failure common.cu:1200 'unhandled cuda error'",
    ].join("\n");
    expect(analyzeText("out.txt", text).kind).toBe("nccl_tests");
    const r = analyzeNcclTests(text);
    expect(r.data).toMatchObject({ nranks: 2, nranksSource: "ranks" });
    expect(r.findings.map((f) => f.code)).toEqual(
      expect.arrayContaining(["NCCL_TESTS_NO_RESULTS", "NCCL_TESTS_RUN_FAILED"]),
    );
  });
});

// A launcher that tags each write with `[N]` repeats the tag inside a row nccl-tests printed in pieces (shape seen at
// https://github.com/NVIDIA/nccl/issues/1453). Our own sizes and figures.
describe("a rank tag repeated inside each row", () => {
  test("comes off wherever it recurs, and the rows read as nccl-tests", () => {
    const row = (b: number, a: string, bus: string) =>
      `[3]  ${String(b).padStart(10)}  ${String(b / 4).padStart(10)}   float   sum   -1[3]  100.0  ${a}  ${bus}   0[3]  101.0  ${a}  ${bus}   0`;
    const text = [
      "[3]#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
      row(1 << 20, "10.00", "17.50"),
      row(1 << 21, "20.00", "35.00"),
      row(1 << 22, "30.00", "52.50"),
    ].join("\n");
    expect(withoutRankTags("[3]  8 2 float sum -1[3]  1.0")).toBe("  8 2 float sum -1   1.0");
    expect(withoutRankTags("[1,3]<stdout>:x[3]")).toBe("[1,3]<stdout>:x[3]");
    expect(analyzeText("out.txt", text).kind).toBe("nccl_tests");
    const r = analyzeNcclTests(text);
    expect(r.data?.rows).toHaveLength(3);
    // busbw ÷ algbw = 1.75 = 2(n−1)/n: eight ranks, all_reduce by its redop column.
    expect(r.data).toMatchObject({ collective: "all_reduce", nranks: 8 });
  });
});

// Two tables pasted under "Before:"/"After:" prose, each a column header and rows with no banner or footer, below
// one `mpirun -np N` command line (shape seen at https://github.com/ROCm/rccl/pull/929). Our own figures.
describe("a column header after rows", () => {
  test("starts the next run: two tables are two runs", () => {
    const header =
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error";
    const row = (bus: string) =>
      `      131072         32768   float     sum    30.00    4.37    ${bus}  1e-07    30.10    4.35    ${bus}  1e-07`;
    const text = [
      "mpirun -np 4 ./build/all_reduce_perf -b 128K -e 128K -g 2",
      "Before:",
      header,
      row("7.65"),
      "After:",
      header,
      row("7.61"),
    ].join("\n");
    const r = analyzeNcclTests(text);
    expect(r.data?.runs).toHaveLength(2);
    expect(r.data).toMatchObject({ collective: "all_reduce", nranks: 8 });
  });
});

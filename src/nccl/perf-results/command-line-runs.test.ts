import { describe, expect, test } from "vitest";
import { analyzeText, analyzeTranscript } from "../../analyze/index.js";
import { analyzeNcclTests } from "./analyzer.js";

type Run = { collective: string | null; nranks: number | null; rows: unknown[] };

/**
 * A terminal paste of two attempts, each typed at a shell prompt, each failing before any row: the command line
 * names the run that follows it. Shape seen in https://github.com/NVIDIA/nccl-tests/issues/289 (hosts, numbers
 * and binaries here are this project's own); the header and `Test CUDA failure` lines as nccl-tests' src/common.cu
 * prints them (https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu).
 */
const TWO_ATTEMPTS = [
  "[admin@gpu7 build]$ ./all_gather_perf -b 512M -e 4G -f 2 -g 8",
  "# nThread 1 nGpus 8 minBytes 536870912 maxBytes 4294967296 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
  "#",
  "# Using devices",
  "gpu7: Test CUDA failure common.cu:990 'invalid device ordinal'",
  " .. gpu7 pid 4411: Test failure common.cu:890",
  "[admin@gpu7 build]$ ./alltoall_perf -b 512M -e 4G -f 2 -g 4",
  "# nThread 1 nGpus 4 minBytes 536870912 maxBytes 4294967296 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
  "#",
  "# Using devices",
  "#  Rank  0 Group  0 Pid   4502 on       gpu7 device  0 [0x19] NVIDIA A100-SXM4-80GB",
  "#  Rank  1 Group  0 Pid   4502 on       gpu7 device  1 [0x3b] NVIDIA A100-SXM4-80GB",
  "#  Rank  2 Group  0 Pid   4502 on       gpu7 device  2 [0x4c] NVIDIA A100-SXM4-80GB",
  "#  Rank  3 Group  0 Pid   4502 on       gpu7 device  3 [0x5d] NVIDIA A100-SXM4-80GB",
  "#",
  "gpu7: Test NCCL failure alltoall.cu:60 'unhandled cuda error'",
  " .. gpu7 pid 4502: Test failure common.cu:380",
].join("\n");

describe("a command line names the run that follows it", () => {
  test("two failed attempts: the last run is the one typed last, with its own collective and ranks", () => {
    const data = analyzeNcclTests(TWO_ATTEMPTS).data as Run;
    expect([data.collective, data.nranks, data.rows.length]).toEqual(["alltoall", 4, 0]);
  });

  test("the first attempt alone keeps the collective of its own command line", () => {
    const first = TWO_ATTEMPTS.split("\n").slice(0, 6).join("\n");
    const data = analyzeNcclTests(first).data as Run;
    expect([data.collective, data.rows.length]).toEqual(["all_gather", 0]);
  });

  test("a command line above the header still names its own run", () => {
    const one = TWO_ATTEMPTS.split("\n").slice(6).join("\n");
    const data = analyzeNcclTests(one).data as { collective: string | null; runs: Run[] };
    expect(data.runs.map((r) => r.collective)).toEqual(["alltoall"]);
  });
});

/**
 * A command told in prose, not typed (`I launch it with `srun … all_reduce_perf …``), after the output it describes
 * (shape seen in https://github.com/NVIDIA/pyxis/issues/116; this project's own hosts and numbers): it names the run
 * above it when no output follows it, and the run it introduces when one does.
 */
describe("a command told in prose", () => {
  const banner =
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0";
  const rank = "#  Rank  0 Group  0 Pid 4100 on gpu-a device  0 [0x0f] NVIDIA A100-SXM4-80GB";
  const rows = [
    "           8             2     float     sum      -1    10.12    0.00    0.00      0     9.98    0.00    0.00      0",
    "          16             4     float     sum      -1    10.20    0.00    0.00      0    10.01    0.00    0.00      0",
    "# Avg bus bandwidth    : 0 ",
  ];
  test("after the output, with nothing after it: the run above", () => {
    const text = [
      banner,
      rank,
      ...rows,
      "",
      "I launch it with `srun -N 2 --ntasks-per-node=8 /opt/nccl-tests/build/all_reduce_perf -b 8 -e 16 -g 1`. Any ideas?",
    ];
    const data = analyzeNcclTests(text.join("\n")).data as Run;
    expect([data.collective, data.rows.length]).toEqual(["all_reduce", 2]);
  });

  test("between two outputs: the run it introduces", () => {
    const text = [
      banner,
      rank,
      ...rows,
      "then I ran `./build/all_gather_perf -b 8 -e 16 -g 1` and got:",
      banner,
      rank,
      ...rows,
    ];
    const data = analyzeNcclTests(text.join("\n")).data as { runs: Run[] };
    expect(data.runs.map((r) => r.collective)).toEqual([null, "all_gather"]);
  });
});

/**
 * Attempts told one by one in a numbered list, each a command then its banner, quoted (`>> `), the first failing and
 * the others hanging after their banner (shape seen in https://github.com/NVIDIA/nccl-tests/issues/2; this project's
 * own numbers): each command names the attempt under it, and the last attempt's ranks are its launcher's.
 */
test("a numbered list of attempts: each command starts its own run, a hang after a banner included", () => {
  const banner = (t: number, g: number) =>
    `>> nThread ${t} nGpus ${g} minBytes 67108864 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 validation: 0`;
  const text = [
    "1. mpirun -np 16 ./build/all_reduce_perf -b 64M -e 256M -f 2 -t 1 -g 1",
    banner(1, 1),
    ">> Cuda failure common.cu:891 'invalid device ordinal'",
    "2. mpirun -np 2 ./build/all_gather_perf -b 64M -e 256M -f 2 -t 1 -g 8",
    banner(1, 8),
    "3. mpirun -np 2 ./build/all_reduce_perf -b 64M -e 256M -f 2 -t 4 -g 1",
    banner(4, 1),
  ].join("\n");
  const data = analyzeNcclTests(text).data as Run;
  expect([data.collective, data.nranks]).toEqual(["all_reduce", 8]);
});

/**
 * rccl-tests' own banner (`# rccl-tests version … rccl-headers=…`, ROCm/rccl-tests src/common.cu) and a command quoted
 * in prose before the output (shape seen in https://github.com/mxxm-t/mx-llama.cpp/issues/7; this project's own host).
 */
test("rccl-tests' banner is nccl-tests output, and a backticked command in prose names the run under it", () => {
  const text = [
    "`all_reduce_perf -b 8 -e 1G -f 2 -g 2` fails on the first collective:",
    "# rccl-tests version 2.18.3-HEAD:418cd5f rccl-headers=23004 rccl-library=23004",
    "#  Rank  0 Group  0 Pid      1 on node-a device  0 [0000:03:00] AMD Radeon Graphics",
    "#  Rank  1 Group  0 Pid      1 on node-a device  1 [0000:83:00] AMD Radeon Graphics",
    "node-a: Test NCCL failure common.cu.cpp:775 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '",
  ].join("\n");
  const data = analyzeNcclTests(text).data as Run;
  expect([data.collective, data.nranks, data.rows.length]).toEqual(["all_reduce", 2, 0]);
});

// A question that quotes the command and the failure inline (`` `all_reduce_perf … -g 1` ``), the launcher told in
// prose (`--gpu-bind=per_task:1` under srun): the quote shows no launcher, so it asks for no rank count (shape seen at
// https://github.com/NVIDIA/nccl-tests/issues/300; flags our own).
test("a command quoted inline in prose names the program but no rank count", () => {
  const e = analyzeText(
    "issue.md",
    [
      "With `--gpu-bind=per_task:1` under srun it breaks again.",
      "",
      "The command line is still `/opt/nccl-tests/build/all_reduce_perf -b 8 -e 1G -f 2 -g 1`.",
      "",
      "Now I get `Test CUDA failure common.cu:1012 'invalid device ordinal'` every time.",
    ].join("\n"),
  );
  expect(e.kind).toBe("nccl_tests");
  expect(e.data).toMatchObject({ collective: "all_reduce", nranks: null });
});

// libfabric's debug output registers a provider named `ofi_hook_perf` (`registering provider: ofi_hook_perf (115.20)`,
// shape seen in a Slurm job's output at https://github.com/sparticlesteve/podman-nccl-testing): no test program, so
// no run of its own and no collective named `ofi_hook`.
test("a word that only ends in `_perf` is no test program", () => {
  const text = [
    "+ srun --mpi=pmi2 shifter /opt/nccl-tests/build/all_reduce_perf -b 8 -e 4G -f 2",
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 4294967296 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
    "#",
    "# Using devices",
    "#  Rank  0 Group  0 Pid  40211 on  nid001122 device  0 [0x03] NVIDIA A100-SXM4-40GB",
    "libfabric:40211:1731402211::core:core:ofi_register_provider():468<info> registering provider: ofi_hook_perf (115.20)",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
    "     1048576        262144     float     sum      -1    10.52   99.68    0.00      0     0.31  3382.1    0.00      0",
    "# Avg bus bandwidth    : 0",
  ].join("\n");
  const d = analyzeText("job.out", text).data as { collective: string | null; nranks: number | null };
  expect([d.collective, d.nranks]).toEqual(["all_reduce", 1]);
});

// A document's example whose rank lines it elided after two (`#  Rank  1 …` then `...`), under `-g 8` on one process
// (shape seen in a GPU vendor's acceptance guide committed to a public repository): the banner's nThread × nGpus counts
// the ranks, not the two lines shown.
test("rank lines fewer than one process's GPUs were elided: the banner counts the ranks", () => {
  const text = [
    "./all_reduce_perf -b 8 -e 8G -f 2 -g 8",
    "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
    "#  Rank  0 Group  0 Pid 51020 on gpu-n031 device  0 [0000:75:00] AMD Instinct MI355X",
    "#  Rank  1 Group  0 Pid 51020 on gpu-n031 device  1 [0000:05:00] AMD Instinct MI355X",
    "...",
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong",
    "  8589934592    2147483648     float     sum      -1   38127  225.30  394.27       0   37911  226.58  396.52       0",
    "# Avg bus bandwidth    : 121.6",
  ].join("\n");
  const d = analyzeText("guide.md", text).data as { nranks: number | null; evidence: { nranks: string | null } };
  expect([d.nranks, d.evidence.nranks]).toEqual([8, "thread_line"]);
});

// nccl-tests' own rank lines (`#  Rank  0 Group  0 Pid  71 on gpu-a device  0 …`) under the typed command, a run that
// hung after its banner, with two of NCCL's lines of the hang quoted below (shape seen at
// https://github.com/NVIDIA/nccl/issues/2385): the paste is nccl-tests output first.
test("a test's command and its own rank lines, then NCCL's lines of a hang: nccl-tests output", () => {
  const text = [
    "mpirun -np 15 --hostfile /tmp/hosts /opt/nccl_tests/build/alltoall_perf -b 1K -e 1G -f 2 -g 1",
    "#  Rank  0 Group  0 Pid     71 on gpu-a device  0 [0000:1b:00] NVIDIA H100 80GB HBM3",
    "...",
    "#  Rank 14 Group  0 Pid     71 on gpu-b device  7 [0001:4e:00] NVIDIA H100 80GB HBM3",
    "Stalled ranks' last line:",
    "NCCL INFO bootstrap.cc:1016 (unexpectedEnqueue) Host Calloc Size 112 pointer 0x1",
    "NCCL INFO symmetricSupport 0, cuMemEnable 0",
  ].join("\n");
  const entries = analyzeTranscript("issue.md", text);
  expect(entries[0]?.kind).toBe("nccl_tests");
  expect((entries[0]?.data as { collective: string | null } | undefined)?.collective).toBe("alltoall");
});

// Slurm's `-c` is each task's CPUs, Open MPI's is the process count (https://slurm.schedmd.com/srun.html,
// https://www.open-mpi.org/doc/current/man1/mpirun.1.php). Shape seen in a Cray cluster's README committed to a public
// repository (index-file 24167259383): `srun … -c 64 … -n 8 … singularity run … ./build/all_reduce_perf`, then a
// banner whose `# Using devices` lists no rank. Own paths and figures.
test("each launcher's own words give the process count: `srun -c 64 … -n 8` is 8, `mpirun -c 8` is 8", () => {
  const table = [
    "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 100 agg iters: 1 validation: 1 graph: 0",
    "#",
    "# Using devices",
    "#",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
    "     1048576        262144     float     sum      -1    110.2    9.52   16.65      0    109.9    9.54   16.70      0",
    "     2097152        524288     float     sum      -1    151.3   13.86   24.26      0    150.8   13.91   24.34      0",
  ];
  const srun =
    "$> srun --exclusive -c 64 --mpi=pmi2 -n 8 --ntasks-per-node=4 singularity run --nv /lus/sif/ngc.sif ./build/all_reduce_perf -b 1M -e 4M -f 2";
  expect((analyzeNcclTests([srun, ...table].join("\n")).data as Run).nranks).toBe(8);
  const mpirun = "$ mpirun -c 8 --hostfile hosts ./build/all_reduce_perf -b 1M -e 4M -f 2";
  expect((analyzeNcclTests([mpirun, ...table].join("\n")).data as Run).nranks).toBe(8);
});

// A post that kept only the footer of its run, under the command (shape seen in a blog draft committed to a public
// repository, index-file 49242434181): nccl-tests' own `# Avg bus bandwidth    : %g` line (src/common.cu).
test("the footer alone under the command that ran the test is that test's output", () => {
  const text = [
    "```bash",
    "mpirun -np 4 all_reduce_perf -b 512M -e 8G -f 2 -g 1",
    "```",
    "",
    "```bash",
    "",
    "# Avg bus bandwidth    : 412.906 ",
    "```",
  ].join("\n");
  const e = analyzeText("post.md", text);
  expect(e.kind).toBe("nccl_tests");
  expect(e.data).toMatchObject({ collective: "all_reduce", nranks: 4, avgBusBw: 412.906 });
  // The footer's words in prose, with no program named, are not.
  expect(analyzeText("post.md", "We saw an Avg bus bandwidth: 412 GB/s on the second day.\n").kind).toBe("unknown");
});

// Slurm's `--cpu-bind=verbose` prints one line per task it starts, `cpu-bind=MASK - <host>, task <global> <local>
// [<pid>]: mask 0x… set` (slurm_chkaffinity, src/plugins/task/affinity/ in https://github.com/SchedMD/slurm). A job
// whose `srun` names no task count (the batch script's allocation gives it) and which died before its rank lines
// still shows how many processes ran: shape seen in a benchmark's job output committed to a public repository
// (https://github.com/boeschf/nccl-benchmark-on-alps-2025, results/…/job-n-00512-N-0128-152395.out). Ours: 8 tasks.
describe("the tasks a launcher reported starting", () => {
  const binding = (task: number) =>
    `${String(task - (task % 4)).padStart(3)}: cpu-bind=MASK - gpu-${10 + Math.floor(task / 4)}, task ${String(task).padStart(3)} ${task % 4} [${5100 + task}]: mask 0xff${"0".repeat(task % 4)} set`;
  const job = (tasks: number[]) =>
    [
      "+ srun -l --cpu-bind=verbose ./all_reduce_perf -b 8 -e 1G -f 2",
      ...tasks.map(binding),
      "  0: # nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
      "  0: #",
      "  0: # Using devices",
      "  5: gpu-11: Test CUDA failure common.cu:986 'no CUDA-capable device is detected'",
      "  5:  .. gpu-11 pid 5105: Test failure common.cu:893",
      "srun: error: gpu-11: task 5: Exited with exit code 2",
    ].join("\n");

  test("every task 0…n−1 listed: n processes of nThread × nGpus ranks, and the evidence says so", () => {
    const d = analyzeText("job.out", job([0, 1, 2, 3, 4, 5, 6, 7])).data as Run & { evidence: { nranks: string } };
    expect([d.collective, d.nranks, d.evidence.nranks]).toEqual(["all_reduce", 8, "launcher_tasks"]);
  });

  test("a list with a task missing (a cut paste) counts nothing: the banner's one process speaks", () => {
    const d = analyzeText("job.out", job([0, 1, 2, 3, 5, 6, 7])).data as Run & { evidence: { nranks: string } };
    expect([d.nranks, d.evidence.nranks]).toEqual([1, "thread_line"]);
  });
});

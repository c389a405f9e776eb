import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";
import { ncclTestsAnalyzer } from "./analyzer.js";

/**
 * A many-rank run that failed before printing its header: only nccl-tests' own lines are left (its memory note and
 * each rank's `HOST: Test NCCL failure common.cu:N '…'`, as src/common.h and src/common.cu print them:
 * https://github.com/NVIDIA/nccl-tests/blob/master/src/common.h). Shape seen in
 * https://github.com/NVIDIA/nccl-tests/issues/322; hosts and numbers here are this project's own.
 */
const FAILED = [
  "$ mpirun -np 64 --hostfile nodes ./build/reduce_scatter_perf -b 2G -e 16G -f 2 -g 1",
  "Reducing maxBytes to 12884901888 due to memory limitation",
  "cn-07: Test NCCL failure common.cu:1188 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '",
  " .. cn-07 pid 55120: Test failure common.cu:901",
  "cn-12: Test NCCL failure common.cu:1188 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '",
  " .. cn-12 pid 55190: Test failure common.cu:901",
];

describe("a failure-only nccl-tests paste is recognised by nccl-tests' own failure lines", () => {
  test("several ranks' failure lines name nccl-tests; the command names the collective", () => {
    const e = analyzeText("paste.txt", FAILED.join("\n"));
    expect(e.kind).toBe("nccl_tests");
    const d = e.data as { collective: string | null; rows: unknown[] };
    expect([d.collective, d.rows.length]).toEqual(["reduce_scatter", 0]);
    expect(e.findings.map((f) => f.code)).toContain("NCCL_TESTS_RUN_FAILED");
  });

  test("behind a launcher's host prefixes too", () => {
    // pdsh / mpirun --tag-output style: every line behind its host (the line reader strips it first).
    const prefixed = FAILED.slice(1).map((l) => `cn-07: ${l}`);
    expect(analyzeText("paste.txt", prefixed.join("\n")).kind).toBe("nccl_tests");
  });

  test("before 2019 the line read `NCCL failure common.cu:N '…'`: one of them under the *_perf command that ran", () => {
    // Shape seen at https://github.com/NVIDIA/nccl-tests/issues/6 (the harness's print before `Test ` was added);
    // the host and line numbers here are this project's own.
    const old = [
      "gpu-w3$ ./build/all_gather_perf -b 8 -e 64M -f 2 -g 2",
      "NCCL failure common.cu:913 'unhandled system error'.",
    ];
    const e = analyzeText("paste.txt", old.join("\n"));
    expect(e.kind).toBe("nccl_tests");
    const d = e.data as { collective: string | null; rows: unknown[] };
    expect([d.collective, d.rows.length]).toEqual(["all_gather", 0]);
    expect(e.findings.map((f) => f.code)).toContain("NCCL_TESTS_RUN_FAILED");
    // The same line under prose, with no command, still names nothing.
    expect(ncclTestsAnalyzer.detect(["It crashed:", old[1]].join("\n"))).toBeLessThan(0.5);
  });

  // Since 2019 the harness prints `Test` before the failure (TESTCHECK in src/common.h): words no other program prints,
  // so one such line quoted in prose is nccl-tests' (shape seen in a cluster to-do list committed to a public
  // repository, index-file 60661718270: one `Test CUDA failure … 'uncorrectable ECC error encountered'` line).
  test("one such line alone, in other text, names nccl-tests, and nothing it does not say", () => {
    const prose = ["The job failed with:", FAILED[2], "and we retried on another node."].join("\n");
    const e = analyzeText("notes.md", prose);
    expect(e.kind).toBe("nccl_tests");
    const d = e.data as { collective: string | null; rows: unknown[] };
    expect([d.collective, d.rows.length]).toEqual([null, 0]);
  });
});

// Open MPI's signal handler (`[host:pid] *** Process received signal ***`, opal/util/stacktrace.c in
// https://github.com/open-mpi/ompi) and glibc's assertion report under the `*_perf` command that crashed. Shapes seen at
// https://github.com/NVIDIA/nccl/issues/291 and https://github.com/NVIDIA/nccl-tests/issues/295; hosts and frames ours.
test("the crash of the *_perf program typed above it is nccl-tests output: no row, a failure, the command's collective", () => {
  const text = [
    "`mpirun -hostfile hosts --mca mtl ofi -x NCCL_DEBUG=INFO ./build/all_reduce_perf -b 4 -e 4 -g 1`",
    "```",
    "[gpu-q:4133] mtl_ofi_endpoint.h:49: *** The Open MPI OFI MTL is aborting the MPI job (via exit(3)).",
    "all_reduce_perf: prov/util/src/util_mem_monitor.c:177: ofi_monitor_cleanup: Assertion `dlist_empty(&monitor->list)' failed.",
    "[gpu-q:4133] *** Process received signal ***",
    "[gpu-q:4133] Signal: Aborted (6)",
    "[gpu-q:4133] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f3a2c41a520]",
    "```",
  ].join("\n");
  const e = analyzeText("crash.md", text);
  expect(e.kind).toBe("nccl_tests");
  expect(e.data).toMatchObject({ collective: "all_reduce", rows: [] });
  expect(e.findings.map((f) => f.code)).toContain("NCCL_TESTS_RUN_FAILED");
});

// One rank's `HOST: Test CUDA failure common.cu:N '…'` and the ` .. HOST pid N: Test failure common.cu:N` TESTCHECK
// prints on the failed call's way out (src/common.h of https://github.com/NVIDIA/nccl-tests), under `# Using devices`
// and a launcher's abort: no command line, no banner. Shape seen at https://github.com/NVIDIA/nccl-tests/issues/338;
// host, pid and line numbers here our own.
test("one rank's failure and its way-out line name nccl-tests with no command line", () => {
  const e = analyzeText(
    "issue.md",
    [
      "I ran the perf test between two VMs and got this error:",
      "",
      "# Using devices",
      "vm-b2: Test CUDA failure common.cu:1012 'system not yet initialized'",
      " .. vm-b2 pid 5520: Test failure common.cu:921",
      "--------------------------------------------------------------------------",
      "Primary job  terminated normally, but 1 process returned",
      "a non-zero exit code. Per user-direction, the job has been aborted.",
    ].join("\n"),
  );
  expect(e.kind).toBe("nccl_tests");
});

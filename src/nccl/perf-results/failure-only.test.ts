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

  test("one such line alone, in other text, does not name nccl-tests", () => {
    const prose = ["The job failed with:", FAILED[2], "and we retried on another node."].join("\n");
    expect(ncclTestsAnalyzer.detect(prose)).toBeLessThan(0.5);
  });
});

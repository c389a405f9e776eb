import { describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { analyzeTranscript } from "../../analyze/index.js";
import { main } from "../../cli/main.js";

// nccl-tests prints `# nThread …`, one `#  Rank N Group G Pid P on HOST device D [BUS] NAME` line per rank and the
// column header before the first size runs (src/common.cu); a paste that stops there is a run that hung or died.
describe("an nccl-tests output with its header and no result row", () => {
  test("is the classic hang: an error naming the ranks, hosts and GPUs, and the NCCL log as the next look (exit 1)", async () => {
    const io = captureIo();
    const code = await main(["analyze", "fixtures/nccl-tests/allreduce-2node-header-only-hang.txt", "-o", "json"], io);
    expect(code).toBe(1);
    const [entry] = JSON.parse(io.out);
    expect(entry.kind).toBe("nccl_tests");
    expect(entry.data).toMatchObject({
      collective: "all_reduce",
      nranks: 16,
      hosts: ["gpu-node-1", "gpu-node-2"],
      rows: [],
    });
    const f = entry.findings.find((x: { code: string }) => x.code === "NCCL_TESTS_NO_RESULTS");
    expect(f.severity).toBe("error");
    expect(f.message).toMatch(
      /16 ranks on gpu-node-1, gpu-node-2.*no result row: the run produced no results. It hung or died/,
    );
    expect(f.fix).toMatch(/NCCL_DEBUG=INFO/);
    expect(f.fix).toMatch(/NCCL_IB_TIMEOUT/);
  });
});

// The column header under the command that ran one of nccl-tests' programs, with no banner and no row: a run that
// printed nothing more (the rest of the paste a compiler's warnings). Shape seen at
// https://github.com/ROCm/rccl/issues/1072; the command, the warning and the numbers here are our own.
test("the column header under an nccl-tests program's command, and no row, is nccl-tests output with no result", async () => {
  const text = [
    "Running the tests on our box always prints these warnings:",
    "",
    "all_reduce_perf -g 1 -n 20 -b 4M -e 1G -f 2",
    "#                                                       out-of-place                       in-place",
    "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error",
    "#        (B)    (elements)                       (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
    "Launch params (512, 1, 1) are larger than launch bounds (256) for kernel deltaKern please recompile",
    "Launch params (512, 1, 1) are larger than launch bounds (256) for kernel deltaKern please recompile",
  ].join("\n");
  const [entry] = analyzeTranscript("issue.md", text);
  expect(entry?.kind).toBe("nccl_tests");
  expect(entry?.data).toMatchObject({ collective: "all_reduce", rows: [] });
  // The words alone are not nccl-tests output.
  expect(
    analyzeTranscript("notes.md", "We ran all_reduce_perf -g 1 on every node.\nIt printed nothing.\n")[0]?.kind,
  ).toBe("unknown");
});

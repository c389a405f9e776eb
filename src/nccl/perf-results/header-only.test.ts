import { describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
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

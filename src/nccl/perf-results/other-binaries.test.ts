import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";
import { seedInventory } from "../../checks/testing/seed-inventory.js";
import { analyzeNcclTests } from "./analyzer.js";
import { busBwFactor } from "./types.js";

const capture = (name: string) => readFileSync(`fixtures/captures/nccl_tests/${name}`, "utf8");
const codes = (fs: { code: string }[]) => fs.map((f) => f.code);

// gather/scatter print busbw = algbw × (n−1)/n; hypercube counts the n−1 chunks in algbw and prints busbw = algbw
// (GatherGetBw, ScatterGetBw, HyperCubeGetBw in https://github.com/NVIDIA/nccl-tests/tree/master/src).
describe("gather_perf, scatter_perf and hypercube_perf", () => {
  test("bus factors as those binaries print them", () => {
    expect(busBwFactor("gather", 16)).toBeCloseTo(15 / 16);
    expect(busBwFactor("scatter", 8)).toBeCloseTo(7 / 8);
    expect(busBwFactor("hypercube", 16)).toBe(1);
  });

  test("a hypercube table is not a busbw mismatch", () => {
    const r = analyzeNcclTests(capture("hypercube-1node-8gpu.txt"));
    expect(r.data?.collective).toBe("hypercube");
    expect(codes(r.findings)).not.toContain("NCCL_TESTS_BUSBW_MISMATCH");
  });

  test("across nodes with the node's NICs known, no figure is made up: not judged, and why", () => {
    const r = analyzeNcclTests(capture("gather-2node-root0.txt"), { inventory: seedInventory() });
    const f = r.findings.find((x) => x.code === "NCCL_TESTS_NO_EXPECTATION");
    expect(f?.message).toMatch(/no traffic model for gather across nodes/);
    expect(f?.fix).toMatch(/--expect/);
    expect(codes(r.findings)).not.toContain("NCCL_TESTS_BANDWIDTH_OK");
    // Without the NICs, the usual reason.
    const bare = analyzeNcclTests(capture("gather-2node-root0.txt")).findings.find(
      (x) => x.code === "NCCL_TESTS_NO_EXPECTATION",
    );
    expect(bare?.message).toMatch(/nothing says what these nodes' NICs allow/);
  });
});

// The banner nccl-tests prints first (src/common.cu: `# nccl-tests version %s nccl-headers=%d nccl-library=%d`, then
// `# Collective test starting: %s`): pasted alone it names the run, and is never a result.
describe("a banner-only paste", () => {
  test("gives the collective and the rank count it names, and says the run produced no results (exit-worthy error)", () => {
    const e = analyzeText("banner.txt", capture("banner-thread-line-8gpu.txt"));
    expect(e.kind).toBe("nccl_tests");
    expect(e.data).toMatchObject({ collective: "all_gather", nranks: 8, rows: [] });
    const f = e.findings.find((x) => x.code === "NCCL_TESTS_NO_RESULTS");
    expect(f?.severity).toBe("error");
    expect(f?.message).toMatch(/produced no results/);
  });

  test("the starting line alone is recognised", () => {
    const e = analyzeText("banner.txt", "# Collective test starting: alltoall_perf\n");
    expect(e.kind).toBe("nccl_tests");
    expect((e.data as { collective: string }).collective).toBe("alltoall");
    expect(codes(e.findings)).toEqual(["NCCL_TESTS_NO_RESULTS"]);
  });
});

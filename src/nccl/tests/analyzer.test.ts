import { describe, expect, test } from "vitest";
import { fixtureText } from "../../../test/support/fixtures.js";
import { seedInventory } from "../../../test/support/nccl-inventory.js";
import { analyzeNcclTests, ncclTestsAnalyzer } from "./analyzer.js";

const perf = (name: string) => fixtureText("nccl-tests", name);
const codes = (fs: { code: string }[]) => fs.map((f) => f.code);

describe("2-node all_reduce on 8×A100 per node", () => {
  test("~185 GB/s passes against the seed node's 8×HDR (baseline 187–192, problem below 180)", () => {
    const r = analyzeNcclTests(perf("allreduce-2node-a100-hdr-185.txt"), { inventory: seedInventory() });
    expect(r.data).toMatchObject({
      collective: "all_reduce",
      nranks: 16,
      hosts: ["gpu-node-1", "gpu-node-2"],
      gpus: ["NVIDIA A100-SXM4-80GB"],
      avgBusBw: 72.2653,
      peak: { bytes: 8589934592, busbw: 185.47 },
      largeMessage: { bytes: 8589934592, busbw: 185.47 },
    });
    expect(r.data?.rows).toHaveLength(31);
    expect(r.data?.rows[0]).toMatchObject({ bytes: 8, count: 2, type: "float", redop: "sum", root: -1 });
    expect(r.data?.baseline?.id).toBe("a100x8-hdrx8");
    const ok = r.findings.find((f) => f.code === "NCCL_TESTS_BANDWIDTH_OK");
    expect(ok?.message).toMatch(/185\.5 GB\/s \(at 8 GiB\).*problem below 180 GB\/s.*nccl#812/);
    expect(r.findings.filter((f) => f.severity !== "info")).toEqual([]);
  });

  test("the average (72 GB/s) is not what is judged; without a node or --expect the baselines are listed", () => {
    const r = analyzeNcclTests(perf("allreduce-2node-a100-hdr-185.txt"));
    const f = r.findings.find((x) => x.code === "NCCL_TESTS_NO_EXPECTATION");
    expect(f?.message).toMatch(/185\.5 GB\/s at 8 GiB was not judged.*8×A100 \+ 8×HDR.*187–192/);
  });

  test("--expect 200 → 185 is above 90% of it: pass", () => {
    const r = analyzeNcclTests(perf("allreduce-2node-a100-hdr-185.txt"), { expectGBps: 200 });
    expect(codes(r.findings)).toContain("NCCL_TESTS_BANDWIDTH_OK");
  });

  test("~9 GB/s across nodes → error with the socket-fallback hint, and below the 8×HDR baseline", () => {
    const r = analyzeNcclTests(perf("allreduce-2node-socket-9.txt"), { inventory: seedInventory() });
    const socket = r.findings.find((f) => f.code === "NCCL_TESTS_SOCKET_SUSPECTED");
    expect(socket?.severity).toBe("error");
    expect(socket?.message).toMatch(/9\.\d GB\/s across 2 nodes is TCP-socket speed.*socket fallback\?/);
    expect(codes(r.findings)).toContain("NCCL_TESTS_BANDWIDTH_LOW");
  });

  test("the same run with NCCL INFO lines (run.log) explains the low number with the log verdict", () => {
    const r = analyzeNcclTests(perf("allreduce-2node-socket-run.txt"), { inventory: seedInventory() });
    expect(r.data?.log?.verdict).toBe("socket");
    const low = r.findings.find((f) => f.code === "NCCL_TESTS_BANDWIDTH_LOW");
    expect(low?.message).toMatch(/The NCCL log says: socket \(TCP sockets — RDMA not used\)/);
    expect(codes(r.findings)).toEqual(expect.arrayContaining(["NCCL_LOG_SOCKET", "NCCL_WARN_NO_IB_DEVICE"]));
    expect(r.data?.rows).toHaveLength(31);
  });

  test("a verdict given by the caller explains it too", () => {
    const r = analyzeNcclTests(perf("allreduce-2node-socket-9.txt"), { expectGBps: 180, logVerdict: "rdma_no_gdr" });
    expect(r.findings.find((f) => f.code === "NCCL_TESTS_BANDWIDTH_LOW")?.message).toMatch(/rdma_no_gdr/);
  });

  test("#wrong > 0 → error naming the sizes; out-of-bounds FAILED → error", () => {
    const r = analyzeNcclTests(perf("allreduce-2node-wrong.txt"));
    const f = r.findings.find((x) => x.code === "NCCL_TESTS_WRONG");
    expect(f?.severity).toBe("error");
    expect(f?.message).toMatch(/^7 row\(s\) report wrong elements.*128 MiB/);
    expect(codes(r.findings)).toContain("NCCL_TESTS_OUT_OF_BOUNDS");
  });

  test("busbw is recomputed from algbw × 2(n−1)/n; a doctored row is flagged", () => {
    const text = perf("allreduce-2node-a100-hdr-185.txt").replace("98.72  185.10", "98.72  197.44");
    const r = analyzeNcclTests(text);
    const f = r.findings.find((x) => x.code === "NCCL_TESTS_BUSBW_MISMATCH");
    expect(f?.message).toMatch(/1 row\(s\) have busbw ≠ algbw × 1\.875 \(all_reduce, 16 ranks\)/);
  });
});

describe("other collectives and formats", () => {
  test("alltoall with blank redop/root columns; expectation is one NIC", () => {
    const r = analyzeNcclTests(perf("alltoall-2node-blank-redop.txt"), { inventory: seedInventory() });
    expect(r.data?.collective).toBe("alltoall");
    expect(r.data?.rows[0]).toMatchObject({ bytes: 1024, count: 16, redop: null, root: null });
    expect(r.data?.expectation?.GBps).toBe(24);
    expect(r.data?.expectation?.source).toMatch(/single-NIC speed/);
    expect(codes(r.findings)).not.toContain("NCCL_TESTS_BUSBW_MISMATCH");
  });

  test("-J JSON report", () => {
    const text = perf("allreduce-2node-J.json");
    expect(ncclTestsAnalyzer.detect(text.slice(0, 65536))).toBeGreaterThan(0.9);
    const r = analyzeNcclTests(text, { inventory: seedInventory() });
    expect(r.data).toMatchObject({ collective: "all_reduce", nranks: 16, hosts: ["gpu-node-1", "gpu-node-2"] });
    expect(r.data?.rows[0]?.root).toBe(-1);
    expect(codes(r.findings)).toContain("NCCL_TESTS_BANDWIDTH_OK");
  });

  test("two runs concatenated → both kept, the larger judged", () => {
    const r = analyzeNcclTests(perf("alltoall-2node-blank-redop.txt") + perf("allreduce-2node-a100-hdr-185.txt"));
    expect(r.data?.runs.map((x) => x.collective)).toEqual(["alltoall", "all_reduce"]);
    expect(r.data?.collective).toBe("all_reduce");
  });

  test("duplicated headers from a non-MPI build → warning, no network judgement", () => {
    const r = analyzeNcclTests(perf("allreduce-nompi-duplicated.txt"));
    expect(codes(r.findings)).toContain("NCCL_TESTS_NOT_MPI");
    expect(codes(r.findings)).not.toContain("NCCL_TESTS_SOCKET_SUSPECTED");
  });

  test("mpirun --tag-output prefixes and N/A (-c 0) columns", () => {
    const text = perf("allreduce-2node-a100-hdr-185.txt")
      .split("\n")
      .map((l) => `[1,0]<stdout>:${l.replace(/ {6}0(\s|$)/g, "    N/A$1")}`)
      .join("\n");
    const r = analyzeNcclTests(text, { inventory: seedInventory() });
    expect(r.data?.rows).toHaveLength(31);
    expect(r.data?.rows[0]?.outOfPlace?.wrong).toBeNull();
    expect(codes(r.findings)).toContain("NCCL_TESTS_BANDWIDTH_OK");
  });

  test("no rows → a problem, not a crash", () => {
    const r = analyzeNcclTests("# nThread 1 nGpus 1\nrandom text\n");
    expect(r.data).toBeNull();
    expect(r.problems.map((p) => p.code)).toEqual(["nccl_tests.no_rows"]);
    expect(analyzeNcclTests("{ not json").problems.map((p) => p.code)).toContain("nccl_tests.bad_json");
  });

  test("detect prefers nccl-tests output over plain logs", () => {
    expect(ncclTestsAnalyzer.detect(perf("allreduce-2node-socket-run.txt"))).toBeGreaterThan(0.9);
    expect(ncclTestsAnalyzer.detect(fixtureText("nccl-logs", "roce-2node-gdr-2.18.txt"))).toBe(0);
  });
});

import { describe, expect, test } from "vitest";
import { fixtureText } from "../../../test/support/fixtures.js";
import { seedInventory } from "../../../test/support/nccl-inventory.js";
import { allReduceOutput } from "../../../test/support/nccl-tests-output.js";
import { analyzeNcclTests, MAX_RUNS_WITH_ROWS, ncclTestsAnalyzer } from "./analyzer.js";

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
    expect(ok?.message).toMatch(
      /185\.5 GB\/s \(at 8 GiB\).*problem below 180 GB\/s.*we measure 192 GB\/s AllReduce BusBW/,
    );
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
    // Judged against the node's own NICs: under a quarter of 8 × 200 Gb/s RDMA and no faster than one 200 Gb/s NIC.
    expect(socket?.message).toMatch(
      /9\.\d GB\/s across 2 nodes is under a quarter of what RDMA on these NICs allows and no more than one NIC.s line rate \(25 GB\/s\): TCP-socket speed, socket fallback\?/,
    );
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

describe("nccl-tests before 2.13: the `error` column (largest deviation) instead of #wrong", () => {
  test("a healthy 2.11 log: errors of 5e-07 on float are far inside 1e-05 × 15 ranks, nothing flagged", () => {
    const r = analyzeNcclTests(perf("allreduce-2node-2.11-ok.txt"), { inventory: seedInventory() });
    expect(r.problems).toEqual([]);
    expect(r.data).toMatchObject({ collective: "all_reduce", nranks: 16, hosts: ["gpu-node-1", "gpu-node-2"] });
    expect(r.data?.rows).toHaveLength(31);
    expect(r.data?.rows[0]).toMatchObject({ bytes: 8, type: "float", redop: "sum", root: null });
    expect(r.data?.rows.at(-1)?.outOfPlace).toEqual({
      timeUs: 87015,
      algbw: 98.72,
      busbw: 185.1,
      wrong: null,
      maxError: 5e-7,
    });
    expect(r.data?.outOfBounds).toEqual({ count: 0, ok: true });
    expect(codes(r.findings)).toContain("NCCL_TESTS_BANDWIDTH_OK");
    expect(r.findings.filter((f) => f.severity !== "info")).toEqual([]);
  });

  test("a 2.11 log whose 8 MiB row deviates by 1e+01 → error NCCL_TESTS_ERROR_DELTA naming 8 MiB, and its FAILED line", () => {
    const r = analyzeNcclTests(perf("allreduce-2node-2.11-error-delta.txt"));
    const f = r.findings.find((x) => x.code === "NCCL_TESTS_ERROR_DELTA");
    expect(f?.severity).toBe("error");
    expect(f?.message).toBe(
      "1 row(s) deviate from the expected result beyond nccl-tests' own tolerance (`error` column of nccl-tests < 2.13; " +
        "sizes 8 MiB): worst 1e+01 at 8 MiB (tolerance for float 1.5e-04 = 1e-05 × (16 ranks − 1)). The collective returned corrupted data.",
    );
    expect(f?.evidence).toMatchObject({ rows: 1, worst: { bytes: 8388608, maxError: 10, tolerance: 1.5e-4 } });
    expect(r.data?.outOfBounds).toEqual({ count: 16, ok: false });
    expect(codes(r.findings)).toContain("NCCL_TESTS_OUT_OF_BOUNDS");
    expect(codes(r.findings)).not.toContain("NCCL_TESTS_WRONG");
  });

  test("the same log cut before its summary lines is still judged by its rows", () => {
    const text = perf("allreduce-2node-2.11-error-delta.txt").replace(/^# Out of bounds.*\n/m, "");
    const r = analyzeNcclTests(text);
    expect(r.data?.outOfBounds).toBeNull();
    expect(codes(r.findings)).toEqual(expect.arrayContaining(["NCCL_TESTS_ERROR_DELTA"]));
    expect(codes(r.findings)).not.toContain("NCCL_TESTS_OUT_OF_BOUNDS");
  });

  test("a value within rounding of the tolerance is left to the run's own Out of bounds line", () => {
    // 16 ranks × float: tolerance 1.5e-04; `2e-04` may be 1.5e-04 (printed with one digit), `3e-04` is above it.
    const ok = perf("allreduce-2node-2.11-ok.txt");
    const at = (err: string) => ok.replace(/(139\.26 {2})5e-07/, `$1${err}`);
    expect(codes(analyzeNcclTests(at("2e-04")).findings)).not.toContain("NCCL_TESTS_ERROR_DELTA");
    expect(codes(analyzeNcclTests(at("3e-04")).findings)).toContain("NCCL_TESTS_ERROR_DELTA");
    expect(codes(analyzeNcclTests(at("inf")).findings)).toContain("NCCL_TESTS_ERROR_DELTA");
  });

  test("integer types must be exact; half tolerates 1e-02 per extra rank", () => {
    const ok = perf("allreduce-2node-2.11-ok.txt");
    const int32 = analyzeNcclTests(ok.replaceAll(" float ", " int32 ").replace(/(139\.26 {2})5e-07/, "$11e+00"));
    expect(int32.findings.find((f) => f.code === "NCCL_TESTS_ERROR_DELTA")?.message).toMatch(
      /worst 1e\+00 at 8 MiB \(int32 results must be exact\)/,
    );
    const half = ok.replaceAll(" float ", "  half ").replace(/(139\.26 {2})5e-07/, "$11e-01");
    expect(codes(analyzeNcclTests(half).findings)).not.toContain("NCCL_TESTS_ERROR_DELTA");
    expect(codes(analyzeNcclTests(half.replace(/(139\.26 {2})1e-01/, "$12e+00")).findings)).toContain(
      "NCCL_TESTS_ERROR_DELTA",
    );
  });

  // Tolerance per nccl-tests < 2.13 src/common.cu CheckData: 1e-5 per rank for float (https://github.com/NVIDIA/nccl-tests).
  test("without the rank list only a deviation beyond any run's float tolerance is judged; integers must be exact", () => {
    const bad = perf("allreduce-2node-2.11-error-delta.txt").replace(/^# {3}Rank.*\n/gm, "");
    // 1e+01 on a float sum is beyond the tolerance of a run of any size: still flagged without the rank list.
    expect(codes(analyzeNcclTests(bad).findings)).toContain("NCCL_TESTS_ERROR_DELTA");
    // 2e-04 would fail 2 ranks but passes a large run: with no rank list it is not judged.
    expect(codes(analyzeNcclTests(bad.replace("1e+01", "2e-04")).findings)).not.toContain("NCCL_TESTS_ERROR_DELTA");
    expect(codes(analyzeNcclTests(bad).findings)).toContain("NCCL_TESTS_OUT_OF_BOUNDS");
    expect(codes(analyzeNcclTests(bad.replaceAll(" float ", " int32 ")).findings)).toContain("NCCL_TESTS_ERROR_DELTA");
  });

  test("-c 0 prints N/A in the error column: nothing judged", () => {
    const text = perf("allreduce-2node-2.11-ok.txt").replace(/[0-9]e[-+]\d\d/g, "N/A");
    const r = analyzeNcclTests(text);
    expect(r.data?.rows[0]?.outOfPlace).toMatchObject({ wrong: null, maxError: null });
    expect(codes(r.findings)).not.toContain("NCCL_TESTS_ERROR_DELTA");
  });
});

describe("launcher noise around nccl-tests 2.18 output", () => {
  test("Open MPI's `1st MCA variable: …` and `7 more processes have sent help message …` are not table rows", () => {
    const text = [
      "  1st MCA variable: btl_tcp_if_include",
      "  2nd MCA variable: btl_tcp_if_exclude",
      "[h200-n03:20117] 7 more processes have sent help message help-mca-var.txt / mutually-exclusive-vars",
      allReduceOutput({ hosts: ["h200-n03", "h200-n04"], peakBusBw: 180 }),
    ].join("\n");
    const r = analyzeNcclTests(text);
    expect(r.problems ?? []).toEqual([]);
    expect(r.data?.rows.length).toBeGreaterThan(0);
  });

  test("a row cut after its size is still reported as not understood", () => {
    const r = analyzeNcclTests(`${allReduceOutput({ hosts: ["h200-n03", "h200-n04"], peakBusBw: 180 })}\n   1048576\n`);
    expect((r.problems ?? []).map((p) => p.code)).toContain("nccl_tests.bad_row");
  });
});

describe("other collectives and formats", () => {
  // 2 nodes × 8 GPUs × 8 HDR NICs: each rank's inter-node share is 1/2 (nccl-tests issue #130), so busbw ≈
  // 2·8·24/8 × 15/16 = 45 GB/s (src/nccl/perf-results/traffic.ts), not 8 × NIC and not 1 × NIC.
  test("alltoall with blank redop/root columns; the expectation follows alltoall's traffic (≈ 45 GB/s on 2 nodes)", () => {
    const r = analyzeNcclTests(perf("alltoall-2node-blank-redop.txt"), { inventory: seedInventory() });
    expect(r.data?.collective).toBe("alltoall");
    expect(r.data?.rows[0]).toMatchObject({ bytes: 1024, count: 16, redop: null, root: null });
    expect(r.data?.expectation?.GBps).toBeCloseTo(45, 1);
    expect(r.data?.expectation?.source).toMatch(/each rank sends 1\/2 of its bytes to other nodes/);
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

  test("no rows → a problem, not a crash; a thread line and no row → the run produced no results (error)", () => {
    const r = analyzeNcclTests("random text\n");
    expect(r.data).toBeNull();
    expect(r.problems.map((p) => p.code)).toEqual(["nccl_tests.no_rows"]);
    const header = analyzeNcclTests("# nThread 1 nGpus 1\nrandom text\n");
    expect(header.data?.rows).toEqual([]);
    expect(header.findings.map((f) => [f.code, f.severity])).toEqual([["NCCL_TESTS_NO_RESULTS", "error"]]);
    expect(analyzeNcclTests("{ not json").problems.map((p) => p.code)).toContain("nccl_tests.bad_json");
  });

  test("detect prefers nccl-tests output over plain logs", () => {
    expect(ncclTestsAnalyzer.detect(perf("allreduce-2node-socket-run.txt"))).toBeGreaterThan(0.9);
    expect(ncclTestsAnalyzer.detect(fixtureText("nccl-logs", "roce-2node-gdr-2.18.txt"))).toBe(0);
  });
});

describe("a soak of many runs back to back (a loop around all_reduce_perf)", () => {
  test("the first 64 runs keep their rows; later ones are judged as they end, listed without rows, and said so", () => {
    const hosts = ["gpu-node-1", "gpu-node-2"];
    const healthy = allReduceOutput({ hosts, peakBusBw: 185 });
    const slow = allReduceOutput({ hosts, peakBusBw: 40 });
    // Run 90 is slow: judged early, its finding still names it.
    const text = Array.from({ length: 100 }, (_, i) => (i === 89 ? slow : healthy)).join("");
    const r = analyzeNcclTests(text, { expectGBps: 180 });
    const data = r.data as { runs: { rows: unknown[]; rowsOmitted?: number }[]; rows: unknown[] };
    expect(data.runs).toHaveLength(100);
    expect(data.runs.slice(0, MAX_RUNS_WITH_ROWS).every((run) => run.rows.length > 0)).toBe(true);
    expect(data.runs.slice(MAX_RUNS_WITH_ROWS).every((run) => run.rows.length === 0 && run.rowsOmitted === 31)).toBe(
      true,
    );
    expect(data.rows.length).toBe(31); // the run at the top keeps its rows
    expect(r.problems.map((p) => p.code)).toContain("nccl_tests.rows_omitted");
    expect(r.findings.filter((f) => f.severity === "error").map((f) => f.subject)).toEqual(["run 90"]);
  });
});

describe("a run that died before its end is never judged a pass", () => {
  const captured = (name: string) => fixtureText("captures", `nccl_tests/${name}`);

  test("an all_reduce that hit 'an illegal memory access' after 15 rows → error NCCL_TESTS_RUN_FAILED quoting it", () => {
    const r = analyzeNcclTests(captured("died-cuda-error-midtable.txt"));
    const failed = r.findings.find((f) => f.code === "NCCL_TESTS_RUN_FAILED");
    expect(failed?.severity).toBe("error");
    expect(failed?.message).toMatch(/The run failed: "hx-08: Test CUDA failure .*illegal memory access/);
    expect(failed?.message).toMatch(/Only the 15 row\(s\) printed before it were measured/);
    expect(failed?.fix).toMatch(/NCCL_DEBUG=INFO/);
  });

  test("an alltoall killed by MPI_ABORT after a network error → the NCCL failure is named, not the harness trace", () => {
    const r = analyzeNcclTests(captured("died-mpi-abort-alltoall.txt"));
    const failed = r.findings.find((f) => f.code === "NCCL_TESTS_RUN_FAILED");
    expect(failed?.message).toMatch(/"node-c2: Test NCCL failure alltoall\.cu:72 'remote process exited/);
  });

  test("a whole run with its footer and no failure line → no NCCL_TESTS_RUN_FAILED", () => {
    const r = analyzeNcclTests(perf("allreduce-2node-a100-hdr-185.txt"), { inventory: seedInventory() });
    expect(codes(r.findings)).not.toContain("NCCL_TESTS_RUN_FAILED");
  });
});

// Before 2.13 the old `error` column printed a value for an in-place buffer that alltoall and sendrecv do not check
// (`reportErrors = in_place ? 0 : 1`, src/alltoall.cu in https://github.com/NVIDIA/nccl-tests): `1e+00` on every row
// beside an out-of-place `0e+00`, and the run's own `Out of bounds values : 0 OK` (shape seen in a table committed to
// https://github.com/microsoft/msccl-leaderboard). Rows ours.
describe("an in-place error column no check reads", () => {
  const row = (size: number, t: number) => {
    const alg = (size / t / 1e3).toFixed(2);
    return `${String(size).padStart(12)}  ${String(size / 2048).padStart(12)}     float           ${t.toFixed(1).padStart(8)}  ${alg.padStart(6)}  ${alg.padStart(6)}  0e+00  ${t.toFixed(1).padStart(8)}  ${alg.padStart(6)}  ${alg.padStart(6)}  1e+00`;
  };
  const rows = [row(2 ** 30, 64306.2), row(2 ** 31, 139982.4), row(2 ** 32, 272858.1)];

  test("cut before the run's own verdict: no wrong result is claimed from it", () => {
    const r = analyzeNcclTests(rows.join("\n"));
    expect(r.findings.map((f) => f.code)).not.toContain("NCCL_TESTS_ERROR_DELTA");
    expect(r.data?.wrongResults ?? null).toBeNull();
  });

  test("an out-of-place error off by a whole unit is still a wrong result", () => {
    const bad = rows.map((l, i) => (i === 1 ? l.replace("0e+00", "1e+00") : l));
    expect(analyzeNcclTests(bad.join("\n")).findings.map((f) => f.code)).toContain("NCCL_TESTS_ERROR_DELTA");
  });
});

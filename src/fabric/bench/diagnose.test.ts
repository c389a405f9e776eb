import { describe, expect, test } from "vitest";
import { busBwAt } from "../timing.js";
import type { BenchJob, FabricView, JobResult } from "../types.js";
import { diagnose } from "./diagnose.js";
import { buildBenchReport } from "./report.js";

// 12 nodes under two leaves, 8 HDR rails: a healthy pair at 190 GB/s, a rail at 23.75 GB/s.
const NODES = Array.from({ length: 12 }, (_, i) => `gpu-${String(i + 1).padStart(2, "0")}`);
const VIEW: FabricView = {
  nodes: NODES,
  leafOf: new Map(NODES.map((n, i) => [n, i < 6 ? "leaf-a" : "leaf-b"])),
  hcas: Array.from({ length: 8 }, (_, i) => `mlx5_${i + 1}`),
  lineRateGBps: 25,
};
const SIZES = [2 ** 26, 2 ** 28, 2 ** 30, 2 ** 32];
let id = 0;
const rows = (peak: number, ranks: number) => SIZES.map((bytes) => ({ bytes, busbw: busBwAt(bytes, peak, ranks) }));
const job = (round: number, kind: BenchJob["kind"], a: string, b: string): BenchJob => ({
  id: `r${round}-${++id}`,
  round,
  kind,
  nodes: [a, b],
  why: "test",
});
/** A pair test at `peak` GB/s (healthy ≈ 190, ± a little so the fleet has spread). */
const pairRun = (round: number, a: string, b: string, peak = 188 + (id % 5)): JobResult => ({
  job: job(round, "pair", a, b),
  ok: true,
  seconds: 32,
  tests: [{ hca: null, rows: rows(peak, 16) }],
});
/** A rail test: every HCA at 23.75 GB/s unless `slow` says otherwise. */
const railRun = (round: number, a: string, b: string, slow: Record<string, number> = {}): JobResult => ({
  job: job(round, "rails", a, b),
  ok: true,
  seconds: 33,
  tests: VIEW.hcas.map((hca) => ({ hca, rows: rows(slow[hca] ?? 23.5 + (id % 3) * 0.1, 2) })),
});
/** Round 1 over the 12 nodes; `slow` lowers the pairs it names. */
function roundOne(slow: Record<string, number> = {}): JobResult[] {
  const pairs: [string, string][] = [
    ["gpu-01", "gpu-02"],
    ["gpu-03", "gpu-07"],
    ["gpu-04", "gpu-08"],
    ["gpu-05", "gpu-06"],
    ["gpu-09", "gpu-10"],
    ["gpu-11", "gpu-12"],
  ];
  return pairs.map(([a, b]) => pairRun(1, a, b, slow[`${a}+${b}`]));
}
const kinds = (results: JobResult[]) =>
  diagnose(VIEW, results).verdicts.map((v) => `${v.kind} ${v.subject} ${v.confidence}`);

describe("fleet bench diagnosis: which node, rail or link the results point at, and how sure", () => {
  test("a healthy fleet → no verdict; every node proven good; the reference is the fleet median per size", () => {
    const d = diagnose(VIEW, roundOne());
    expect(d.verdicts).toEqual([]);
    expect(d.good.size).toBe(12);
    expect(d.pair.sizes.map((s) => s.bytes)).toEqual(SIZES);
    expect(d.pair.from).toBe("fleet");
    expect(d.pair.sizes.at(-1)!.medianGBps).toBeGreaterThan(185);
  });

  test("gpu-05↔gpu-06 slow in round 1 → both suspects (low), each to be re-tested rail by rail", () => {
    const d = diagnose(VIEW, roundOne({ "gpu-05+gpu-06": 80 }));
    expect(d.verdicts.map((v) => `${v.kind} ${v.subject} ${v.confidence}`)).toEqual([
      "suspect gpu-05 low",
      "suspect gpu-06 low",
    ]);
    expect(d.verdicts[0]!.retest).toEqual({ kind: "rails-with-good", node: "gpu-05" });
  });

  test("gpu-05 slow on every rail with gpu-01 (proven good, same leaf) → bad node, high; gpu-06 cleared by its own fast test", () => {
    const results = [
      ...roundOne({ "gpu-05+gpu-06": 80 }),
      railRun(2, "gpu-05", "gpu-01", Object.fromEntries(VIEW.hcas.map((h) => [h, 10]))),
      railRun(2, "gpu-06", "gpu-02"),
    ];
    expect(kinds(results)).toEqual(["node gpu-05 high"]);
    const v = diagnose(VIEW, results).verdicts[0]!;
    expect(v.observations.map((o) => `${o.partner} round ${o.round}`)).toEqual(["gpu-06 round 1", "gpu-01 round 2"]);
  });

  test("gpu-05's mlx5_3 at 8 GB/s, its other HCAs at full speed → bad rail gpu-05/mlx5_3, high, with the pair test as evidence", () => {
    const results = [
      ...roundOne({ "gpu-05+gpu-06": 60 }),
      railRun(2, "gpu-05", "gpu-01", { mlx5_3: 8 }),
      railRun(2, "gpu-06", "gpu-02"),
    ];
    expect(kinds(results)).toEqual(["rail gpu-05/mlx5_3 high"]);
  });

  test("one slow pair test against a proven-good partner only → bad node at medium confidence (a warning) until a rail test runs", () => {
    const results = [...roundOne({ "gpu-05+gpu-06": 80 }), railRun(2, "gpu-06", "gpu-02")];
    const d = diagnose(VIEW, results);
    expect(kinds(results)).toEqual(["node gpu-05 medium"]);
    const report = buildBenchReport(
      VIEW,
      { rounds: [], jobs: results.length, results, diagnosis: d, seconds: 0 },
      "adaptive",
      {
        seconds: 0,
        rounds: [],
        extraRoundSeconds: 0,
        assumptions: [],
      },
    );
    expect(report.found.nodes).toEqual([]);
    expect(report.findings[0]).toMatchObject({ code: "FLEET_BAD_NODE", severity: "warning", subject: "gpu-05" });
    expect(report.findings[0]!.fix).toContain("To confirm: run gpu-05 rail by rail");
  });

  test("leaf-b's nodes fast with each other, slow with leaf-a's every time → bad leaf-b uplink; no node blamed", () => {
    const results = [
      pairRun(1, "gpu-01", "gpu-07", 90),
      pairRun(1, "gpu-02", "gpu-08", 95),
      pairRun(1, "gpu-03", "gpu-09", 88),
      pairRun(1, "gpu-04", "gpu-05"),
      pairRun(1, "gpu-10", "gpu-11"),
      pairRun(2, "gpu-07", "gpu-10"),
      pairRun(2, "gpu-08", "gpu-11"),
      pairRun(2, "gpu-09", "gpu-12"),
      pairRun(2, "gpu-01", "gpu-04"),
      pairRun(2, "gpu-02", "gpu-05"),
      pairRun(2, "gpu-03", "gpu-06"),
    ];
    // Two leaves only: both look alike; the worse ratio wins and the other leaf's crossings are then explained.
    const verdicts = kinds(results);
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatch(/^uplink leaf-[ab] uplink high$/);
  });

  test("gpu-01↔gpu-02, both fast elsewhere, slow together twice → bad link, high; fast on the re-run → flaky, a warning", () => {
    const base = [
      pairRun(1, "gpu-01", "gpu-02", 70),
      pairRun(1, "gpu-03", "gpu-04"),
      pairRun(1, "gpu-05", "gpu-06"),
      pairRun(2, "gpu-01", "gpu-03"),
      pairRun(2, "gpu-02", "gpu-04"),
      pairRun(2, "gpu-05", "gpu-06"),
      pairRun(2, "gpu-07", "gpu-08"),
      pairRun(2, "gpu-09", "gpu-10"),
    ];
    expect(kinds(base)).toEqual(["link gpu-01↔gpu-02 medium"]);
    expect(kinds([...base, pairRun(3, "gpu-02", "gpu-01", 72)])).toEqual(["link gpu-01↔gpu-02 high"]);
    expect(kinds([...base, pairRun(3, "gpu-02", "gpu-01")])).toEqual(["flaky gpu-01↔gpu-02 medium"]);
  });

  test("a job with no result is listed as FLEET_JOB_FAILED, never dropped", () => {
    const results: JobResult[] = [
      ...roundOne(),
      { job: job(2, "rails", "gpu-01", "gpu-02"), ok: false, seconds: 600, reason: "never scheduled (Pending)" },
    ];
    const d = diagnose(VIEW, results);
    const report = buildBenchReport(
      VIEW,
      { rounds: [], jobs: results.length, results, diagnosis: d, seconds: 0 },
      "adaptive",
      {
        seconds: 0,
        rounds: [],
        extraRoundSeconds: 0,
        assumptions: [],
      },
    );
    expect(report.failedJobs).toEqual([
      {
        job: expect.stringMatching(/^r2-/),
        round: 2,
        nodes: ["gpu-01", "gpu-02"],
        reason: "never scheduled (Pending)",
      },
    ]);
    expect(report.findings.map((f) => f.code)).toEqual(["FLEET_JOB_FAILED"]);
  });
});

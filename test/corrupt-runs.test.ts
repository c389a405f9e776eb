/**
 * A run whose collective returned wrong data fails, whatever its bandwidth: `analyze`, `bench judge` and `fleet bench`
 * judge it by one list (src/nccl/perf-results/corruption.ts). nccl-tests ≥ 2.13 prints the wrong elements per row in
 * the `#wrong` columns and ends with `# Out of bounds values : N FAILED` when any check failed
 * (https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu, the `#wrong` header and the
 * "Out of bounds values" line). The fixtures are this project's own, written in that layout.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { estimateBudget } from "../src/fabric/bench/budget.js";
import { buildBenchReport } from "../src/fabric/bench/report.js";
import { runFleetBench } from "../src/fabric/bench/run-bench.js";
import type { BenchJob, Measure } from "../src/fabric/index.js";
import { DEFAULT_PAIR_SWEEP, DEFAULT_RAIL_SWEEP, parseJobLog, RAIL_MARKER } from "../src/fabric/index.js";
import { createPlanner } from "../src/fabric/plan/flat.js";
import { simulateFleet } from "../src/fabric/simulate/flat.js";
import { captureIo } from "./support/io.js";

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-corrupt-"));
const clean = readFileSync("fixtures/nccl-tests/allreduce-2node-a100-hdr-185.txt", "utf8");
const wrong = readFileSync("fixtures/nccl-tests/allreduce-2node-wrong.txt", "utf8");
/** The clean run with only its summary line saying the checks failed (#wrong columns all 0). */
const outOfBounds = clean.replace(/# Out of bounds values : 0 OK/, "# Out of bounds values : 8 FAILED");

async function cli(args: string[]) {
  const io = captureIo();
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

describe("bench judge fails a pair run that reports corrupted data", () => {
  test.each([
    ["#wrong 1024 in the large rows", wrong],
    ["Out of bounds values : 8 FAILED", outOfBounds],
  ])("%s → PAIR_RUN_CORRUPT, exit 1 (analyze fails the same file)", async (_what, text) => {
    const bad = join(dir, "gpu-1+gpu-2.txt");
    writeFileSync(bad, text);
    writeFileSync(join(dir, "gpu-3+gpu-4.txt"), clean);
    const judged = await cli(["bench", "judge", bad, join(dir, "gpu-3+gpu-4.txt"), "-o", "json"]);
    expect(judged.code).toBe(1);
    const report = JSON.parse(judged.out) as { findings: { code: string; subject: string }[]; pairs: unknown[] };
    expect(report.findings).toContainEqual(expect.objectContaining({ code: "PAIR_RUN_CORRUPT", subject: bad }));
    expect(report.pairs).toHaveLength(1); // the corrupt run is not a bandwidth measurement
    const analyzed = await cli(["analyze", bad]);
    expect(analyzed.code).toBe(1);
  });
});

const job = (kind: BenchJob["kind"]): BenchJob => ({
  id: "r1-1",
  round: 1,
  kind,
  nodes: ["gpu-01", "gpu-02"],
  why: "t",
});

describe("fleet bench fails a job whose launcher log reports corrupted data", () => {
  test("a pair job and a rail job with #wrong / out-of-bounds → not a measurement, corrupt", () => {
    for (const text of [wrong, outOfBounds]) {
      const pair = parseJobLog(job("pair"), text);
      expect(pair).toMatchObject({ ok: false, corrupt: true });
      const rails = parseJobLog(job("rails"), `${RAIL_MARKER}mlx5_1\n${clean}\n${RAIL_MARKER}mlx5_2\n${text}\n`);
      expect(rails).toMatchObject({ ok: false, corrupt: true });
      if (!rails.ok) expect(rails.reason).toMatch(/mlx5_2/);
    }
    expect(parseJobLog(job("pair"), clean).ok).toBe(true);
  });

  test("the report names the job as FLEET_JOB_CORRUPT, an error (not a warning-level missing result)", async () => {
    const sim = simulateFleet({ nodes: 4, seed: 3 });
    let first = true;
    // The first job's launcher log is a corrupt run, read back the way the cluster runner reads every log.
    const measure: Measure = async (jobs) => {
      const results = await sim.measure(jobs);
      return results.map((r) => {
        if (!first || r.job.kind !== "pair") return r;
        first = false;
        const parsed = parseJobLog(r.job, wrong);
        return parsed.ok ? r : { job: r.job, ok: false, seconds: 1, reason: parsed.reason, corrupt: true };
      });
    };
    const opts = {
      plan: "pairs" as const,
      concurrency: 8,
      gpusPerNode: 8,
      pairSweep: DEFAULT_PAIR_SWEEP,
      railSweep: DEFAULT_RAIL_SWEEP,
    };
    const run = await runFleetBench(sim.view, createPlanner("pairs", sim.view), measure, {
      maxRounds: 5,
      concurrency: 8,
    });
    const report = buildBenchReport(sim.view, run, "pairs", estimateBudget(sim.view, opts));
    expect(first).toBe(false);
    expect(report.findings).toContainEqual(expect.objectContaining({ code: "FLEET_JOB_CORRUPT", severity: "error" }));
    expect(report.failedJobs.some((f) => f.corrupt === true)).toBe(true);
  });
});

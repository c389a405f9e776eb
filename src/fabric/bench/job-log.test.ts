import { describe, expect, test } from "vitest";
import { simulateFleet } from "../simulate/flat.js";
import { type BenchJob, DEFAULT_RAIL_SWEEP } from "../types.js";
import { parseJobLog, RAIL_MARKER, railTestScript, renderJobLog } from "./job-log.js";

const job = (kind: BenchJob["kind"]): BenchJob => ({
  id: "r1-1",
  round: 1,
  kind,
  nodes: ["gpu-01", "gpu-02"],
  why: "t",
});

describe("bench job logs: what the launcher prints and how it is read back with the nccl-tests analyser", () => {
  test("a simulated pair and rail job, printed as nccl-tests text, read back to the same bandwidths", async () => {
    const sim = simulateFleet({ nodes: 8, badRails: 1, seed: 4 });
    for (const kind of ["pair", "rails"] as const) {
      const [r] = await sim.measure([job(kind)]);
      if (!r?.ok) throw new Error("simulated job failed");
      const parsed = parseJobLog(r.job, renderJobLog(r, 8));
      if (!parsed.ok) throw new Error(parsed.reason);
      expect(parsed.tests.map((t) => t.hca)).toEqual(r.tests.map((t) => t.hca));
      parsed.tests.forEach((t, i) => {
        expect(t.rows.map((x) => x.bytes)).toEqual(r.tests[i]!.rows.map((x) => x.bytes));
        t.rows.forEach((x, j) => {
          expect(x.busbw).toBeCloseTo(r.tests[i]!.rows[j]!.busbw, 1);
        });
      });
    }
  });

  test("a launcher log without result rows, or a rail section without rows → a reason, never a silent pass", () => {
    expect(parseJobLog(job("pair"), "ssh: connect to host gpu-02 port 22: Connection refused\n")).toEqual({
      ok: false,
      reason: "no nccl-tests result rows in the launcher's log",
    });
    expect(parseJobLog(job("rails"), `${RAIL_MARKER}mlx5_1\nNCCL WARN NET/IB : No device found.\n`)).toEqual({
      ok: false,
      reason: "no nccl-tests result rows for mlx5_1",
    });
  });

  test("the rail script runs one 2-rank test per HCA, GPU i on NCCL_IB_HCA==<hca i>, side by side, then prints each after its marker", () => {
    const script = railTestScript(["mlx5_1", "mlx5_2"], DEFAULT_RAIL_SWEEP, ["NCCL_DEBUG"]);
    expect(script).toContain("-np 2 -npernode 1");
    expect(script).toContain("-x CUDA_VISIBLE_DEVICES=1 -x NCCL_IB_HCA==mlx5_2");
    expect(script).toContain("all_reduce_perf -b 64M -e 1G -f 2 -g 1 -n 20 -w 5");
    expect(script.split("\n").filter((l) => l.endsWith("&"))).toHaveLength(2);
    expect(script).toContain(`echo '${RAIL_MARKER}mlx5_2'; cat "$out/1"`);
  });
});

import { describe, expect, test } from "vitest";
import { downNics } from "../plan/down-nics.js";
import { simulateFleet } from "../simulate/flat.js";
import { type BenchJob, DEFAULT_RAIL_SWEEP } from "../types.js";
import { formatNcclTestsOutput, parseJobLog, RAIL_MARKER, railTestScript, renderJobLog } from "./job-log.js";

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
    // A job that runs only some rails (the others idle) keeps each rail on its own GPU.
    const one = railTestScript(["mlx5_1", "mlx5_2", "mlx5_3"], DEFAULT_RAIL_SWEEP, [], [2]);
    expect(one.split("\n").filter((l) => l.endsWith("&"))).toEqual([
      expect.stringContaining("-x CUDA_VISIBLE_DEVICES=2 -x NCCL_IB_HCA==mlx5_3"),
    ]);
    expect(one).not.toContain("mlx5_1");
  });

  // The failure line nccl-tests prints when an NCCL call fails (NCCLCHECK in
  // https://github.com/NVIDIA/nccl-tests/blob/master/src/common.h: "%s: Test NCCL failure %s:%d '%s / %s'"); the
  // host, line number and last-error text are our own.
  test("one rail's test fails while the others ran: the job gives the others' rows and that rail as failed, and the NIC is named", () => {
    const rows = [
      { bytes: 2 ** 26, busbw: 23.1 },
      { bytes: 2 ** 27, busbw: 23.4 },
    ];
    const log = [
      `${RAIL_MARKER}mlx5_1\n${formatNcclTestsOutput(rows, ["gpu-01", "gpu-02"], 1)}`,
      `${RAIL_MARKER}mlx5_2\ngpu-01: Test NCCL failure common.cu:1146 'remote process exited or there was a network error / NET/IB : Got completion from peer with status=IBV_WC_RETRY_EXC_ERR(12)'\n`,
    ].join("");
    const parsed = parseJobLog(job("rails"), log);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.tests[0]).toMatchObject({ hca: "mlx5_1", rows: [{ bytes: 2 ** 26 }, { bytes: 2 ** 27 }] });
    expect(parsed.tests[1]).toMatchObject({
      hca: "mlx5_2",
      rows: [],
      failed: expect.stringMatching(/IBV_WC_RETRY_EXC_ERR/),
    });
    // gpu-02 ran on mlx5_2 with another partner: gpu-01's port is the one down.
    const view = {
      nodes: ["gpu-01", "gpu-02", "gpu-03"],
      leafOf: new Map(),
      hcas: ["mlx5_1", "mlx5_2"],
      lineRateGBps: 25,
    };
    const other = {
      job: { ...job("rails"), id: "r1-2", nodes: ["gpu-02", "gpu-03"] as const },
      ok: true as const,
      seconds: 1,
      tests: [{ hca: "mlx5_2", rows }],
    };
    const down = downNics(view, [{ job: job("rails"), ok: true, seconds: 1, tests: parsed.tests }, other]);
    expect(down.map((d) => `${d.node}/${d.hca}`)).toEqual(["gpu-01/mlx5_2"]);
  });
});

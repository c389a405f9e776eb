import { describe, expect, test } from "vitest";
import { simulateRailFleet } from "../simulate/fleet.js";
import type { BenchJob, JobResult } from "../types.js";
import { createRailPlanner, portsHonoured, wavesKeptApart } from "./planner.js";
import { runRailBench } from "./run.js";

// A RoCE NIC derives each RC QP's UDP source port from its QP numbers (rdma_get_udp_sport / rdma_calc_flow_label in
// https://github.com/torvalds/linux/blob/master/include/rdma/ib_verbs.h); nccl-tests has no option to set it
// (https://github.com/NVIDIA/nccl-tests/blob/master/README.md lists none), so a read-back port differs from the
// one a plan asked for unless the fabric honours requests (an idealised fabric or a test harness that sets them).
const hops = { uplink: "unit0/leaf0/uplink1", spinePort: "spine1/port9" };
const job = (sports: [number, number]): BenchJob => ({
  id: "r2-1",
  round: 2,
  kind: "rails",
  nodes: ["node-0001", "node-0300"],
  why: "test",
  routes: [{ rail: 0, sports, paths: [hops, hops] }],
});
const result = (asked: [number, number], seen: [number[], number[]]): JobResult => ({
  job: job(asked),
  ok: true,
  seconds: 30,
  tests: [{ hca: "mlx5_0", rows: [{ bytes: 1 << 26, busbw: 40 }] }],
  flows: [{ rail: 0, sports: seen }],
});

describe("whether the fabric used the ports the plan asked for", () => {
  test("every read-back port equal to the requested one (each QP of a rail): honoured", () => {
    expect(
      portsHonoured([
        result(
          [50001, 50002],
          [
            [50001, 50001],
            [50002, 50002],
          ],
        ),
      ]),
    ).toBe(true);
  });
  test("one QP's port differs from the request: the NIC chose it, not honoured", () => {
    const rs = [
      result([50001, 50002], [[50001], [50002]]),
      result(
        [50003, 50004],
        [
          [50003, 61234],
          [50004, 50004],
        ],
      ),
    ];
    expect(portsHonoured(rs)).toBe(false);
  });
  test("nothing read back (no collector) or no routes asked: nothing contradicts the plan", () => {
    const bare: JobResult = {
      job: job([50001, 50002]),
      ok: true,
      seconds: 30,
      tests: [{ hca: "mlx5_0", rows: [{ bytes: 1 << 26, busbw: 40 }] }],
    };
    const failed: JobResult = { job: job([1, 2]), ok: false, seconds: 5, reason: "NCCL could not connect" };
    expect(portsHonoured([bare, failed])).toBe(true);
  });
});

describe("where the NIC picks the ports, rounds after the sweep are group tests only", () => {
  // The simulator (src/fabric/simulate, which the planner does not import) derives each QP's port from its QP
  // numbers as Linux does and ignores the ports a job asks for: nothing can be steered through a chosen hop.
  test("no job asks to cross a hop alone after round 2; four group waves per round; the planted uplink is named", async () => {
    const sim = simulateRailFleet({
      nodes: 128,
      units: 4,
      rails: 2,
      oversubscription: 2,
      badUplinks: 1,
      noise: 0.03,
      seed: 7,
      nicPorts: true,
    });
    const planner = createRailPlanner(sim.view, sim.fabric, sim.oracle.trace, { seed: 7 });
    const run = await runRailBench(planner, sim.oracle.measure, { maxRounds: 4 });
    const later = run.results.filter((r) => r.job.round >= 3);
    expect(later.length).toBeGreaterThan(0);
    expect(later.filter((r) => r.job.why.startsWith("cross "))).toEqual([]);
    expect(new Set(later.filter((r) => r.job.round === 3).map((r) => r.job.wave))).toEqual(new Set([0, 1, 2, 3]));
    expect(run.state.spine.bad).toEqual(sim.truth.uplinks);
  }, 60_000);
});

describe("whether the runner kept a round's waves apart", () => {
  const at = (round: number, wave: number, startedAt: number, seconds: number): JobResult => ({
    job: { ...job([1, 2]), id: `r${round}-${wave}-${startedAt}`, round, wave },
    ok: true,
    seconds,
    tests: [],
    startedAt,
  });
  test("each wave starts after the previous one ended: kept apart", () => {
    expect(wavesKeptApart([at(2, 0, 0, 40), at(2, 0, 3, 35), at(2, 1, 40, 30), at(3, 0, 0, 50)])).toBe(true);
  });
  test("a job of wave 2 started while wave 1 still ran (all started together, with skew): not kept apart", () => {
    expect(wavesKeptApart([at(2, 0, 0, 40), at(2, 1, 7, 30)])).toBe(false);
  });
  test("overlap only across rounds, or no start times seen: nothing says the waves ran together", () => {
    expect(wavesKeptApart([at(2, 0, 0, 40), at(3, 1, 5, 30)])).toBe(true);
    expect(
      wavesKeptApart([{ ...job([1, 2]), wave: 1 }].map((j) => ({ job: j, ok: false, seconds: 3, reason: "x" }))),
    ).toBe(true);
  });
});

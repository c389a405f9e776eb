import { describe, expect, test } from "vitest";
import { expectedBusBw, type JobResult } from "../types.js";
import { lineRateMismatch } from "./line-rate.js";

const view = { hcas: ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"], lineRateGBps: 25 };
const pair = (i: number, busbw: number): JobResult => ({
  job: { id: `r1-${i}`, round: 1, kind: "pair", nodes: [`n${2 * i}`, `n${2 * i + 1}`], why: "" },
  ok: true,
  seconds: 10,
  tests: [
    {
      hca: null,
      rows: [
        { bytes: 2 ** 26, busbw: busbw * 0.8 },
        { bytes: 2 ** 32, busbw },
      ],
    },
  ],
});

describe("round 1 against the line rate hops are judged by", () => {
  test("pairs near rails × line × 95 % agree; a slow pair or two change nothing", () => {
    const near = expectedBusBw(view, "pair");
    expect(lineRateMismatch(view, [pair(1, near), pair(2, 0.98 * near), pair(3, 0.4 * near)])).toBeNull();
  });

  test("pairs twice as fast as the line rate allows: the line rate given is too low, and by how much", () => {
    // 4 × 400 Gb/s NICs (50 GB/s) measured while --line-rate says 25 GB/s.
    const measured = 4 * 50 * 0.95;
    const m = lineRateMismatch(view, [pair(1, measured), pair(2, measured), pair(3, 0.99 * measured)]);
    expect(m?.median).toBeCloseTo(measured, 1);
    expect(m?.impliedLineRate).toBeCloseTo(50, 0);
  });

  test("pairs at a third of it: too high; one result, or none, says nothing", () => {
    expect(lineRateMismatch(view, [pair(1, 30), pair(2, 31)])?.impliedLineRate).toBeLessThan(10);
    expect(lineRateMismatch(view, [pair(1, 30)])).toBeNull();
    expect(lineRateMismatch(view, [])).toBeNull();
  });
});

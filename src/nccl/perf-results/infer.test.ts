import { describe, expect, test } from "vitest";
import { ranksFromTable } from "./infer.js";
import { emptyRun, type PerfRow, type PerfRun } from "./types.js";

// all_reduce busbw = algbw × 2(n−1)/n, both printed to two decimals
// (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md); the rows below are made up in that shape.
function row(bytes: number, algbw: number, busbw: number): PerfRow {
  const perf = { timeUs: bytes / algbw / 1e3, algbw, busbw, wrong: 0, maxError: null };
  return { bytes, count: bytes / 4, type: "float", redop: "sum", root: -1, outOfPlace: perf, inPlace: perf, line: 0 };
}
function run(rows: PerfRow[]): PerfRun {
  return { ...emptyRun(), validation: true, rows };
}

describe("the rank count an all_reduce table implies", () => {
  test("a precise row gives the one count its ratio allows", () => {
    expect(ranksFromTable(run([row(1 << 20, 0.52, 0.97), row(1 << 30, 171.72, 300.51)]), "all_reduce")).toBe(8);
    expect(ranksFromTable(run([row(1 << 30, 95.41, 178.89)]), "all_reduce")).toBe(16);
  });

  test("busbw equal to algbw is two ranks", () => {
    expect(ranksFromTable(run([row(1 << 27, 9.61, 9.61)]), "all_reduce")).toBe(2);
  });

  test("rows too small to tell neighbouring counts apart say nothing rather than a guess", () => {
    // 0.29 → 0.54 fits 13 to 16 ranks or more; 2(n−1)/n for 256 and 251 ranks differ in the third decimal.
    expect(ranksFromTable(run([row(32768, 0.29, 0.54)]), "all_reduce")).toBeNull();
    expect(ranksFromTable(run([row(1 << 30, 39.54, 78.77)]), "all_reduce")).toBeNull();
  });
});

import { describe, expect, test } from "vitest";
import { inferCollective, ranksFromTable } from "./infer.js";
import { rankLinesCount } from "./judge.js";
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
    expect(ranksFromTable(run([row(1 << 16, 0.05, 0.09), row(1 << 30, 171.72, 300.51)]), "all_reduce")).toBe(8);
    expect(ranksFromTable(run([row(1 << 30, 95.41, 178.89)]), "all_reduce")).toBe(16);
  });

  // A figure damaged in a paste (a page's numbers edited by hand): a row whose ratio fits no count is no evidence,
  // and rows that allow different counts leave the count unsaid.
  test("the widest rows are asked together: a damaged one is left out, disagreeing ones say nothing", () => {
    const rows = [row(1 << 30, 96.45, 180.85), row(1 << 31, 97.33, 176.66)];
    expect(ranksFromTable(run(rows), "all_reduce")).toBe(16);
    expect(ranksFromTable(run([row(1 << 30, 96.45, 180.85), row(1 << 31, 171.72, 300.51)]), "all_reduce")).toBeNull();
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

// alltoall's busbw = algbw × (n−1)/n and its in-place #wrong is N/A (alltoall.cu `reportErrors = in_place ? 0 : 1`,
// https://github.com/NVIDIA/nccl-tests/blob/master/src/alltoall.cu; shape of a 64-rank H800 run seen at
// https://github.com/NVIDIA/nccl/issues/1531). Our own numbers.
describe("alltoall from its column layout at scale", () => {
  function alltoallRow(bytes: number, algbw: number, busbw: number): PerfRow {
    const perf = (wrong: number | null) => ({ timeUs: bytes / algbw / 1e3, algbw, busbw, wrong, maxError: null });
    return {
      bytes,
      count: bytes / 4 / 64,
      type: "float",
      redop: "none",
      root: -1,
      outOfPlace: perf(0),
      inPlace: perf(null),
      line: 0,
    };
  }

  test("a factor of 63/64 (0.984: above 0.97, provably below 1) with unchecked in-place results is alltoall", () => {
    expect(inferCollective(run([alltoallRow(1 << 30, 27.43, 27.0)])).name).toBe("alltoall");
  });

  test("a ratio whose printed digits allow 1, with the whole size in each rank's count, is sendrecv", () => {
    // sendrecv prints the count of the whole buffer: size = count × 4 (shape seen at
    // https://github.com/NVIDIA/nccl-tests/issues/214).
    expect(inferCollective(run([{ ...alltoallRow(1 << 20, 0.99, 0.99), count: (1 << 20) / 4 }])).name).toBe("sendrecv");
  });

  // 128 ranks: (n−1)/n = 0.992 prints as 1.00, so the ratio cannot tell alltoall from sendrecv; the count can, as
  // alltoall prints it per rank (AlltoAllGetCollByteCount). Shape of a 16-node H20 run seen at
  // https://github.com/NVIDIA/nccl/issues/1792; our own numbers.
  test("a ratio that prints as 1 with a per-rank count (size = 128 × count × 4) is alltoall", () => {
    const r = { ...alltoallRow(1 << 24, 1.25, 1.24), count: (1 << 24) / 4 / 128 };
    expect(inferCollective(run([r])).name).toBe("alltoall");
    expect(ranksFromTable(run([r]), "alltoall")).toBe(128);
  });

  // alltoall has never checked its in-place result (`args->reportErrors = in_place ? 0 : 1` in src/alltoall.cu since
  // the test was added in 2020), so since 2.13's `#wrong` column it prints N/A there: a count on every row is not its.
  test("an in-place #wrong counted on every row, a per-rank count at a ratio of 1: all_gather", () => {
    const r = alltoallRow(1 << 24, 1.25, 1.25);
    const checked = { ...r, count: (1 << 24) / 4 / 256, inPlace: r.outOfPlace };
    expect(inferCollective(run([checked])).name).toBe("all_gather");
    // nccl-tests 2.13.0 printed alltoall's in-place count for three weeks (a0a1491 made it N/A in 2.13.1).
    expect(inferCollective({ ...run([checked]), testsVersion: "2.13.0" }).candidates).toEqual([
      "all_gather",
      "alltoall",
    ]);
    // No check column read at all (validation off, or a table trimmed to its figures): either still fits.
    const none = {
      ...checked,
      outOfPlace: { ...r.outOfPlace!, wrong: null },
      inPlace: { ...r.outOfPlace!, wrong: null },
    };
    expect(inferCollective(run([none])).candidates).toEqual(["all_gather", "alltoall"]);
  });

  // Before nccl-tests 2.11 each test printed its own columns: all_gather.cu `size count type time …` (no op column),
  // alltoall.cu `size count type redop time …` with the op name "" on every row, and no test but these two printed
  // neither a reducing op nor a root (https://github.com/NVIDIA/nccl-tests/blob/1ae8cdc/src/alltoall.cu and
  // all_gather.cu). An 8-GPU old alltoall with validation off (shape seen in
  // https://github.com/microsoft/superbenchmark/blob/HEAD/tests/data/nccl_alltoall.log); our own numbers.
  test("the pre-2.11 layouts: a redop column blank on every row is alltoall, no redop column all_gather", () => {
    // The old `error` column: no #wrong count (null), the deviation in maxError.
    const checkedByError = (p: PerfRow["outOfPlace"]) => ({ ...p!, wrong: null, maxError: 0 });
    const old = (r: PerfRow): PerfRow => ({
      ...r,
      redop: null,
      root: null,
      count: r.bytes / 4 / 8,
      outOfPlace: checkedByError(r.outOfPlace),
      inPlace: checkedByError(r.outOfPlace),
    });
    const rows = [old(alltoallRow(1 << 30, 251.3, 219.89))];
    expect(inferCollective({ ...run(rows), redopColumn: true }).name).toBe("alltoall");
    expect(inferCollective({ ...run(rows), redopColumn: false }).name).toBe("all_gather");
    // A layout not read (a table with no header): both still fit.
    expect(inferCollective({ ...run(rows), redopColumn: null }).candidates).toEqual(["all_gather", "alltoall"]);
  });
});

describe("the rank count `#  Rank N` lines prove", () => {
  const rank = (n: number) => ({ rank: n, host: "kr-a", pid: null, device: n % 8, busId: "", gpu: "H100" });
  test("the highest rank index counts every rank below it (a paste of the last rank lines, or an elided middle)", () => {
    expect(rankLinesCount({ ...emptyRun(), ranks: [rank(71)] })).toBe(72);
    expect(rankLinesCount({ ...emptyRun(), ranks: [0, 1, 2, 61, 62, 63].map(rank) })).toBe(64);
    expect(rankLinesCount({ ...emptyRun(), ranks: [0, 1, 2, 3].map(rank) })).toBe(4);
    expect(rankLinesCount(emptyRun())).toBe(0);
  });
});

// reduce_scatter prints a count per rank (size = count × type size × ranks, ReduceScatterGetCollByteCount in
// src/reduce_scatter.cu of https://github.com/NVIDIA/nccl-tests), and its busbw is algbw × (n−1)/n: a count that is the
// whole size would be one rank, whose busbw is 0. Rows of a reducing op with no root, their figures too small for a
// ratio, and any busbw: all_reduce (shape seen at https://github.com/NVIDIA/nccl/issues/949; figures our own).
test("a reducing table with the whole size as its count and a busbw above 0 is all_reduce, not a one-rank reduce_scatter", () => {
  const tiny = (bytes: number, algbw: number, busbw: number) => row(bytes, algbw, busbw);
  expect(inferCollective(run([tiny(8, 0, 0), tiny(128, 0, 0.01), tiny(256, 0.01, 0.01)])).name).toBe("all_reduce");
  // A count of half the size fits reduce_scatter on two ranks: nothing decides between them.
  const half = (r: PerfRow) => ({ ...r, count: r.bytes / 8 });
  expect(inferCollective(run([tiny(8, 0, 0), tiny(128, 0, 0.01), tiny(256, 0.01, 0.01)].map(half))).name).toBeNull();
});

// The words that introduce a run decide between the collectives its table leaves, before a list of every test after
// it (a README's `replace scatter_perf with any of: all_gather_perf, …, gather_perf`; shape seen in a Slurm README
// committed to a public repository, index-file 5737010963).
test("the collective named before the table's rows, not the list after it, decides between scatter and gather", () => {
  const r = {
    ...run([]),
    namedBeforeRows: ["scatter"],
    namedInText: ["all_gather", "gather", "reduce", "scatter"],
  };
  const rooted = (bytes: number, busbw: number) => ({
    ...row(bytes, busbw / 0.9375, busbw),
    count: bytes / 64,
    redop: "none",
    root: 0,
  });
  r.rows = [rooted(1 << 20, 9.98), rooted(1 << 24, 57.29), rooted(1 << 27, 75.03)];
  expect(inferCollective(r)).toMatchObject({ name: "scatter", source: "ratio_and_text" });
  expect(inferCollective({ ...r, namedBeforeRows: [] }).name).toBeNull();
});

// nccl-tests prints the mean of every measurement's busbw with six significant digits (`# Avg bus bandwidth`,
// BenchTime's `bw[0] += busBw; bw_count[0]++` in https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu),
// and each measurement's time to a hundredth of a microsecond: where tiny sizes print algbw and busbw as 0.00–0.05,
// the footer over the mean of size ÷ time still gives the bus factor. Shape seen in one-size runs of a 32-rank
// multi-threaded test committed to a public repository (https://github.com/Panlichen/nccl-tests, nccl_all_reduce0.txt).
describe("the bus factor from a run's footer where its rows are too rounded", () => {
  // 32 ranks: all_reduce's factor 2 × 31 / 32 = 1.9375; reduce_scatter's 31 / 32 = 0.96875.
  // reduce_scatter prints the count per rank (size = count × 4 × 32).
  const tiny = (factor: number, timeUs: number, count = 512): PerfRun => {
    const algbw = 2048 / timeUs / 1e3;
    const perf = { timeUs, algbw: 0.03, busbw: Math.round(algbw * factor * 100) / 100, wrong: null, maxError: null };
    const r: PerfRow = {
      bytes: 2048,
      count,
      type: "float",
      redop: "sum",
      root: null,
      outOfPlace: perf,
      inPlace: null,
      line: 0,
    };
    return { ...emptyRun(), rows: [r], avgBusBw: Number((algbw * factor).toPrecision(6)) };
  };

  test("the footer's six digits tell all_reduce from reduce_scatter on one tiny row", () => {
    expect(inferCollective(tiny(1.9375, 76.78)).name).toBe("all_reduce");
    expect(inferCollective(tiny(0.96875, 76.78, 16)).name).toBe("reduce_scatter");
  });

  test("a run cut before its footer, or a measurement without its time, gives no factor from it", () => {
    const cut = { ...tiny(1.9375, 76.78), avgBusBw: null };
    cut.rows[0]!.outOfPlace!.busbw = 0;
    expect(inferCollective(cut).name).toBeNull();
    const untimed = tiny(1.9375, 76.78);
    untimed.rows[0]!.outOfPlace = { ...untimed.rows[0]!.outOfPlace!, timeUs: null, busbw: 0 };
    expect(inferCollective(untimed).name).toBeNull();
  });
});

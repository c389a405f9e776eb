import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";

// nccl-tests before its 2019 resync with NCCL 2.4 printed NCCL 1.x's `bytes N type op … res` header, times in ms and
// no `#` before its banner and footer: `nThread %d nGpus %d …` first, ` Avg bus bandwidth    : %g` last (src/common.cu
// and src/all_reduce.cu at b188a15, the first commit of https://github.com/NVIDIA/nccl-tests). NCCL 1.x's own tests
// print the same header with no banner and no footer. Shape seen at
// https://gist.github.com/cswinter/3bc2cbcc7c947e4a2736188dd6e74240; hosts and numbers are ours.
const banner =
  "nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 validation: 0";
const header = [
  "# Using devices",
  "#   Rank  0 on   gpu-w-a1 device  0 [0x00] Tesla V100-SXM2-16GB",
  "#   Rank  1 on   gpu-w-a2 device  0 [0x00] Tesla V100-SXM2-16GB",
  "#                                                 out-of-place                    in-place",
  "#      bytes             N    type      op     time  algbw  busbw      res     time  algbw  busbw      res",
];
const rows = [
  "     1048576        262144   float     sum    1.161   0.90   0.90      N/A    1.211   0.87   0.87      N/A",
  "     2097152        524288   float     sum    2.318   0.90   0.90      N/A    2.442   0.86   0.86      N/A",
];
const footer = [" Out of bounds values : 0 OK", " Avg bus bandwidth    : 0.8825 "];
const incomplete = (text: string) =>
  analyzeText("t.txt", `${text}\n`).problems?.some((p) => p.code === "nccl_tests.incomplete") ?? false;

describe("an early nccl-tests run (NCCL 1.x's header under nccl-tests' banner) is due its footer", () => {
  test("cut before its footer: stated as not finished", () => {
    expect(incomplete([banner, ...header, ...rows].join("\n"))).toBe(true);
  });

  test("with its footer: whole, the footer's average read", () => {
    const e = analyzeText("t.txt", `${[banner, ...header, ...rows, ...footer].join("\n")}\n`);
    expect(e.problems ?? []).toEqual([]);
    expect((e.data as { avgBusBw: number | null }).avgBusBw).toBe(0.8825);
  });

  test("NCCL 1.x's own test (no banner) never prints a footer: its rows are a whole run", () => {
    expect(incomplete([...header, ...rows].join("\n"))).toBe(false);
  });
});

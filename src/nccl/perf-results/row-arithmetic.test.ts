import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";
import { arithmeticRows } from "./analyzer.js";

// nccl-tests prints algbw as the size over the time (`algBw = (double)(count * typesize) / 1.0E9 / sec` in
// https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu, size = count × type size, × nranks for the
// gathering collectives), so a row's own numbers agree: 536870912 B in 2391.8 µs is 224.46 GB/s.
// Shape seen at https://github.com/skypilot-org/skypilot/pull/8019: a PR's test note keeps only the last two rows of
// the run, each behind the launcher's actor prefix and Open MPI's `[1,0]<stdout>:` tag. Hosts and numbers ours.
const tail = [
  "Both workers came up and the bus bandwidth looks as expected.",
  "```",
  "$ sky launch -c nccl-ib examples/nccl_test.yaml",
  "...",
  "(head, rank=0, pid=5120) [1,0]<stdout>:   536870912     134217728     float     sum      -1   2391.8  224.46  420.86      0   2402.1  223.50  419.06      0",
  "(head, rank=0, pid=5120) [1,0]<stdout>:  1073741824     268435456     float     sum      -1   4512.6  237.95  446.15      0   4506.0  238.30  446.81      0",
  "```",
];

describe("two rows behind a launcher's prefixes", () => {
  test("rows whose numbers obey the table's arithmetic are nccl-tests output", () => {
    const e = analyzeText("tail.txt", `${tail.join("\n")}\n`);
    expect(e.kind).toBe("nccl_tests");
    const d = e.data as { collective: string; rows: { outOfPlace: { busbw: number } }[] };
    expect(d.rows.map((r) => r.outOfPlace.busbw)).toEqual([420.86, 446.15]);
    // busbw / algbw = 1.875 = 2(n−1)/n with a sum redop: all_reduce over 16 ranks.
    expect(d.collective).toBe("all_reduce");
  });

  test("the same columns with numbers that do not agree are not taken for a run", () => {
    // A hand-made table in the same columns: algbw is not the size over the time.
    const made = tail.map((l) => l.replace("224.46", "24.46").replace("237.95", "37.95"));
    expect(arithmeticRows(made.join("\n"))).toBe(0);
    expect(analyzeText("made.txt", `${made.join("\n")}\n`).kind).toBe("unknown");
  });

  test("one row is not enough, and zeros prove nothing", () => {
    expect(analyzeText("one.txt", `${tail.slice(0, 5).join("\n")}\n`).kind).toBe("unknown");
    const zeros =
      "           8             2     float     sum      -1     5.70    0.00    0.00      0     5.54    0.00    0.00      0";
    expect(arithmeticRows([zeros, zeros].join("\n"))).toBe(0);
  });

  test("a very long line of digits is not searched", () => {
    expect(arithmeticRows("1 1 float 1 1 1 ".repeat(5000))).toBe(0);
  });
});

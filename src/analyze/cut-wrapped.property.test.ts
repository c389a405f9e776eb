import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { agrees, disagreements } from "./agreement.js";
import { CAPTURES, KNOWN_MISSES, readCorpus } from "./corpus.js";
import { WRAP_STACKS } from "./wrappers.js";

/**
 * Any capture × any wrapper stack × a cut at any line gives the facts of the clean capture, or fewer of them — never a
 * different value. A cut capture may lose facts (a `null`, an empty or shorter list, a smaller count, `unknown`), but
 * what it still states must agree with the whole capture: a network, a version, a collective read from half a paste is
 * the one the whole paste holds. The corpus facts are the oracle. Judgements that a cut may rightly change (problems,
 * findings, the verdict of a log cut before its connections, the averages of a table cut before its footer) are left
 * out; the facts themselves are not. `npm test` samples; KUBE_RDMA_FUZZ_RUNS runs longer.
 */
const CASES = readCorpus().filter((c) => !KNOWN_MISSES.has(c.file));
const TEXTS = CASES.map((c) => readFileSync(join(CAPTURES, c.file), "utf8"));
const RUNS = Number(process.env.KUBE_RDMA_FUZZ_RUNS ?? 0) > 0 ? Number(process.env.KUBE_RDMA_FUZZ_RUNS) * 10 : 250;

describe("a cut, wrapped capture states the clean capture's facts or fewer, never others", () => {
  test("agreement: the same, nothing, fewer", () => {
    expect(agrees(null, "IB")).toBe(true);
    expect(agrees(["2.18.3"], ["2.18.3", "2.19.1"])).toBe(true);
    expect(agrees(12, 25)).toBe(true);
    expect(agrees("Socket", "IB")).toBe(false);
    expect(agrees("Socket", "mixed")).toBe(true);
    expect(agrees(["2.18.4"], ["2.18.3"])).toBe(false);
    expect(agrees(30, 25)).toBe(false);
    expect(agrees(["mlx5_0/1:UNKNOWN:Unknown"], ["mlx5_0/1:ACTIVE:InfiniBand", "mlx5_1/1:DOWN:InfiniBand"])).toBe(true);
    expect(agrees(["mlx5_0/1:DOWN:InfiniBand"], ["mlx5_0/1:ACTIVE:InfiniBand"])).toBe(false);
    expect(agrees({ perNode: 1, gbps: 400 }, { perNode: 2, gbps: 400 })).toBe(true);
  });

  test(`${CASES.length} captures × ${WRAP_STACKS.length} wrapper stacks × a cut at any line`, () => {
    fc.assert(
      fc.property(
        fc.nat({ max: CASES.length - 1 }),
        fc.nat({ max: WRAP_STACKS.length - 1 }),
        fc.nat(),
        (ci, wi, cut) => {
          const lines = TEXTS[ci]!.split("\n");
          const kept = lines.slice(0, 1 + (cut % lines.length)).join("\n");
          const stack = WRAP_STACKS[wi]!;
          const text = stack.reduce((t, w) => w.apply(t), kept);
          expect({
            file: CASES[ci]!.file,
            stack: stack.map((w) => w.name),
            wrong: disagreements(CASES[ci]!, text),
          }).toEqual({ file: CASES[ci]!.file, stack: stack.map((w) => w.name), wrong: [] });
        },
      ),
      { numRuns: RUNS },
    );
  });
});

import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CAPTURES, KNOWN_MISSES, readCorpus, scoreCase } from "./corpus.js";
import { WRAP_STACKS } from "./wrappers.js";

/**
 * Metamorphic: a corpus capture behind any wrapper users' pastes carry (alone, or two stacked), with CRLF or indented,
 * gives the same key facts as the clean capture. The corpus facts are the oracle, so a clean capture that is right
 * stays right however it is wrapped. `npm test` samples; `npm run fuzz` (KUBE_RDMA_FUZZ_RUNS) runs longer.
 */
const CASES = readCorpus().filter((c) => !KNOWN_MISSES.has(c.file));
const TEXTS = CASES.map((c) => readFileSync(join(CAPTURES, c.file), "utf8"));
const RUNS = Number(process.env.KUBE_RDMA_FUZZ_RUNS ?? 0) > 0 ? Number(process.env.KUBE_RDMA_FUZZ_RUNS) * 10 : 150;

describe("a wrapped capture gives the same key facts as the clean one", () => {
  test(`${CASES.length} captures × ${WRAP_STACKS.length} wrapper stacks (alone and two deep)`, () => {
    fc.assert(
      fc.property(fc.nat({ max: CASES.length - 1 }), fc.nat({ max: WRAP_STACKS.length - 1 }), (ci, wi) => {
        const stack = WRAP_STACKS[wi]!;
        // Inner wrapper first: the second one wraps the first one's lines, as a launcher inside kubectl logs does.
        const text = stack.reduce((t, w) => w.apply(t), TEXTS[ci]!);
        const r = scoreCase(CASES[ci]!, text);
        expect({ crashed: r.crashed, misses: r.misses, stack: stack.map((w) => w.name) }).toEqual({
          crashed: null,
          misses: [],
          stack: stack.map((w) => w.name),
        });
      }),
      { numRuns: RUNS },
    );
  });
});

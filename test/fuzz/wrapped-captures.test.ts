import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { CAPTURES, KNOWN_MISSES, readCorpus, scoreCase } from "../../src/analyze/corpus.js";
import { WRAP_STACKS } from "../../src/analyze/wrappers.js";

/**
 * The long run of the metamorphic property, none sampled at random: every corpus capture behind every single wrapper,
 * and behind every `PAIR_SHARE`-th pair of wrappers, each capture taking a different share (capture i the pairs j with
 * (i + j) mod PAIR_SHARE = 0), so that every pair is tried on some 35 captures of every kind mix and the run stays
 * within a few minutes as the corpus grows (the sampled property in src/analyze tries other pairs on every run). Captures listed in KNOWN_MISSES miss a fact even clean (corpus.test.ts holds
 * them to that), so they are left out here too.
 */
const PAIR_SHARE = 30;

test("every capture behind every wrapper, and behind a thirtieth of the stacked pairs, gives the clean capture's key facts", () => {
  const wrong: string[] = [];
  let analyses = 0;
  const cases = readCorpus().filter((x) => !KNOWN_MISSES.has(x.file));
  cases.forEach((c, i) => {
    const clean = readFileSync(join(CAPTURES, c.file), "utf8");
    WRAP_STACKS.forEach((stack, j) => {
      if (stack.length > 1 && (i + j) % PAIR_SHARE !== 0) return;
      analyses++;
      const r = scoreCase(
        c,
        stack.reduce((t, w) => w.apply(t), clean),
      );
      if (r.crashed || r.misses.length > 0)
        wrong.push(`${c.file} behind ${stack.map((w) => w.name).join(" + ")}: ${r.crashed ?? r.misses.join("; ")}`);
    });
  });
  expect(wrong.slice(0, 40)).toEqual([]);
  expect(analyses).toBeGreaterThan((cases.length * WRAP_STACKS.length) / PAIR_SHARE);
  // About 86,000 analyses for 1,040 captures × 1,369 stacks: some 100 s on two idle cores.
}, 900_000);

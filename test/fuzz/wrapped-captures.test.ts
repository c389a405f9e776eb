import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { CAPTURES, KNOWN_MISSES, readCorpus, scoreCase } from "../../src/analyze/corpus.js";
import { WRAP_STACKS } from "../../src/analyze/wrappers.js";

/**
 * The long run of the metamorphic property, none drawn at random: every corpus capture behind a `SINGLE_SHARE`-th of
 * the single wrappers and a `PAIR_SHARE`-th of the stacked pairs, each capture taking a different share (capture i the
 * stacks j with (i + j + run) mod SHARE = 0, `run` the property tests' starting number for this commit), so that every
 * wrapper is tried on half the captures and every pair on some 25 of every kind mix, the other half and other pairs
 * on the next commit, and the run stays within a few minutes as the corpus grows (the sampled property in src/analyze
 * tries other pairs on every run). Captures listed in KNOWN_MISSES miss a fact even clean (corpus.test.ts holds them
 * to that), so they are left out here too.
 */
const SINGLE_SHARE = 2;
const PAIR_SHARE = 60;
const RUN = Math.abs(Number(process.env.FC_SEED) || 0);

test("every capture behind half the wrappers, and behind a sixtieth of the stacked pairs, gives the clean capture's key facts", () => {
  const wrong: string[] = [];
  let analyses = 0;
  const cases = readCorpus().filter((x) => !KNOWN_MISSES.has(x.file));
  cases.forEach((c, i) => {
    const clean = readFileSync(join(CAPTURES, c.file), "utf8");
    WRAP_STACKS.forEach((stack, j) => {
      if ((i + j + RUN) % (stack.length > 1 ? PAIR_SHARE : SINGLE_SHARE) !== 0) return;
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
  // About 64,000 analyses for 1,550 captures × 1,444 stacks.
}, 900_000);

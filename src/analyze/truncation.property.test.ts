import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CAPTURES, readCorpus } from "./corpus.js";
import { analyzeText } from "./index.js";

/**
 * Truncation at every line boundary: an nccl-tests output cut before its `# Avg bus bandwidth` footer is never a
 * clean result. It is either not analysed, or it says it is partial (`nccl_tests.incomplete`: the rows it has, the
 * largest size reached, "the run did not finish"). Footer shape: https://github.com/NVIDIA/nccl-tests#performance
 */
const NCCL_TESTS = readCorpus().filter((c) => c.file.startsWith("nccl_tests/") && c.file.endsWith(".txt"));

/** Cuts tried per capture: every line of a shorter one; of a longer one, as many spread over it. */
const CUTS = 60;
const RUN = Math.abs(Number(process.env.FC_SEED) || 0);

/**
 * The lines (1 … footer − 1) a capture is cut after: all of them, or CUTS spread evenly from an offset that the
 * property tests' starting number for this commit moves (another commit, other lines), and always the last one.
 */
function cutLines(footer: number): number[] {
  const all = footer - 1;
  if (all <= CUTS) return Array.from({ length: all }, (_, i) => i + 1);
  const step = all / CUTS;
  const offset = RUN % Math.max(1, Math.floor(step));
  const lines = Array.from({ length: CUTS }, (_, i) => 1 + Math.min(all - 1, Math.floor(i * step) + offset));
  return [...new Set([...lines, all])];
}

describe("a cut nccl-tests output is stated as partial, never a PASS", () => {
  test(`${NCCL_TESTS.length} nccl-tests captures cut before the footer (every line of a short one, ${CUTS} of a long one)`, () => {
    let cuts = 0;
    for (const c of NCCL_TESTS) {
      const lines = readFileSync(join(CAPTURES, c.file), "utf8").split("\n");
      const footer = lines.findIndex((l) => /Avg bus bandwidth/.test(l));
      if (footer < 0) continue;
      for (const n of cutLines(footer)) {
        const entry = analyzeText(c.file, lines.slice(0, n).join("\n"));
        cuts++;
        // Not analysed, a problem (cut rows), the hang finding (a header and no row) or the failure it printed before
        // any header: never a finished run.
        const hang = entry.findings.some(
          (f) => f.code === "NCCL_TESTS_NO_RESULTS" || f.code === "NCCL_TESTS_RUN_FAILED",
        );
        const said = entry.data === null || entry.kind !== "nccl_tests" || (entry.problems?.length ?? 0) > 0 || hang;
        expect(said, `${c.file} cut after line ${n} reads as a finished run`).toBe(true);
        const incomplete = entry.problems?.find((p) => p.code === "nccl_tests.incomplete");
        if (incomplete) expect(incomplete.message).toMatch(/did not finish.*largest size reached \d/);
      }
    }
    expect(cuts).toBeGreaterThan(100);
    // At most CUTS + 1 cuts of every capture, so its time grows with the corpus, not with its longest logs squared:
    // a limit for a hung analysis, not a speed target.
  }, 120_000);
});

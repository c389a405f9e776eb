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

describe("a cut nccl-tests output is stated as partial, never a PASS", () => {
  test(`${NCCL_TESTS.length} nccl-tests captures cut at every line before the footer`, () => {
    let cuts = 0;
    for (const c of NCCL_TESTS) {
      const lines = readFileSync(join(CAPTURES, c.file), "utf8").split("\n");
      const footer = lines.findIndex((l) => /Avg bus bandwidth/.test(l));
      if (footer < 0) continue;
      for (let n = 1; n < footer; n++) {
        const entry = analyzeText(c.file, lines.slice(0, n).join("\n"));
        cuts++;
        // Not analysed, a problem (cut rows), or the hang finding (a header and no row): never a finished run.
        const hang = entry.findings.some((f) => f.code === "NCCL_TESTS_NO_RESULTS");
        const said = entry.data === null || entry.kind !== "nccl_tests" || (entry.problems?.length ?? 0) > 0 || hang;
        expect(said, `${c.file} cut after line ${n} reads as a finished run`).toBe(true);
        const incomplete = entry.problems?.find((p) => p.code === "nccl_tests.incomplete");
        if (incomplete) expect(incomplete.message).toMatch(/did not finish.*largest size reached \d/);
      }
    }
    expect(cuts).toBeGreaterThan(100);
    // Every cut of every capture, so its time grows with the corpus (10 s alone here, twice that beside other files):
    // a limit for a hung analysis, not a speed target.
  }, 120_000);
});

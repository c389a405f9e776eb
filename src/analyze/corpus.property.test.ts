import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CAPTURES, readCorpus } from "./corpus.js";
import { analyzeText } from "./index.js";

const SOURCES = readCorpus().map((c) => readFileSync(join(CAPTURES, c.file), "utf8"));

/**
 * A corpus capture as pastes mangle it: cut anywhere, lines dropped or repeated, the leading `#` eaten by Markdown,
 * indentation stripped or added, CRLF endings, and lines of a second capture interleaved (several ranks, a launcher).
 */
const pasted = fc
  .record({
    src: fc.nat({ max: SOURCES.length - 1 }),
    other: fc.nat({ max: SOURCES.length - 1 }),
    cut: fc.nat(),
    drop: fc.array(fc.nat(), { maxLength: 5 }),
    dup: fc.array(fc.nat(), { maxLength: 3 }),
    stripHash: fc.boolean(),
    indent: fc.constantFrom("", "    ", "\t", "> "),
    crlf: fc.boolean(),
    interleave: fc.nat({ max: 6 }),
  })
  .map(({ src, other, cut, drop, dup, stripHash, indent, crlf, interleave }) => {
    const text = SOURCES[src]!;
    let lines = text.slice(0, cut % (text.length + 1)).split("\n");
    for (const d of drop) lines.splice(d % (lines.length || 1), 1);
    for (const d of dup) lines.splice(d % (lines.length || 1), 0, lines[d % (lines.length || 1)] ?? "");
    if (stripHash) lines = lines.map((l) => l.replace(/^#\s?/, ""));
    lines = lines.map((l) => indent + (indent === "" ? l.trimStart() : l));
    if (interleave > 0) {
      const foreign = SOURCES[other]!.split("\n");
      for (let i = 0; i < foreign.length; i += interleave + 1)
        lines.splice((i * 7) % (lines.length + 1), 0, foreign[i]!);
    }
    return lines.join(crlf ? "\r\n" : "\n");
  });

describe("mutated real captures never crash analyze", () => {
  test("cut, dropped, repeated, un-hashed, re-indented, CRLF and interleaved pastes → an entry, never a throw", () => {
    fc.assert(
      fc.property(pasted, (text) => {
        const entry = analyzeText("pasted.txt", text);
        // Recognised kinds carry data or say what they could not read; unknown inputs say how to capture one, or that
        // there was nothing in them.
        if (entry.kind === "unknown") {
          expect(entry.problems?.[0]?.code).toBe(text.trim() === "" ? "analyze.empty" : "analyze.unknown_kind");
        } else expect(entry.data !== null || (entry.problems?.length ?? 0) > 0).toBe(true);
        for (const f of entry.findings) expect(typeof f.code).toBe("string");
      }),
      { numRuns: 300 },
    );
  });
});

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { readCorpus } from "./corpus.js";
import { analyzeText } from "./index.js";

const ROOT = join(import.meta.dirname, "..", "..", "fixtures", "captures");
/** The corpus captures carry their own expected facts (corpus.test.ts). */
const IN_CORPUS = new Set(readCorpus().map((c) => c.file));

describe("every capture in fixtures/captures/<kind>/", () => {
  for (const kind of readdirSync(ROOT).filter((k) => statSync(join(ROOT, k)).isDirectory())) {
    for (const name of readdirSync(join(ROOT, kind)).filter((n) => !IN_CORPUS.has(`${kind}/${n}`))) {
      test(`${kind}/${name} is recognised as ${kind} and read`, () => {
        const entry = analyzeText(name, readFileSync(join(ROOT, kind, name), "utf8"));
        expect(entry.kind).toBe(kind);
        expect(entry.data).not.toBeNull();
        // Cut captures say what is missing; whole ones read cleanly.
        if (name.includes("truncated")) expect(entry.problems?.length ?? 0).toBeGreaterThan(0);
        else expect(entry.problems).toBeUndefined();
      });
    }
  }
});

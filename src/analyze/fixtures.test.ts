import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { analyzeText } from "./index.js";

const ROOT = join(import.meta.dirname, "..", "..", "fixtures", "captures");

describe("every capture in fixtures/captures/<kind>/", () => {
  for (const kind of readdirSync(ROOT)) {
    for (const name of readdirSync(join(ROOT, kind))) {
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

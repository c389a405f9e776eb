import fc from "fast-check";
import { expect } from "vitest";
import type { ParseResult } from "../../src/core/result.js";

/** Random text and fixtures with a slice replaced by random text: the parser never throws and never returns nothing. */
export function assertParserTotal<T>(parse: (text: string) => ParseResult<T>, base: string, numRuns = 200): void {
  const mutated = fc
    .tuple(fc.nat(base.length), fc.nat(base.length), fc.string({ maxLength: 40 }))
    .map(([a, b, s]) => base.slice(0, Math.min(a, b)) + s + base.slice(Math.max(a, b)));
  const linesShuffled = fc.shuffledSubarray(base.split("\n"), { minLength: 0 }).map((lines) => lines.join("\n"));
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 400 }), mutated, linesShuffled, fc.constant("")), (text) => {
      const r = parse(text);
      expect(r.ok || r.problems.length > 0).toBe(true);
    }),
    { numRuns },
  );
}

/** Hostile long lines (runs of spaces, letters, digits) that make backtracking regexes quadratic: must return. */
export function hostileLines(): string[] {
  const n = 200_000;
  return [
    " ".repeat(n),
    `0 ${" ".repeat(n)}x`,
    `| 0 ${" ".repeat(n)}| 00000000:53:00.0 Off | 0 |`,
    `${"a ".repeat(n / 2)}`,
    `mlx5_0 ${"1 ".repeat(n / 2)}`,
    `port 1 ${"(".repeat(n)} ==> eth0 (Up`,
    `GID[  1]:${" ".repeat(n)}::ffff:`,
  ];
}

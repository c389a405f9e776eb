import { describe, expect, test } from "vitest";
import { maxOf, minOf } from "./stats.js";

describe("minOf / maxOf over many values", () => {
  test("500,000 values: the same answer as a sort, no stack overflow (Math.min(...xs) throws there)", () => {
    const xs = Array.from({ length: 500_000 }, (_, i) => ((i * 7919) % 500_009) - 3);
    expect(() => Math.min(...xs)).toThrow(RangeError);
    const sorted = [...xs].sort((a, b) => a - b);
    expect(minOf(xs)).toBe(sorted[0]);
    expect(maxOf(xs)).toBe(sorted.at(-1));
  });
  test("nothing → NaN, not ±Infinity", () => {
    expect(minOf([])).toBeNaN();
    expect(maxOf([])).toBeNaN();
  });
});

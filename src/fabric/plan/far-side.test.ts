import { describe, expect, test } from "vitest";
import { binomialTail, FAR_SIDE_ALPHA, type FarTally, farSideBad } from "./far-side.js";

describe("binomial tail (the far side's test)", () => {
  // Worked by hand: P(X ≥ k) = Σ_{i ≥ k} C(n, i) p^i (1 − p)^(n − i).
  test("small cases by hand", () => {
    expect(binomialTail(3, 3, 0.5)).toBeCloseTo(0.125, 12); // 1/8
    expect(binomialTail(3, 2, 0.5)).toBeCloseTo(0.5, 12); // (3 + 1)/8
    expect(binomialTail(2, 1, 0.1)).toBeCloseTo(0.19, 12); // 1 − 0.9²
    expect(binomialTail(10, 10, 0.6)).toBeCloseTo(0.6 ** 10, 12);
    // n = 5, k = 4, p = 0.3: 5·0.3⁴·0.7 + 0.3⁵ = 0.02835 + 0.00243 = 0.03078
    expect(binomialTail(5, 4, 0.3)).toBeCloseTo(0.03078, 10);
  });
  test("edges: nothing asked, more than possible, certain and impossible rates", () => {
    expect(binomialTail(4, 0, 0.2)).toBe(1);
    expect(binomialTail(4, 5, 0.9)).toBe(0);
    expect(binomialTail(4, 2, 0)).toBe(0);
    expect(binomialTail(4, 2, 1)).toBe(1);
  });
});

describe("naming a spine port from the far side of a leaf whose paths are unknown", () => {
  const tally = (leaf: string, crossed: number, slow: number): FarTally => ({ leaf, crossed, slow, blames: [] });

  test("a port slow every time, beside ports slow half the time (collisions out of the leaf), is named; they are not", () => {
    const t = new Map<string, FarTally>();
    for (let i = 0; i < 16; i++) t.set(`spine${i % 8}/port${i}`, tally("unit1/leaf0", 24, i % 2 ? 13 : 11));
    t.set("spine0/port0", tally("unit1/leaf0", 24, 24));
    const named = farSideBad(t, 16);
    expect(named.map((x) => x.hop)).toEqual(["spine0/port0"]);
    // The other 15 ports: 8 slow 13 times, 7 slow 11 times, of 24 each.
    expect(named[0]!.baseRate).toBeCloseTo((8 * 13 + 7 * 11) / (15 * 24), 12);
    expect(named[0]!.p * 16).toBeLessThan(FAR_SIDE_ALPHA);
  });

  test("a port slow every time but crossed too few times for the base rate is not named (listed as not cleared instead)", () => {
    const t = new Map<string, FarTally>();
    for (let i = 1; i < 16; i++) t.set(`spine0/port${i}`, tally("unit1/leaf0", 20, 10));
    t.set("spine0/port0", tally("unit1/leaf0", 6, 6)); // 0.5⁶ × 16 = 0.25: chance explains it
    expect(farSideBad(t, 16)).toEqual([]);
  });

  test("each leaf has its own base rate: a busy leaf's ports do not make a quiet leaf's port look bad, nor the reverse", () => {
    const t = new Map<string, FarTally>();
    for (let i = 0; i < 8; i++) t.set(`spine0/port${i}`, tally("unit0/leaf0", 20, 19)); // busy: 95 % slow
    for (let i = 8; i < 16; i++) t.set(`spine0/port${i}`, tally("unit2/leaf0", 20, 1)); // quiet: 5 % slow
    t.set("spine0/port16", tally("unit2/leaf0", 12, 12));
    expect(farSideBad(t, 16).map((x) => x.hop)).toEqual(["spine0/port16"]);
  });

  test("a lone port with nothing to compare against is never named", () => {
    expect(farSideBad(new Map([["spine0/port0", tally("unit1/leaf0", 30, 30)]]), 16)).toEqual([]);
  });
});

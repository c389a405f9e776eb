import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { naturalCompare, naturallySorted, numericNames } from "./natural.js";

/** The rule written the plain way (regex tokens), to hold the fast version to. */
function reference(a: string, b: string): number {
  const ax = a.match(/\d+|\D+/g) ?? [];
  const bx = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(ax.length, bx.length); i++) {
    const x = ax[i]!;
    const y = bx[i]!;
    if (x === y) continue;
    if (/^\d/.test(x) && /^\d/.test(y)) {
      const d = Number(x) - Number(y);
      return d !== 0 ? d : x.length - y.length;
    }
    return x < y ? -1 : 1;
  }
  return ax.length - bx.length;
}

describe("natural order of device and interface names", () => {
  test("mlx5_2 before mlx5_10, eth9 before eth10, uverbs before uverbs0, 007 after 7", () => {
    const names = ["mlx5_10", "eth10", "mlx5_2", "eth9", "uverbs0", "uverbs", "mlx5_bond_0", "7", "007", "mlx5_1"];
    expect([...names].sort(naturalCompare)).toEqual([
      "7",
      "007",
      "eth9",
      "eth10",
      "mlx5_1",
      "mlx5_2",
      "mlx5_10",
      "mlx5_bond_0",
      "uverbs",
      "uverbs0",
    ]);
  });

  test("agrees in sign with the plain regex-token rule on any strings", () => {
    const s = fc.stringMatching(/^[a-c0-9_]{0,8}$/);
    fc.assert(
      fc.property(s, s, (a, b) => {
        expect(Math.sign(naturalCompare(a, b))).toBe(Math.sign(reference(a, b)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("naturallySorted: a listing in natural order, sorting only when it is not", () => {
  test("a snapshot's sorted listing comes back as the same array, unsorted sysfs order as a sorted copy", () => {
    const stored = ["link_downed", "mlx5_2", "mlx5_10", "symbol_error"];
    expect(naturallySorted(stored)).toBe(stored);
    const readdir = ["mlx5_10", "mlx5_2", "mlx5_1"];
    expect(naturallySorted(readdir)).toEqual(["mlx5_1", "mlx5_2", "mlx5_10"]);
    expect(readdir).toEqual(["mlx5_10", "mlx5_2", "mlx5_1"]);
  });

  test("always equals a plain sort by naturalCompare", () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-c0-9_]{0,6}$/), { maxLength: 12 }), (names) => {
        expect(naturallySorted(names)).toEqual([...names].sort(naturalCompare));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("numericNames: the numbered entries of a sysfs listing", () => {
  test("GID slots and ports in numeric order; other names and 007 (not slot 7's file) left out", () => {
    expect(numericNames(["10", "2", "lifespan", "0", "007", "", "1x"])).toEqual([0, 2, 10]);
  });
});

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { pairRounds } from "./schedule.js";

const key = (a: string, b: string) => [a, b].sort().join("↔");

describe("pair rounds: every node meets every other once, never two tests at a time", () => {
  test("4 nodes → 3 rounds of 2 disjoint pairs", () => {
    const rounds = pairRounds(["gpu-1", "gpu-2", "gpu-3", "gpu-4"]);
    expect(rounds.map((r) => r.pairs.length)).toEqual([2, 2, 2]);
    expect(rounds.every((r) => r.rests === null)).toBe(true);
    expect(new Set(rounds.flatMap((r) => r.pairs.map(([a, b]) => key(a, b)))).size).toBe(6);
  });

  test("5 nodes → 5 rounds of 2 pairs, each node resting once", () => {
    const rounds = pairRounds(["a", "b", "c", "d", "e"]);
    expect(rounds).toHaveLength(5);
    expect(rounds.map((r) => r.rests).sort()).toEqual(["a", "b", "c", "d", "e"]);
  });

  test("any node list: C(n,2) distinct pairs, disjoint within a round", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z0-9-]{1,6}$/), { minLength: 2, maxLength: 24 }), (nodes) => {
        const rounds = pairRounds(nodes);
        const all = rounds.flatMap((r) => r.pairs.map(([a, b]) => key(a, b)));
        expect(new Set(all).size).toBe(all.length);
        expect(all.length).toBe((nodes.length * (nodes.length - 1)) / 2);
        for (const r of rounds) {
          const busy = r.pairs.flat();
          expect(new Set(busy).size).toBe(busy.length);
        }
      }),
    );
  });

  test("one node, a duplicate or an empty name is refused with the reason", () => {
    expect(() => pairRounds(["gpu-1"])).toThrow(/at least 2 nodes/);
    expect(() => pairRounds(["gpu-1", "gpu-1"])).toThrow(/listed twice/);
    expect(() => pairRounds(["gpu-1", ""])).toThrow(/empty/);
  });
});

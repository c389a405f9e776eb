import { describe, expect, test } from "vitest";
import { buildRailFabric, leafOfHop, unitIndex } from "../model.js";
import { createRandom } from "../prng.js";
import { createRouter } from "../simulate/routing.js";
import { groupWave, unitPairs } from "./group-waves.js";
import { groupByLeaf } from "./hop-evidence.js";

describe("group tests at full load", () => {
  test("unit matchings: over n − 1 waves every pair of units meets exactly once; an odd count sits one out", () => {
    for (const units of [2, 4, 6]) {
      const met = new Map<string, number>();
      for (let w = 0; w < units - 1; w++) {
        const pairs = unitPairs(units, w);
        expect(pairs).toHaveLength(units / 2);
        expect(new Set(pairs.flat()).size).toBe(units);
        for (const [a, b] of pairs) met.set(`${a}-${b}`, (met.get(`${a}-${b}`) ?? 0) + 1);
      }
      expect(met.size).toBe((units * (units - 1)) / 2);
      expect([...met.values()].every((n) => n === 1)).toBe(true);
    }
    const odd = unitPairs(3, 0);
    expect(odd).toHaveLength(1);
    expect(unitPairs(1, 0)).toEqual([]);
  });

  test("a wave puts every good node in one job with a node of its matched unit, and fills each leaf's uplinks about twice", () => {
    // 4 units × 32 nodes, 2:1 → 16 uplinks per leaf; 32 flows up per leaf spread over them.
    const fabric = buildRailFabric({ nodes: 128, units: 4, rails: 2, oversubscription: 2, lineRateGBps: 50 });
    const unitOf = unitIndex(fabric);
    const router = createRouter(fabric, unitOf, 5);
    const ctx = { fabric, trace: router.path, rnd: createRandom(3) };
    const jobs = groupWave(ctx, {
      round: 2,
      wave: 0,
      matching: 1,
      good: fabric.nodes,
      rails: () => [0, 1],
      start: 0,
      why: "test",
    });
    expect(jobs).toHaveLength(64);
    const nodes = jobs.flatMap((j) => j.nodes);
    expect(new Set(nodes).size).toBe(128);
    const matched = new Set(unitPairs(4, 1).map(([a, b]) => `${a}-${b}`));
    for (const j of jobs) {
      const [u, v] = j.nodes.map((n) => unitOf.get(n)!).sort();
      expect(matched.has(`${u}-${v}`)).toBe(true);
    }
    // Where the requested ports are honoured, steering puts two flows on nearly every uplink (random ports would
    // leave about one in eight idle and load others four-fold: Poisson with mean 2).
    const load = new Map<string, number>();
    for (const j of jobs)
      for (const r of j.routes!) for (const p of r.paths) load.set(p.uplink!, (load.get(p.uplink!) ?? 0) + 1);
    expect(load.size).toBe(4 * 2 * 16);
    const two = [...load.values()].filter((n) => n === 2).length;
    expect(two / load.size).toBeGreaterThanOrEqual(0.95);
    expect(Math.max(...load.values())).toBeLessThanOrEqual(3);
    for (const h of load.keys()) expect(leafOfHop(fabric, h)?.side).toBe("uplink");
  });

  test("not-cleared hops grouped by the leaf a user would act on: uplinks, spine ports facing it, never crossed", () => {
    const fabric = buildRailFabric({ nodes: 16, units: 2, rails: 2, oversubscription: 2, lineRateGBps: 50 });
    // 8 nodes per unit → 4 uplinks per leaf over 4 spines, one cable each: spine s port (leaf index).
    const g = groupByLeaf(
      fabric,
      ["unit1/leaf0/uplink2", "unit0/leaf1/uplink0", "spine3/port2", "unit1/leaf0/uplink3"],
      new Set(["unit1/leaf0/uplink2"]),
      new Set(["unit1/leaf0"]),
      // What each hop carried: the spine port facing the leaf whose hash is unknown is placed from upstream, so its
      // load counts; that leaf's own uplinks cannot be placed, whatever the trace said they carried.
      new Map([
        ["unit0/leaf1/uplink0", { single: 0 }],
        ["spine3/port2", { single: 0.83 }],
        ["unit1/leaf0/uplink2", { single: 0.95 }],
      ]),
    );
    expect(g).toEqual([
      { leaf: "unit0/leaf1", uplinks: 1, spinePorts: 0, neverCrossed: 1, pathsUnknown: false, provenPct: 0 },
      { leaf: "unit1/leaf0", uplinks: 2, spinePorts: 1, neverCrossed: 2, pathsUnknown: true, provenPct: 0 },
    ]);
    // A leaf whose paths are known: the least its hops carried.
    const known = groupByLeaf(
      fabric,
      ["spine3/port2", "spine1/port2"],
      new Set(["spine3/port2", "spine1/port2"]),
      new Set(),
      new Map([
        ["spine3/port2", { single: 0.83 }],
        ["spine1/port2", { single: 0.71 }],
      ]),
    );
    expect(known).toEqual([
      { leaf: "unit1/leaf0", uplinks: 0, spinePorts: 2, neverCrossed: 0, pathsUnknown: false, provenPct: 71 },
    ]);
  });
});

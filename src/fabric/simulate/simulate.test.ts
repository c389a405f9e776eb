import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { maxMinRates } from "../fairshare.js";
import { type RailFabric, unitIndex } from "../model.js";
import { simulateRailFleet } from "./fleet.js";
import { createRouter } from "./routing.js";

/** Every module a file reaches through relative imports (static and dynamic), itself included. */
function importClosure(start: string): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)"(\.{1,2}\/[^"]+)\.js"/g)) {
      queue.push(resolve(dirname(file), `${m[1]}.ts`));
    }
  }
  return seen;
}

describe("the fabric simulator is written from physics, apart from any planner", () => {
  test("nothing it imports, directly or through other modules, is a planner, a diagnosis or their evidence", () => {
    const here = dirname(new URL(import.meta.url).pathname);
    const closure = importClosure(join(here, "fleet.ts"));
    const forbidden = [...closure].filter((f) =>
      /\/(plan|planner|diagnose|evidence|run-bench|spine-evidence|steer|report|catalogue)\.ts$|\/fabric\/plan\//.test(
        f,
      ),
    );
    expect(forbidden).toEqual([]);
    // The closure is real: it reached the fair-share and routing modules and the fabric model.
    expect([...closure].map((f) => f.slice(f.lastIndexOf("/src/")))).toEqual(
      expect.arrayContaining(["/src/fabric/fairshare.ts", "/src/fabric/simulate/routing.ts", "/src/fabric/model.ts"]),
    );
  });
});

describe("max-min fair sharing by progressive filling", () => {
  test("two flows on a 50 link share it 25/25; a third flow capped by its own 10 link leaves 40 to the others", () => {
    const cap = (l: string) => (l === "slow" ? 10 : 50);
    expect(maxMinRates([["a"], ["a"]], cap)).toEqual([25, 25]);
    const r = maxMinRates([["a"], ["a"], ["a", "slow"]], cap);
    expect(r[2]).toBeCloseTo(10);
    expect(r[0]).toBeCloseTo(20);
    expect(r[1]).toBeCloseTo(20);
  });

  test("the classic line network: one long flow over two links, one short flow on each → all get half", () => {
    const r = maxMinRates([["x", "y"], ["x"], ["y"]], () => 1);
    expect(r.map((v) => Math.round(v * 100) / 100)).toEqual([0.5, 0.5, 0.5]);
  });
});

describe("ECMP routing on a rail-optimised fabric", () => {
  const fabric: RailFabric = {
    layout: "rail-optimised",
    nodes: ["node-0001", "node-0002", "node-0003", "node-0004"],
    units: 2,
    rails: 8,
    spines: 4,
    uplinksPerLeaf: 8,
    lineRateGBps: 50,
    oversubscription: 1,
  };
  const router = createRouter(fabric, unitIndex(fabric), 7);

  test("inside a unit a flow stays on its rail's leaf; across units it takes one uplink and one spine port of its rail", () => {
    expect(router.path({ src: "node-0001", dst: "node-0002", rail: 3, sport: 50000 })).toEqual({
      uplink: null,
      spinePort: null,
    });
    const p = router.path({ src: "node-0001", dst: "node-0003", rail: 3, sport: 50000 });
    expect(p.uplink).toMatch(/^unit0\/leaf3\/uplink[0-7]$/);
    expect(p.spinePort).toMatch(/^spine[0-3]\/port\d+$/);
    // The spine port faces unit 1's rail-3 leaf: leaf index 1 × 8 + 3 = 11, two cables per spine → ports 22, 23.
    expect(Number(p.spinePort!.split("port")[1])).toBeGreaterThanOrEqual(22);
    expect(Number(p.spinePort!.split("port")[1])).toBeLessThanOrEqual(23);
  });

  test("the source port spreads flows over every uplink of the leaf", () => {
    const uplinks = new Set(
      Array.from(
        { length: 200 },
        (_, i) => router.path({ src: "node-0001", dst: "node-0004", rail: 0, sport: 49152 + i }).uplink,
      ),
    );
    expect(uplinks.size).toBe(8);
  });
});

describe("the simulated fleet answers only through results", () => {
  test("two flows hashed onto one uplink share it (congestion emerges); apart, each runs at line rate", async () => {
    const sim = simulateRailFleet({ nodes: 8, units: 2, rails: 1, oversubscription: 2, seed: 3 });
    const [a, b, c, d] = [sim.fabric.nodes[0]!, sim.fabric.nodes[4]!, sim.fabric.nodes[1]!, sim.fabric.nodes[5]!];
    // Find source ports that put a→b and c→d on the same uplink, then on different ones.
    const ports = Array.from({ length: 400 }, (_, i) => 49152 + i);
    const up = (src: string, dst: string, sport: number) => sim.oracle.trace({ src, dst, rail: 0, sport }).uplink;
    const p0 = ports[0]!;
    const same = ports.find((p) => up(c, d, p) === up(a, b, p0))!;
    const apart = ports.find((p) => up(c, d, p) !== up(a, b, p0))!;
    // The way back stays apart in both runs: only the forward flows differ.
    const back = ports.find((p) => up(d, c, p) !== up(b, a, p0))!;
    const job = (id: string, x: string, y: string, s: number, r = p0) => ({
      id,
      round: 1,
      kind: "rails" as const,
      nodes: [x, y] as const,
      why: "test",
      routes: [
        {
          rail: 0,
          sports: [s, r] as const,
          paths: [
            { uplink: null, spinePort: null },
            { uplink: null, spinePort: null },
          ] as const,
        },
      ],
    });
    const top = (r: Awaited<ReturnType<typeof sim.oracle.measure>>[number]) =>
      r.ok ? r.tests[0]!.rows.at(-1)!.busbw : 0;
    const shared = await sim.oracle.measure([job("1", a, b, p0), job("2", c, d, same, back)]);
    const separate = await sim.oracle.measure([job("1", a, b, p0), job("2", c, d, apart, back)]);
    expect(top(separate[0]!)).toBeGreaterThan(0.9 * 50 * 0.95);
    expect(top(shared[0]!)).toBeLessThan(0.6 * 50 * 0.95);
  });

  test("--bad-uplinks more than the fabric has → a clear error saying how many exist", () => {
    expect(() => simulateRailFleet({ nodes: 16, units: 2, rails: 2, oversubscription: 2, badUplinks: 999 })).toThrow(
      /--bad-uplinks 999 plants more bad uplinks than the fabric has: 2 unit\(s\) × 2 leaves × 4 uplinks = 16/,
    );
  });
});

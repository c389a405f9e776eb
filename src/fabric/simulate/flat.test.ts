import { describe, expect, test } from "vitest";
import { type BenchJob, railSubject } from "../types.js";
import { simulateFleet } from "./flat.js";

const pair = (a: string, b: string, kind: BenchJob["kind"] = "pair"): BenchJob => ({
  id: `${a}+${b}`,
  round: 1,
  kind,
  nodes: [a, b],
  why: "test",
});
const large = (
  r: Awaited<ReturnType<ReturnType<typeof simulateFleet>["measure"]>>[number],
  hca: string | null = null,
) => {
  if (!r.ok) throw new Error(r.reason);
  return r.tests.find((t) => t.hca === hca)!.rows.at(-1)!.busbw;
};

describe("the fabric simulator: nodes × rails under leaves, planted faults, nccl-tests-like results", () => {
  test("64 nodes under 32-node leaves, 8 HDR rails: a healthy pair reaches ~190 GB/s, a rail test ~24 GB/s", async () => {
    const sim = simulateFleet({ nodes: 64, seed: 7 });
    expect(sim.view.nodes).toHaveLength(64);
    expect(new Set(sim.view.leafOf.values())).toEqual(new Set(["leaf-01", "leaf-02"]));
    expect(sim.view.hcas).toEqual(["mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8"]);
    const [p, r] = await sim.measure([pair("gpu-01", "gpu-40"), pair("gpu-02", "gpu-03", "rails")]);
    expect(large(p!)).toBeCloseTo(190, 0);
    expect(r!.ok && r!.tests.map((t) => t.hca)).toEqual(sim.view.hcas);
    expect(large(r!, "mlx5_4")).toBeGreaterThan(23);
    expect(p!.seconds).toBeGreaterThan(20);
  });

  test("the same seed plants the same faults and draws the same noise; another seed does not", async () => {
    const o = { nodes: 256, badNodes: 3, badRails: 1, badLinks: 1, noise: 0.03 };
    const a = simulateFleet({ ...o, seed: 5 });
    const b = simulateFleet({ ...o, seed: 5 });
    const c = simulateFleet({ ...o, seed: 6 });
    expect(a.truth).toEqual(b.truth);
    expect(a.truth).not.toEqual(c.truth);
    const jobs = [pair("gpu-001", "gpu-100"), pair("gpu-002", "gpu-003", "rails")];
    expect(await a.measure(jobs)).toEqual(await b.measure(jobs));
  });

  test("a bad node is slow with anyone; a bad rail slows the pair and only its HCA in a rail test", async () => {
    const sim = simulateFleet({ nodes: 64, badNodes: 1, badRails: 1, seed: 3 });
    const bad = sim.truth.nodes[0]!;
    const [railNode, hca] = sim.truth.rails[0]!.split("/") as [string, string];
    const healthy = sim.view.nodes.filter(
      (n) => n !== bad && n !== railNode && sim.view.leafOf.get(n) === sim.view.leafOf.get(railNode),
    );
    const [withBad, withRail, rails] = await sim.measure([
      pair(bad, healthy[0]!),
      pair(railNode, healthy[1]!),
      pair(railNode, healthy[2]!, "rails"),
    ]);
    expect(large(withBad!)).toBeLessThan(0.7 * 190);
    expect(large(withRail!)).toBeLessThan(0.55 * 190);
    expect(large(rails!, hca)).toBeLessThan(0.55 * 24);
    for (const other of sim.view.hcas.filter((h) => h !== hca)) expect(large(rails!, other)).toBeGreaterThan(23);
    expect(sim.truth.rails).toEqual([railSubject(railNode, hca)]);
  });

  test("a bad leaf uplink slows every path out of that leaf, never a path inside it", async () => {
    const sim = simulateFleet({ nodes: 96, badLinks: 1, seed: 11 });
    const leaf = sim.truth.links[0]!.replace(" uplink", "");
    const inside = sim.view.nodes.filter((n) => sim.view.leafOf.get(n) === leaf);
    const outside = sim.view.nodes.filter((n) => sim.view.leafOf.get(n) !== leaf);
    const [within, across] = await sim.measure([pair(inside[0]!, inside[1]!), pair(inside[2]!, outside[0]!)]);
    expect(large(within!)).toBeGreaterThan(185);
    expect(large(across!)).toBeLessThan(0.65 * 190);
  });

  test("10,000 nodes: a full round of 5,000 pair tests simulates (no fault in truth is a node name it lacks)", async () => {
    const sim = simulateFleet({ nodes: 10_000, badNodes: 100, badRails: 5, badLinks: 3, noise: 0.03, seed: 1 });
    const jobs = Array.from({ length: 5000 }, (_, i) => pair(sim.view.nodes[2 * i]!, sim.view.nodes[2 * i + 1]!));
    const results = await sim.measure(jobs);
    expect(results.filter((r) => r.ok)).toHaveLength(5000);
    expect(sim.truth.nodes.every((n) => sim.view.leafOf.has(n))).toBe(true);
    expect(sim.truth.links).toHaveLength(3);
  });
});

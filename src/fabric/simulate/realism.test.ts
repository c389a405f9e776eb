import { describe, expect, test } from "vitest";
import { farEnd } from "../cables.js";
import { type RailFabric, unitIndex } from "../model.js";
import type { BenchJob, JobResult } from "../types.js";
import { simulateRailFleet } from "./fleet.js";
import { roceSourcePort } from "./realism.js";
import { createRouter } from "./routing.js";

const HEALTHY_RAIL = 50 * 0.95;
const top = (r: JobResult, i = 0) => (r.ok ? (r.tests[i]!.rows.at(-1)?.busbw ?? 0) : 0);
const none = { uplink: null, spinePort: null };
const railJob = (id: string, a: string, b: string, sports: [number, number], wave = 0): BenchJob => ({
  id,
  round: 1,
  kind: "rails",
  nodes: [a, b],
  why: "test",
  wave,
  routes: [{ rail: 0, sports, paths: [none, none] }],
});

describe("RoCE v2 source ports from QP numbers (Linux rdma_get_udp_sport)", () => {
  // include/rdma/ib_verbs.h: fl = lqpn × rqpn folded (^ >> 20, ^ >> 40) to 20 bits; port = (low 14 ^ high 6) | 0xC000.
  // https://github.com/torvalds/linux/blob/master/include/rdma/ib_verbs.h
  test("worked by hand: QPs 0x11 and 0x22 → flow label 0x242 → port 0xC242; the same both ways", () => {
    expect(roceSourcePort(0x11, 0x22)).toBe(0xc242);
    expect(roceSourcePort(0x22, 0x11)).toBe(0xc242);
  });
  test("large QP numbers fold the high bits in and stay in 49152–65535", () => {
    // 0xABCDE × 0x12345 = 0xC379541D6; ^ (>> 20 = 0xC379) → 0xC379582AF; 20 bits → 0x582AF;
    // low 14 bits 0x2AF ^ high 6 bits 0x16 = 0x2B9 → port 0xC2B9.
    expect(roceSourcePort(0xabcde, 0x12345)).toBe(0xc2b9);
    for (let q = 1; q < 5000; q += 97) {
      const p = roceSourcePort(q * 4099, q + 77);
      expect(p).toBeGreaterThanOrEqual(49152);
      expect(p).toBeLessThanOrEqual(65535);
    }
  });
});

describe("the simulator's realism, each switch on its own", () => {
  const base = { nodes: 8, units: 2, rails: 1, oversubscription: 2, seed: 3 } as const;

  test("NIC-chosen ports: the ports a job asks for are not used; the QPs' own ports are reported, 2 per direction", async () => {
    const sim = simulateRailFleet({ ...base, nicPorts: true, qpsPerConnection: 2 });
    const [r] = await sim.oracle.measure([railJob("1", sim.fabric.nodes[0]!, sim.fabric.nodes[4]!, [50000, 50001])]);
    expect(r!.ok).toBe(true);
    const flows = r!.ok ? r!.flows! : [];
    expect(flows).toHaveLength(1);
    expect(flows[0]!.sports[0]).toHaveLength(2);
    expect(flows[0]!.sports[0]).not.toContain(50000);
    expect(flows[0]!.sports[1]).not.toContain(50001);
  });

  test("a down NIC: a pair job over it fails; rail by rail, only that rail's test fails", async () => {
    const sim = simulateRailFleet({ nodes: 8, units: 1, rails: 4, oversubscription: 1, downNics: 1, seed: 5 });
    const [nic] = sim.truth.downNics;
    const node = nic!.split("/")[0]!;
    const rail = Number(nic!.split("rail")[1]);
    const partner = sim.fabric.nodes.find((n) => n !== node)!;
    const pair: BenchJob = { id: "p", round: 1, kind: "pair", nodes: [node, partner], why: "t" };
    const rails: BenchJob = { id: "r", round: 1, kind: "rails", nodes: [node, partner], why: "t" };
    const [p, r] = await sim.oracle.measure([pair, rails]);
    expect(p!.ok).toBe(false);
    expect(r!.ok).toBe(true);
    const tests = r!.ok ? r!.tests : [];
    expect(tests.filter((t) => t.failed).map((t) => t.hca)).toEqual([sim.view.hcas[rail]]);
    expect(tests.filter((t) => !t.failed && t.rows.length > 0)).toHaveLength(3);
  });

  test("a load-only uplink: full speed with one flow through it, slow with two", async () => {
    const sim = simulateRailFleet({ ...base, loadOnlyUplinks: 1 });
    const bad = sim.truth.loadOnly[0]!;
    const unit = Number(/^unit(\d)/.exec(bad)![1]);
    const near = sim.fabric.nodes.filter((_, i) => Math.floor(i / 4) === unit);
    const far = sim.fabric.nodes.filter((_, i) => Math.floor(i / 4) !== unit);
    const portOnto = (src: string, dst: string) =>
      Array.from({ length: 2000 }, (_, i) => 49152 + i).find(
        (p) => sim.oracle.trace({ src, dst, rail: 0, sport: p }).uplink === bad,
      )!;
    // The way back must not share anything: ports whose reverse flows leave the far leaf on different uplinks.
    const back = (src: string, dst: string, avoid: string | null) =>
      Array.from({ length: 2000 }, (_, i) => 49152 + i).find(
        (p) => sim.oracle.trace({ src, dst, rail: 0, sport: p }).uplink !== avoid,
      )!;
    const b1 = back(far[0]!, near[0]!, null);
    const u1 = sim.oracle.trace({ src: far[0]!, dst: near[0]!, rail: 0, sport: b1 }).uplink;
    const b2 = back(far[1]!, near[1]!, u1);
    const j1 = railJob("1", near[0]!, far[0]!, [portOnto(near[0]!, far[0]!), b1]);
    const j2 = railJob("2", near[1]!, far[1]!, [portOnto(near[1]!, far[1]!), b2]);
    const [alone] = await sim.oracle.measure([j1]);
    const [x, y] = await sim.oracle.measure([j1, j2]);
    expect(top(alone!)).toBeGreaterThan(0.9 * HEALTHY_RAIL);
    // Two healthy flows on one uplink would get half each; the fault takes them to 30–60 % of that.
    expect(top(x!)).toBeLessThan(0.35 * HEALTHY_RAIL);
    expect(top(y!)).toBeLessThan(0.35 * HEALTHY_RAIL);
  });

  test("a bad cable both ways: flows down into the leaf through the uplink's far end slow too; one way, they do not", async () => {
    // base: 2 units of 4 nodes, 1 rail, 2:1 → 2 uplinks per leaf, each on its own spine.
    const opts = { ...base, badUplinks: 1 };
    const bad = simulateRailFleet(opts).truth.uplinks[0]!;
    const spinePort = farEnd(simulateRailFleet(opts).fabric, bad)!;
    const unit = Number(/^unit(\d)/.exec(bad)![1]);
    const sim = simulateRailFleet(opts);
    const near = sim.fabric.nodes.filter((_, i) => Math.floor(i / 4) === unit)[0]!;
    const far = sim.fabric.nodes.filter((_, i) => Math.floor(i / 4) !== unit)[0]!;
    const ports = Array.from({ length: 2000 }, (_, i) => 49152 + i);
    const trace = (src: string, dst: string, p: number) => sim.oracle.trace({ src, dst, rail: 0, sport: p });
    // Into the bad uplink's leaf through the spine port at the cable's far end; back up through the other uplink.
    const inward = ports.find((p) => trace(far, near, p).spinePort === spinePort)!;
    const outward = ports.find((p) => trace(near, far, p).uplink !== bad)!;
    const job = railJob("1", far, near, [inward, outward]);
    const [oneWay] = await sim.oracle.measure([job]);
    const [bothWays] = await simulateRailFleet({ ...opts, bothWays: true }).oracle.measure([job]);
    expect(top(oneWay!)).toBeGreaterThan(0.9 * HEALTHY_RAIL);
    // The planted depth is 30–60 % of line rate.
    expect(top(bothWays!)).toBeLessThan(0.65 * HEALTHY_RAIL);
  });

  test("without barriers the waves of a round run at once and share the uplink they land on", async () => {
    const sim = simulateRailFleet({ ...base });
    const [a, b, c, d] = [sim.fabric.nodes[0]!, sim.fabric.nodes[4]!, sim.fabric.nodes[1]!, sim.fabric.nodes[5]!];
    const up = (s: string, t: string, p: number) => sim.oracle.trace({ src: s, dst: t, rail: 0, sport: p }).uplink;
    const ports = Array.from({ length: 400 }, (_, i) => 49152 + i);
    const same = ports.find((p) => up(c, d, p) === up(a, b, 49152))!;
    const back = ports.find((p) => up(d, c, p) !== up(b, a, 49152))!;
    const jobs = [railJob("1", a, b, [49152, 49152], 0), railJob("2", c, d, [same, back], 1)];
    const apart = await sim.oracle.measure(jobs);
    const together = await simulateRailFleet({ ...base, noBarriers: true }).oracle.measure(jobs);
    expect(top(apart[0]!)).toBeGreaterThan(0.9 * HEALTHY_RAIL);
    expect(top(together[0]!)).toBeLessThan(0.6 * HEALTHY_RAIL);
    const started = together.map((r) => (r.ok ? r.startedAt! : -1));
    expect(started.every((s) => s >= 0 && s <= 10)).toBe(true);
    expect(apart[1]!.ok && apart[1]!.startedAt!).toBeGreaterThan(20);
  });

  test("a leaf with a seed of its own sends some flows elsewhere than the calculator says; other leaves agree", () => {
    const fabric: RailFabric = {
      layout: "rail-optimised",
      nodes: ["node-0001", "node-0002", "node-0003", "node-0004"],
      units: 2,
      rails: 2,
      spines: 4,
      uplinksPerLeaf: 8,
      lineRateGBps: 50,
      oversubscription: 1,
    };
    const calc = createRouter(fabric, unitIndex(fabric), 7);
    const real = createRouter(fabric, unitIndex(fabric), 7, new Map([[0, 12345]]));
    const differ = (rail: number) =>
      Array.from({ length: 200 }, (_, i) => ({ src: "node-0001", dst: "node-0003", rail, sport: 49152 + i })).filter(
        (f) => calc.path(f).uplink !== real.path(f).uplink,
      ).length;
    expect(differ(0)).toBeGreaterThan(100); // unit 0's rail-0 leaf: 7 in 8 land elsewhere
    expect(differ(1)).toBe(0);
  });
});

/**
 * Group tests at full load: every proven-good node of one unit in a rail test with a proven-good node of the unit
 * it is matched with this wave, on every rail asked for. Each leaf then sends about as many flows up as it has
 * nodes (two per uplink on a 2:1 leaf), so hops are crossed by two or more flows at once (a fault that shows only
 * under load shows) and a hop a fast test crossed is proven at full line rate.
 *
 * The test does not need the hash: where the fabric honours the requested UDP source ports, each flow is steered
 * onto the least-used uplink and spine port of the wave (a cheaper, more even cover); where the NIC picks the ports,
 * the flows land where ECMP sends them and the ports read back from the QPs say where that was. The units are
 * matched anew each wave (circle method of a round-robin tournament), so a leaf whose paths cannot be traced
 * disturbs one other leaf per wave, and each wave gives every node a new partner. Pure given the trace and the
 * random source.
 */
import { type FlowPath, type RailFabric, unitIndex } from "../model.js";
import type { Random } from "../prng.js";
import type { BenchJob, RailRoute } from "../types.js";
import { steer, type Trace } from "./steer.js";

/** Ports tried per flow when steering onto the least-used hops of a wave. */
const STEER_TRIES = 48;

/** The unit pairs of wave `w` (round-robin tournament, circle method); with an odd count one unit sits out. */
export function unitPairs(units: number, w: number): [number, number][] {
  const n = units % 2 === 0 ? units : units + 1;
  if (n < 2) return [];
  const rounds = n - 1;
  const r = ((w % rounds) + rounds) % rounds;
  // Seat 0 stays; the others turn one seat per round.
  const seat = (i: number) => (i === 0 ? 0 : 1 + ((i - 1 + r) % (n - 1)));
  const pairs: [number, number][] = [];
  for (let i = 0; i < n / 2; i++) {
    const a = seat(i);
    const b = seat(n - 1 - i);
    if (a < units && b < units) pairs.push(a < b ? [a, b] : [b, a]);
  }
  return pairs;
}

export type WaveContext = { fabric: RailFabric; trace: Trace; rnd: Random };

/** Per wave: how many flows each hop already carries; a hop at `cap` is used only when nothing else is left. */
function routeFor(
  ctx: WaveContext,
  a: string,
  b: string,
  rail: number,
  load: Map<string, number>,
  cap: number,
): RailRoute {
  const cost = (p: FlowPath) => {
    const x = load.get(p.uplink ?? "") ?? 0;
    const y = load.get(p.spinePort ?? "") ?? 0;
    return (x >= cap ? 100 : x) + (y >= cap ? 100 : y);
  };
  const pick = (src: string, dst: string) => {
    const s = steer(ctx.trace, { src, dst, rail }, cost, STEER_TRIES, ctx.rnd.int(16384), 0)!;
    for (const h of [s.path.uplink, s.path.spinePort]) if (h) load.set(h, (load.get(h) ?? 0) + 1);
    return s;
  };
  const there = pick(a, b);
  const back = pick(b, a);
  return { rail, sports: [there.sport, back.sport], paths: [there.path, back.path] };
}

/**
 * One wave of group tests. `rails(a, b)`: the rails to run between `a` and `b` (none: no job). `good`: nodes free
 * to test with. Jobs are numbered from `start`.
 */
export function groupWave(
  ctx: WaveContext,
  o: {
    round: number;
    wave: number;
    /** Which unit matching to use (counted over the whole run, so that partners change between rounds too). */
    matching: number;
    good: readonly string[];
    rails: (a: string, b: string) => number[];
    start: number;
    why: string;
  },
): BenchJob[] {
  const f = ctx.fabric;
  const unitOf = unitIndex(f);
  const pools: string[][] = Array.from({ length: f.units }, () => []);
  for (const n of o.good) pools[unitOf.get(n)!]!.push(n);
  // Two flows per hop and direction per wave: a 2:1 leaf's nodes fill its uplinks twice over.
  const cap = Math.max(2, Math.ceil(Math.max(...pools.map((p) => p.length)) / f.uplinksPerLeaf));
  const load = new Map<string, number>();
  const jobs: BenchJob[] = [];
  for (const [u, v] of unitPairs(f.units, o.matching)) {
    const a = ctx.rnd.shuffle(pools[u]!);
    const b = ctx.rnd.shuffle(pools[v]!);
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const rails = o.rails(a[i]!, b[i]!);
      if (rails.length === 0) continue;
      const routes = rails.map((rail) => routeFor(ctx, a[i]!, b[i]!, rail, load, cap));
      jobs.push({
        id: `r${o.round}-${o.start + jobs.length + 1}`,
        round: o.round,
        kind: "rails",
        nodes: [a[i]!, b[i]!],
        why: `${o.why} wave ${o.wave + 1}: unit ${u} ↔ unit ${v}, ${a[i]} ↔ ${b[i]} on rail(s) ${rails.join(", ")}, every node of both units at once`,
        wave: o.wave,
        routes,
      });
    }
  }
  return jobs;
}

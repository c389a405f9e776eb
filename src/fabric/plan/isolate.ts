/**
 * Crossing a suspected hop alone: for each hop a slow test blamed and nothing has cleared, a rail test whose flow
 * is steered through that hop while every other hop it crosses has been cleared, in two waves with different
 * partners. Where the fabric honours the requested source ports, two such tests name the hop; where the NIC picks
 * the ports the flows land elsewhere, and the ports read back say what they crossed instead. Pure given the trace.
 */
import { type FlowPath, leafOfHop, type RailFabric, unitIndex } from "../model.js";
import type { Random } from "../prng.js";
import type { BenchJob, RailRoute } from "../types.js";
import type { SpineEvidence } from "./hop-evidence.js";
import { steer, type Trace } from "./steer.js";

/** Attempts per suspected hop over the run: after two rounds of trying, it is left to the group tests. */
const MAX_ATTEMPTS = 2;

export type IsolateContext = { fabric: RailFabric; trace: Trace; rnd: Random; attempts: Map<string, number> };

export function isolateRound(
  ctx: IsolateContext,
  round: number,
  s: Pick<SpineEvidence, "pending" | "cleared">,
  good: readonly string[],
  start: number,
): BenchJob[] {
  const { fabric, trace, rnd, attempts } = ctx;
  const unitOf = unitIndex(fabric);
  const pools: string[][] = Array.from({ length: fabric.units }, () => []);
  for (const n of good) pools[unitOf.get(n)!]!.push(n);
  const jobs: BenchJob[] = [];
  const ok = (h: string | null, used: Set<string>) => h !== null && s.cleared.has(h) && !used.has(h);
  for (let wave = 0; wave < 2; wave++) {
    const used = new Set<string>();
    const busy = new Set<string>();
    for (const hop of s.pending) {
      const where = leafOfHop(fabric, hop);
      if (!where || (attempts.get(hop) ?? 0) >= MAX_ATTEMPTS) continue;
      const near = rnd.shuffle(pools[where.unit]!).find((n) => !busy.has(n));
      if (!near) continue;
      const fars = rnd.shuffle(pools.flatMap((p, u) => (u === where.unit ? [] : p))).filter((n) => !busy.has(n));
      for (const far of fars.slice(0, 4)) {
        // The flow that must cross `hop`: out of its leaf for an uplink, into it for a spine port.
        const [src, dst] = where.side === "uplink" ? [near, far] : [far, near];
        const other = (p: FlowPath) => (where.side === "uplink" ? p.spinePort : p.uplink);
        const there = steer(
          trace,
          { src, dst, rail: where.rail },
          (p) => ((where.side === "uplink" ? p.uplink : p.spinePort) === hop && ok(other(p), used) ? 0 : Infinity),
          40 * fabric.uplinksPerLeaf,
          rnd.int(16384),
        );
        if (!there) continue;
        const back = steer(
          trace,
          { src: dst, dst: src, rail: where.rail },
          (p) => (ok(p.uplink, used) && ok(p.spinePort, used) && p.uplink !== other(there.path) ? 0 : Infinity),
          400,
          rnd.int(16384),
        );
        if (!back) continue;
        for (const h of [hop, other(there.path)!, back.path.uplink!, back.path.spinePort!]) used.add(h);
        busy.add(near).add(far);
        const route: RailRoute = {
          rail: where.rail,
          sports: [there.sport, back.sport],
          paths: [there.path, back.path],
        };
        jobs.push({
          id: `r${round}-${start + jobs.length + 1}`,
          round,
          kind: "rails",
          nodes: [src, dst],
          why: `cross ${hop} alone (its other hops cleared): ${src} → ${dst} on rail ${where.rail}`,
          wave,
          routes: [route],
        });
        break;
      }
    }
  }
  for (const hop of s.pending) attempts.set(hop, (attempts.get(hop) ?? 0) + 1);
  return jobs;
}

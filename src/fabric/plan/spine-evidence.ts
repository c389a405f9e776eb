/**
 * What the spine-crossing rail tests say about leaf uplinks and spine ports. Each such test ran one rail between
 * two nodes proven good inside their units, with both directions steered onto known hops; its rail result is
 * judged against the fleet's rail median (median/MAD per message size, evidence.ts). A fast test clears every hop
 * of both directions (one flow alone on a link at a fraction of its capacity would be slow); a slow test blames
 * the hops it crossed that nothing cleared. A hop is bad when two slow tests blame it alone: two independent
 * observations, as the node verdicts ask (a fault shows again, noise does not). Pure.
 */
import type { JudgedTest } from "../../nccl/fleet-bench/evidence.js";
import type { BenchJob, FabricView } from "../types.js";
import { hopsOf } from "./steer.js";

/** Slow tests that blame a hop alone before it is called bad. */
export const CONFIRMING_TESTS = 2;

export type HopCase = {
  hop: string;
  /** Slow tests in which this hop was the only one not cleared. */
  alone: { job: string; round: number; pctOfMedian: number; partner: string }[];
  /** Slow tests that crossed it among other uncleared hops. */
  shared: number;
};

export type SpineEvidence = {
  /** Hops that some fast test crossed. */
  cleared: ReadonlySet<string>;
  /** Hops crossed by at least one test (either way). */
  crossed: ReadonlySet<string>;
  /** Hops that slow tests point at and nothing cleared. */
  cases: ReadonlyMap<string, HopCase>;
  bad: string[];
  /** Suspected hops that still need a test that crosses them alone. */
  pending: string[];
};

export const isSpineProbe = (job: BenchJob) => job.routes !== undefined;

/** `judged`: the rail tests of spine probes (one per job and rail that ran). */
export function spineEvidence(view: FabricView, judged: readonly JudgedTest[]): SpineEvidence {
  const probes = judged.flatMap((t) => {
    const rail = t.hca === null ? -1 : view.hcas.indexOf(t.hca);
    const route = t.job.routes?.find((r) => r.rail === rail);
    return route ? [{ t, hops: [...hopsOf(route.paths[0]), ...hopsOf(route.paths[1])] }] : [];
  });
  const cleared = new Set<string>();
  const crossed = new Set<string>();
  for (const p of probes) for (const h of p.hops) crossed.add(h);
  for (const p of probes) if (!p.t.slow) for (const h of p.hops) cleared.add(h);
  const cases = new Map<string, HopCase>();
  for (const p of probes) {
    if (!p.t.slow) continue;
    const open = p.hops.filter((h) => !cleared.has(h));
    for (const h of open) {
      const c = cases.get(h) ?? { hop: h, alone: [], shared: 0 };
      if (open.length === 1)
        c.alone.push({ job: p.t.job.id, round: p.t.job.round, pctOfMedian: p.t.pctOfMedian, partner: p.t.b });
      else c.shared++;
      cases.set(h, c);
    }
  }
  const bad = [...cases.values()].filter((c) => c.alone.length >= CONFIRMING_TESTS).map((c) => c.hop);
  const pending = [...cases.values()].filter((c) => c.alone.length < CONFIRMING_TESTS).map((c) => c.hop);
  return { cleared, crossed, cases, bad: bad.sort(), pending: pending.sort() };
}

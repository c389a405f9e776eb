/**
 * What the spine-crossing rail tests say about leaf uplinks and spine ports, without trusting the plan.
 *
 * - A flow's hops come from the ports its QPs really used (the result's `flows`, read from the QPs) traced through
 *   the hash calculator; the ports the planner asked for are used only where nothing was read back.
 * - Each test is judged against what it should reach given everything that ran beside it: the flows of the jobs
 *   that overlapped in time (their start times, or their wave) share links max-min fairly (fairshare.ts), and the
 *   rail's QPs move its data together, so the slowest QP sets the pace. Slow = under 85 % of that.
 * - A fast test proves each hop it crossed carries the load it carried then (alone, or with two or more flows: a
 *   marginal optic can fail only under load). A slow test blames the hops not proven at the load it put on them;
 *   a hop is bad when two slow tests blame it alone.
 * - A slow test that no unproven hop explains means the traced paths are wrong: the leaves its flows came from are
 *   then "paths unknown"; their flows neither clear nor blame, tests beside them on hops they may have loaded say
 *   nothing, and their uplinks are listed as not cleared (the spine ports facing them are traced from upstream).
 * - A spine port suspected bad may pause the uplinks feeding it (PFC): those are not blamed in that group.
 * - Flows into a leaf whose paths are unknown are still traced onto the spine ports facing it: a port whose tests
 *   are slow beyond the rate of the leaf's other ports is named, medium sure (far-side.ts). Where a cable is bad
 *   both ways this names a bad uplink of that leaf by its cable's spine end; one way, the uplink stays not cleared.
 * Pure given the trace.
 */
import { allSpinePorts, allUplinks, type Flow, type FlowPath, leafId, leafOfHop, type RailFabric } from "../model.js";
import type { FabricView, JobResult } from "../types.js";
import { type FarSideVerdict, farSideBad } from "./far-side.js";
import { FULL_LOAD, type HopCase, judge, type Probe, probesOf } from "./hop-judge.js";

export { type HopCase, isSpineProbe, SLOW_RATIO } from "./hop-judge.js";

/** Slow tests that blame a hop alone before it is called bad. */
export const CONFIRMING_TESTS = 2;

export type NotClearedLeaf = {
  leaf: string;
  uplinks: number;
  spinePorts: number;
  neverCrossed: number;
  pathsUnknown: boolean;
  /**
   * The least, over these hops, of the load (percent of line rate) each is proven to carry (what the flows through
   * it moved at once, as far as the traced paths place them): none of them can carry less. 0 where a hop's flows
   * could not be placed or none crossed it.
   */
  provenPct: number;
};

/** Not-cleared hops grouped by leaf, in leaf order; `proven`: per hop, the most load it carried (hop-judge.ts). Pure. */
export function groupByLeaf(
  f: Pick<RailFabric, "rails" | "spines" | "uplinksPerLeaf">,
  hops: readonly string[],
  crossed: ReadonlySet<string>,
  unknown: ReadonlySet<string>,
  proven: ReadonlyMap<string, { single: number }> = new Map(),
): NotClearedLeaf[] {
  const out = new Map<string, NotClearedLeaf>();
  for (const h of hops) {
    const w = leafOfHop(f, h);
    if (!w) continue;
    const leaf = leafId(w.unit, w.rail);
    const x = out.get(leaf) ?? {
      leaf,
      uplinks: 0,
      spinePorts: 0,
      neverCrossed: 0,
      pathsUnknown: unknown.has(leaf),
      provenPct: 100,
    };
    if (w.side === "uplink") x.uplinks++;
    else x.spinePorts++;
    if (!crossed.has(h)) x.neverCrossed++;
    const pct =
      unknown.has(leaf) && w.side === "uplink" ? 0 : Math.floor(100 * Math.min(1, proven.get(h)?.single ?? 0));
    x.provenPct = Math.min(x.provenPct, pct);
    out.set(leaf, x);
  }
  const key = (l: string) => l.split(/\D+/).filter(Boolean).map(Number);
  return [...out.values()].sort((a, b) => {
    const [x, y] = [key(a.leaf), key(b.leaf)];
    return x[0]! - y[0]! || x[1]! - y[1]!;
  });
}

export type HopVerdict = {
  hop: string;
  confidence: "high" | "medium";
  loadOnly: boolean;
  /** Named from the far side of a leaf whose paths are unknown (far-side.ts): its tally and the leaf's base rate. */
  farSide?: FarSideVerdict;
};

export type SpineEvidence = {
  /** Hops a fast test carried at full load (alone and, where crossed so, with two or more flows). */
  cleared: ReadonlySet<string>;
  /** Hops crossed by at least one test. */
  crossed: ReadonlySet<string>;
  cases: ReadonlyMap<string, HopCase>;
  bad: string[];
  verdicts: HopVerdict[];
  /** Suspected hops that still need tests. */
  pending: string[];
  /** Every uplink and spine port not cleared and not named bad: what this run cannot vouch for. */
  notCleared: string[];
  /**
   * The same hops by the leaf they belong to (a spine port to the leaf it faces), as a user acts on them: how many
   * uplinks and spine ports, how many of those no traced flow ever crossed, and whether the leaf's paths are unknown.
   */
  notClearedByLeaf: NotClearedLeaf[];
  /**
   * Leaves whose traced paths the results contradict (`unit1/leaf3`), with the slow tests no unproven hop explains
   * and, where that is how it showed, how many of the leaf's uplinks slow tests blamed.
   */
  pathsUnknown: { leaf: string; unexplained: number; uplinksBlamed?: number }[];
  /** Probes whose rates were judged (for the report). */
  probes: number;
};

/**
 * Leaves whose traced paths the results contradict. Greedy: the leaf with the highest share of slow tests that no
 * unproven hop explains is taken while those are at least 4 and 2 % of its tests (a stray result or two is noise, a wrong hash
 * is a steady stream); its tests are then set aside, so that the leaves at the other end of its flows are not
 * blamed for it.
 */
function distrustedLeaves(probes: readonly Probe[], unexplained: readonly Probe[]) {
  const leavesOf = (p: Probe) => new Set(p.flows.map((x) => x.srcLeaf));
  const tests = new Map<string, number>();
  for (const p of probes) for (const leaf of leavesOf(p)) tests.set(leaf, (tests.get(leaf) ?? 0) + 1);
  let left = [...unexplained];
  const out: { leaf: string; unexplained: number }[] = [];
  for (;;) {
    const count = new Map<string, number>();
    for (const p of left) for (const leaf of leavesOf(p)) count.set(leaf, (count.get(leaf) ?? 0) + 1);
    // By rate, not count: a leaf that only met a hiding leaf more often than others has a lower share of such tests.
    const rate = (x: [string, number]) => x[1] / (tests.get(x[0]) ?? 1);
    const [leaf, n] = [...count].sort((x, y) => rate(y) - rate(x) || x[0].localeCompare(y[0]))[0] ?? ["", 0];
    if (n < 4 || n < 0.02 * (tests.get(leaf) ?? 0)) break;
    out.push({ leaf, unexplained: n });
    left = left.filter((p) => !leavesOf(p).has(leaf));
  }
  return out.sort((x, y) => x.leaf.localeCompare(y.leaf));
}

const leaves = (xs: readonly { leaf: string }[]) => new Set(xs.map((x) => x.leaf));

/** Share of a leaf's uplinks that slow tests blaming them may spread over before its traced paths are doubted. */
const SPREAD_SHARE = 0.5;

/**
 * Leaves at least half of whose uplinks some slow test blamed: a broken optic or two is a hop or two, a hash the
 * calculator gets wrong sends every flow of the leaf elsewhere than traced, and the blame lands all over the leaf.
 */
function blameSpread(f: RailFabric, cases: ReadonlyMap<string, HopCase>, unexplained: readonly Probe[]) {
  const count = new Map<string, number>();
  for (const c of cases.values()) {
    const w = leafOfHop(f, c.hop);
    if (w?.side === "uplink") count.set(leafId(w.unit, w.rail), (count.get(leafId(w.unit, w.rail)) ?? 0) + 1);
  }
  const least = Math.max(4, SPREAD_SHARE * f.uplinksPerLeaf);
  const from = (leaf: string) => unexplained.filter((p) => p.flows.some((x) => x.srcLeaf === leaf)).length;
  return [...count]
    .filter(([, n]) => n >= least)
    .map(([leaf, n]) => ({ leaf, unexplained: from(leaf), uplinksBlamed: n }));
}

/** `probes`: the judged rail results of spine-crossing jobs; `trace`: the hash calculator. */
export function spineEvidence(
  view: FabricView,
  f: RailFabric,
  trace: (fl: Flow) => FlowPath,
  results: readonly JobResult[],
): SpineEvidence {
  const probes = probesOf(view, f, trace, results);
  const line = view.lineRateGBps;
  const none = new Set<string>();
  const first = judge(f, probes, line, { distrust: none, suspectedSpinePorts: none });
  // Leaves whose slow tests point at most of their uplinks, then leaves the unexplained slow tests came from again
  // and again: their traced paths are not to be believed.
  const spread = blameSpread(f, first.cases, first.unexplained);
  const unspread = spread.length
    ? judge(f, probes, line, { distrust: leaves(spread), suspectedSpinePorts: none })
    : first;
  const pathsUnknown = [...spread, ...distrustedLeaves(probes, unspread.unexplained)].sort((x, y) =>
    x.leaf.localeCompare(y.leaf),
  );
  const distrust = leaves(pathsUnknown);
  const second =
    distrust.size > spread.length ? judge(f, probes, line, { distrust, suspectedSpinePorts: none }) : unspread;
  // Spine ports a slow test blamed alone: the uplinks feeding them may have been paused (PFC), not be bad.
  const suspectedSpinePorts = new Set(
    [...second.cases.values()].filter((c) => c.alone.length > 0 && c.hop.startsWith("spine")).map((c) => c.hop),
  );
  const final = suspectedSpinePorts.size ? judge(f, probes, line, { distrust, suspectedSpinePorts }) : second;
  const { proven, crossed } = final;
  // Spine ports facing a leaf with unknown paths, slow beyond that leaf's base rate (far-side.ts): named too.
  const far = farSideBad(final.farSide, f.uplinksPerLeaf);
  const cases = new Map(final.cases);
  for (const x of far)
    if (!cases.get(x.hop)?.alone.length)
      cases.set(x.hop, { hop: x.hop, alone: final.farSide.get(x.hop)!.blames, shared: 0 });
  const farOf = new Map(far.map((x) => [x.hop, x]));
  // A distrusted leaf's uplinks cannot be placed; the spine ports facing it can (flows into it are traced upstream).
  const inDistrusted = (h: string) => {
    const w = leafOfHop(f, h);
    return w !== null && w.side === "uplink" && distrust.has(leafId(w.unit, w.rail));
  };
  const verdicts: HopVerdict[] = [...cases.values()]
    .filter((c) => (c.alone.length >= CONFIRMING_TESTS || farOf.has(c.hop)) && !inDistrusted(c.hop))
    .map((c) => ({
      hop: c.hop,
      // From the far side the leaf's own uplink in each test is unplaced: never more than medium.
      confidence: c.alone.length >= 3 && !farOf.has(c.hop) ? "high" : "medium",
      ...(farOf.has(c.hop) ? { farSide: farOf.get(c.hop)! } : {}),
      loadOnly: c.alone.every((a) => a.loaded) && (proven.get(c.hop)?.single ?? 0) >= FULL_LOAD,
    }));
  const bad = verdicts.map((v) => v.hop).sort();
  const badSet = new Set(bad);
  const pending = [...cases.values()]
    .filter((c) => !badSet.has(c.hop) && !inDistrusted(c.hop))
    .map((c) => c.hop)
    .sort();
  const cleared = new Set(
    [...proven]
      .filter(([h, x]) => x.single >= FULL_LOAD && x.multi >= FULL_LOAD && !inDistrusted(h) && !cases.has(h))
      .map(([h]) => h),
  );
  const notCleared = [...allUplinks(f), ...allSpinePorts(f)].filter((h) => !cleared.has(h) && !badSet.has(h));
  const notClearedByLeaf = groupByLeaf(f, notCleared, crossed, distrust, proven);
  return {
    cleared,
    crossed,
    cases,
    bad,
    verdicts,
    pending,
    notCleared,
    notClearedByLeaf,
    pathsUnknown,
    probes: probes.length,
  };
}

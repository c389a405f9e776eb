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
 *   then "paths unknown", their flows neither clear nor blame, and their hops are listed as not cleared.
 * Pure given the trace.
 */
import { maxMinRates } from "../fairshare.js";
import { allSpinePorts, allUplinks, type Flow, type FlowPath, leafId, leafOfHop, type RailFabric } from "../model.js";
import { type BenchJob, type FabricView, type JobResult, RING_EFFICIENCY } from "../types.js";

/** Slow tests that blame a hop alone before it is called bad. */
export const CONFIRMING_TESTS = 2;
/** Under this fraction of what the test should reach beside its neighbours, it is slow. */
export const SLOW_RATIO = 0.85;
/** Proven at a load: a fast crossing carried at least this fraction of line rate through the hop. */
const FULL_LOAD = 0.9;

export type HopCase = {
  hop: string;
  /** Slow tests in which this hop was the only one not proven at the load the test put on it. */
  alone: { job: string; round: number; pctOfExpected: number; partner: string; loaded: boolean }[];
  /** Slow tests that crossed it among other unproven hops. */
  shared: number;
};

export type HopVerdict = { hop: string; confidence: "high" | "medium"; loadOnly: boolean };

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
  /** Leaves whose traced paths the results contradict (`unit1/leaf3`), with the unexplained slow tests. */
  pathsUnknown: { leaf: string; unexplained: number }[];
  /** Probes whose rates were judged (for the report). */
  probes: number;
};

export const isSpineProbe = (job: BenchJob) => job.routes !== undefined;

type ProbeFlow = { flow: Flow; path: FlowPath; srcLeaf: string };
type Probe = { job: BenchJob; rail: number; flows: ProbeFlow[]; busbw: number; group: string };

/** Jobs that ran at the same time: intervals that overlap (start times known) or the same round and wave. */
function concurrency(results: readonly Extract<JobResult, { ok: true }>[]): Map<string, string> {
  const out = new Map<string, string>();
  const byRound = new Map<number, Extract<JobResult, { ok: true }>[]>();
  for (const r of results) byRound.set(r.job.round, [...(byRound.get(r.job.round) ?? []), r]);
  for (const [round, rs] of byRound) {
    if (rs.some((r) => r.startedAt === undefined)) {
      for (const r of rs) out.set(r.job.id, `${round}/w${r.job.wave ?? 0}`);
      continue;
    }
    const sorted = [...rs].sort((x, y) => x.startedAt! - y.startedAt!);
    let group = 0;
    let end = Number.NEGATIVE_INFINITY;
    for (const r of sorted) {
      if (r.startedAt! >= end) group++;
      end = Math.max(end, r.startedAt! + r.seconds);
      out.set(r.job.id, `${round}/g${group}`);
    }
  }
  return out;
}

function probesOf(
  view: FabricView,
  f: RailFabric,
  trace: (fl: Flow) => FlowPath,
  results: readonly JobResult[],
): Probe[] {
  const ok = results.filter((r): r is Extract<JobResult, { ok: true }> => r.ok && isSpineProbe(r.job));
  const groupOf = concurrency(ok);
  const unit = new Map(view.nodes.map((n) => [n, view.leafOf.get(n) ?? ""]));
  const probes: Probe[] = [];
  for (const r of ok) {
    const [a, b] = r.job.nodes;
    for (const t of r.tests) {
      const rail = t.hca === null ? -1 : view.hcas.indexOf(t.hca);
      const last = t.rows.at(-1);
      if (rail < 0 || !last || t.failed) continue;
      const route = r.job.routes?.find((x) => x.rail === rail);
      const seen = r.flows?.find((x) => x.rail === rail);
      const sports = seen?.sports ?? (route ? [[route.sports[0]], [route.sports[1]]] : null);
      if (!sports) continue;
      const flows: ProbeFlow[] = [];
      ([0, 1] as const).forEach((d) => {
        const [src, dst] = d === 0 ? [a, b] : [b, a];
        for (const sport of sports[d]) {
          const flow = { src, dst, rail, sport };
          flows.push({ flow, path: trace(flow), srcLeaf: `${unit.get(src)}/leaf${rail}` });
        }
      });
      probes.push({ job: r.job, rail, flows, busbw: last.busbw, group: groupOf.get(r.job.id)! });
    }
  }
  void f;
  return probes;
}

const linksOf = (p: ProbeFlow) => [
  `tx ${p.flow.src}/${p.flow.rail}`,
  ...(p.path.uplink ? [`up ${p.path.uplink}`] : []),
  ...(p.path.spinePort ? [`down ${p.path.spinePort}`] : []),
  `rx ${p.flow.dst}/${p.flow.rail}`,
];

/** Per probe: expected busbw, and per hop the load (fraction of line) and the number of flows through it. */
function expectations(probes: readonly Probe[], line: number) {
  const out = new Map<Probe, { expected: number; load: Map<string, { load: number; flows: number }> }>();
  const byGroup = new Map<string, Probe[]>();
  for (const p of probes) byGroup.set(p.group, [...(byGroup.get(p.group) ?? []), p]);
  for (const ps of byGroup.values()) {
    const flows = ps.flatMap((p) => p.flows);
    const rates = maxMinRates(flows.map(linksOf), () => line);
    const hopLoad = new Map<string, { load: number; flows: number }>();
    flows.forEach((fl, i) => {
      for (const h of [fl.path.uplink, fl.path.spinePort]) {
        if (!h) continue;
        const x = hopLoad.get(h) ?? { load: 0, flows: 0 };
        x.load += rates[i]! / line;
        x.flows++;
        hopLoad.set(h, x);
      }
    });
    let k = 0;
    for (const p of ps) {
      let slowest = Number.POSITIVE_INFINITY;
      for (let i = 0; i < p.flows.length; i++) slowest = Math.min(slowest, rates[k++]!);
      const qps = p.flows.length / 2;
      const load = new Map<string, { load: number; flows: number }>();
      for (const fl of p.flows)
        for (const h of [fl.path.uplink, fl.path.spinePort]) if (h) load.set(h, hopLoad.get(h)!);
      out.set(p, { expected: qps * slowest * RING_EFFICIENCY, load });
    }
  }
  return out;
}

type Proven = { single: number; multi: number };

/** What each of a probe's flows carried at least, as a fraction of line rate (its QPs' share, less noise). */
const carriedPerFlow = (p: Probe, line: number) => (0.97 * p.busbw) / RING_EFFICIENCY / (p.flows.length / 2) / line;

function judge(probes: readonly Probe[], line: number, distrust: ReadonlySet<string>) {
  // Flows from a leaf whose paths are unknown may load any hop of their rail: that rail's tests that ran beside
  // them say nothing either way.
  const tainted = new Set(
    probes.filter((p) => p.flows.some((f) => distrust.has(f.srcLeaf))).map((p) => `${p.group}|${p.rail}`),
  );
  const usable = probes.filter((p) => !tainted.has(`${p.group}|${p.rail}`));
  const exp = expectations(usable, line);
  const ratio = (p: Probe) => p.busbw / exp.get(p)!.expected;
  // A hop carried at least what the flows through it moved, slow tests included: that much it can carry.
  const carried = new Map<string, { load: number; flows: number }>();
  const crossed = new Set<string>();
  // A hop that let one flow through at its expected share while others were slow was not their bottleneck.
  const fastThrough = new Set<string>();
  for (const p of usable) {
    const c = carriedPerFlow(p, line);
    if (ratio(p) >= SLOW_RATIO)
      for (const fl of p.flows)
        for (const h of [fl.path.uplink, fl.path.spinePort]) if (h) fastThrough.add(`${p.group}|${h}`);
    for (const fl of p.flows)
      for (const h of [fl.path.uplink, fl.path.spinePort]) {
        if (!h) continue;
        crossed.add(h);
        const key = `${p.group}|${h}`;
        const x = carried.get(key) ?? { load: 0, flows: 0 };
        x.load += c;
        x.flows++;
        carried.set(key, x);
      }
  }
  const proven = new Map<string, Proven>();
  for (const [key, x] of carried) {
    const h = key.slice(key.indexOf("|") + 1);
    const y = proven.get(h) ?? { single: 0, multi: 0 };
    // What carried a load with two or more flows carries it with one too (a load-only fault needs two).
    if (x.flows >= 2) y.multi = Math.max(y.multi, x.load);
    y.single = Math.max(y.single, x.load);
    proven.set(h, y);
  }
  const open = (h: string, l: { load: number; flows: number }) => {
    const x = proven.get(h) ?? { single: 0, multi: 0 };
    return l.flows >= 2 ? x.multi < 0.95 * l.load : x.single < 0.95 * l.load;
  };
  const cases = new Map<string, HopCase>();
  const unexplained: Probe[] = [];
  const explained: Probe[] = [];
  for (const p of usable) {
    const r = ratio(p);
    if (r >= SLOW_RATIO) continue;
    const opened = [...exp.get(p)!.load].filter(([h, l]) => open(h, l) && !fastThrough.has(`${p.group}|${h}`));
    if (opened.length === 0) {
      unexplained.push(p);
      continue;
    }
    explained.push(p);
    for (const [h, l] of opened) {
      const c = cases.get(h) ?? { hop: h, alone: [], shared: 0 };
      if (opened.length === 1)
        c.alone.push({
          job: p.job.id,
          round: p.job.round,
          pctOfExpected: Math.round(1000 * r) / 10,
          partner: p.job.nodes[1],
          loaded: l.flows >= 2,
        });
      else c.shared++;
      cases.set(h, c);
    }
  }
  return { proven, crossed, cases, unexplained, explained };
}

/**
 * Leaves whose traced paths the results contradict. Greedy: the leaf with the most slow tests that no unproven hop
 * explains is taken while those are at least 4 and 2 % of its tests (a stray result or two is noise, a wrong hash
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
    const [leaf, n] = [...count].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0] ?? ["", 0];
    if (n < 4 || n < 0.02 * (tests.get(leaf) ?? 0)) break;
    out.push({ leaf, unexplained: n });
    left = left.filter((p) => !leavesOf(p).has(leaf));
  }
  return out.sort((x, y) => x.leaf.localeCompare(y.leaf));
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
  const first = judge(probes, line, new Set());
  // Leaves the unexplained slow tests came from, twice or more: their traced paths are not to be believed.
  const pathsUnknown = distrustedLeaves(probes, first.unexplained);
  const distrust = new Set(pathsUnknown.map((x) => x.leaf));
  const { proven, crossed, cases } = distrust.size ? judge(probes, line, distrust) : first;
  const inDistrusted = (h: string) => {
    const w = leafOfHop(f, h);
    return w !== null && distrust.has(leafId(w.unit, w.rail));
  };
  const verdicts: HopVerdict[] = [...cases.values()]
    .filter((c) => c.alone.length >= CONFIRMING_TESTS && !inDistrusted(c.hop))
    .map((c) => ({
      hop: c.hop,
      confidence: c.alone.length >= 3 ? "high" : "medium",
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
  return {
    cleared,
    crossed,
    cases,
    bad,
    verdicts,
    pending,
    notCleared,
    pathsUnknown,
    probes: probes.length,
  };
}

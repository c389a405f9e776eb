/**
 * Judging spine-crossing rail tests one concurrency group at a time (see hop-evidence.ts for the rules): what each
 * test should reach beside the tests that ran with it, what load each hop is proven to carry, and which hops each
 * slow test leaves open. Two kinds of doubt are kept apart from blame:
 * - flows from a leaf whose paths are unknown (its hash is not the calculator's) may cross any uplink of that leaf
 *   and any spine port facing their destination leaf: in their group those hops are "loaded unseen", and a slow
 *   test crossing one says nothing (the unseen flows may have slowed it);
 * - a spine port suspected bad may pause, through priority flow control, the uplinks its flows came up through:
 *   in that group those uplinks are "maybe paused" and are not blamed (a victim of the pause is not the culprit;
 *   the congested egress is what the slow flows have in common).
 * Pure given the trace.
 */
import { maxMinRates } from "../fairshare.js";
import { type Flow, type FlowPath, leafId, leafOfHop, type RailFabric } from "../model.js";
import { type BenchJob, type FabricView, type JobResult, RING_EFFICIENCY } from "../types.js";
import type { FarTally } from "./far-side.js";

/** Under this fraction of what the test should reach beside its neighbours, it is slow. */
export const SLOW_RATIO = 0.85;
/** Proven at a load: a fast crossing carried at least this fraction of line rate through the hop. */
export const FULL_LOAD = 0.9;

export type AloneBlame = { job: string; round: number; pctOfExpected: number; partner: string; loaded: boolean };

export type HopCase = {
  hop: string;
  /** Slow tests in which this hop was the only one not proven at the load the test put on it. */
  alone: AloneBlame[];
  /** Slow tests that crossed it among other unproven hops. */
  shared: number;
};

/** A slow test's blame on a hop: which test, how slow, with whom, and whether two or more flows crossed the hop. */
const blameOf = (p: Probe, ratio: number, flows: number): AloneBlame => ({
  job: p.job.id,
  round: p.job.round,
  pctOfExpected: Math.round(1000 * ratio) / 10,
  partner: p.job.nodes[1],
  loaded: flows >= 2,
});

export const isSpineProbe = (job: BenchJob) => job.routes !== undefined;

export type ProbeFlow = { flow: Flow; path: FlowPath; srcLeaf: string; dstLeaf: string };
export type Probe = { job: BenchJob; rail: number; flows: ProbeFlow[]; busbw: number; group: string };

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

export function probesOf(
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
          flows.push({
            flow,
            path: trace(flow),
            srcLeaf: `${unit.get(src)}/leaf${rail}`,
            dstLeaf: `${unit.get(dst)}/leaf${rail}`,
          });
        }
      });
      probes.push({ job: r.job, rail, flows, busbw: last.busbw, group: groupOf.get(r.job.id)! });
    }
  }
  void f;
  return probes;
}

/** What a group's flows may load unseen, and which uplinks a suspected spine port may have paused. */
export type Doubt = {
  /** Leaves whose traced paths are not to be believed (`unit1/leaf3`). */
  distrust: ReadonlySet<string>;
  /** Spine ports suspected bad: in each group, the uplinks their flows came up through are not blamed. */
  suspectedSpinePorts: ReadonlySet<string>;
};

const unseen = (fl: ProbeFlow, d: Doubt) => d.distrust.has(fl.srcLeaf);
const hopsOfFlow = (fl: ProbeFlow) => [fl.path.uplink, fl.path.spinePort].filter((h): h is string => h !== null);

/** The links a flow loads as far as the trace knows: only its NICs when its leaf's paths are unknown. */
const linksOf = (p: ProbeFlow, d: Doubt) => [
  `tx ${p.flow.src}/${p.flow.rail}`,
  ...(p.path.uplink && !unseen(p, d) ? [`up ${p.path.uplink}`] : []),
  ...(p.path.spinePort && !unseen(p, d) ? [`down ${p.path.spinePort}`] : []),
  `rx ${p.flow.dst}/${p.flow.rail}`,
];

/** Per probe: expected busbw, and per hop the load (fraction of line) and the number of flows through it. */
function expectations(groups: ReadonlyMap<string, Probe[]>, line: number, d: Doubt) {
  const out = new Map<Probe, { expected: number; load: Map<string, { load: number; flows: number }> }>();
  for (const ps of groups.values()) {
    const flows = ps.flatMap((p) => p.flows);
    const rates = maxMinRates(
      flows.map((fl) => linksOf(fl, d)),
      () => line,
    );
    const hopLoad = new Map<string, { load: number; flows: number }>();
    flows.forEach((fl, i) => {
      if (unseen(fl, d)) return;
      for (const h of hopsOfFlow(fl)) {
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
      for (const fl of p.flows) if (!unseen(fl, d)) for (const h of hopsOfFlow(fl)) load.set(h, hopLoad.get(h)!);
      out.set(p, { expected: qps * slowest * RING_EFFICIENCY, load });
    }
  }
  return out;
}

/**
 * Per group: the hops loaded by flows the trace cannot place (every uplink of a distrusted leaf, every spine port
 * facing the leaf such a flow went to), and the uplinks a suspected spine port's flows came up through.
 */
function doubtedHops(f: RailFabric, ps: readonly Probe[], d: Doubt) {
  const unseenLeaves = new Set<string>();
  const paused = new Set<string>();
  for (const p of ps)
    for (const fl of p.flows) {
      if (unseen(fl, d)) unseenLeaves.add(`${fl.srcLeaf} uplink`).add(`${fl.dstLeaf} spinePort`);
      else if (fl.path.uplink && fl.path.spinePort && d.suspectedSpinePorts.has(fl.path.spinePort))
        paused.add(fl.path.uplink);
    }
  const loadedUnseen = (h: string) => {
    if (unseenLeaves.size === 0) return false;
    const w = leafOfHop(f, h);
    return w !== null && unseenLeaves.has(`${leafId(w.unit, w.rail)} ${w.side}`);
  };
  return { loadedUnseen, paused };
}

export type Proven = { single: number; multi: number };

/** What each of a probe's flows carried at least, as a fraction of line rate (its QPs' share, less noise). */
const carriedPerFlow = (p: Probe, line: number) => (0.97 * p.busbw) / RING_EFFICIENCY / (p.flows.length / 2) / line;

export function judge(f: RailFabric, probes: readonly Probe[], line: number, d: Doubt) {
  const groups = new Map<string, Probe[]>();
  for (const p of probes) groups.set(p.group, [...(groups.get(p.group) ?? []), p]);
  const exp = expectations(groups, line, d);
  const ratio = (p: Probe) => p.busbw / exp.get(p)!.expected;
  // A hop carried at least what the flows through it moved, slow tests included: that much it can carry.
  const carried = new Map<string, { load: number; flows: number }>();
  const crossed = new Set<string>();
  // A hop that let one flow through at its expected share while others were slow was not their bottleneck.
  const fastThrough = new Set<string>();
  for (const p of probes) {
    const c = carriedPerFlow(p, line);
    const fast = ratio(p) >= SLOW_RATIO;
    for (const fl of p.flows) {
      if (unseen(fl, d)) continue;
      for (const h of hopsOfFlow(fl)) {
        const key = `${p.group}|${h}`;
        if (fast) fastThrough.add(key);
        crossed.add(h);
        const x = carried.get(key) ?? { load: 0, flows: 0 };
        x.load += c;
        x.flows++;
        carried.set(key, x);
      }
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
  const farSide = new Map<string, FarTally>();
  for (const [group, ps] of groups) {
    const doubt = doubtedHops(f, ps, d);
    for (const p of ps) {
      const r = ratio(p);
      const hops = [...exp.get(p)!.load];
      const isOpen = ([h, l]: [string, { load: number; flows: number }]) =>
        open(h, l) && !fastThrough.has(`${group}|${h}`);
      tallyFarSide(f, p, hops, r, d, doubt.loadedUnseen, isOpen, farSide);
      if (r >= SLOW_RATIO) continue;
      // Unseen flows in it, or beside it on one of its hops: its slowness may be theirs.
      if (p.flows.some((fl) => unseen(fl, d)) || hops.some(([h]) => doubt.loadedUnseen(h))) continue;
      const openHops = hops.filter(isOpen);
      const opened = openHops.filter(([h]) => !doubt.paused.has(h));
      if (opened.length === 0) {
        // Nothing unproven but a maybe-paused uplink: a victim of a pause, not evidence against the trace.
        if (openHops.length === 0 && !hops.some(([h]) => doubt.paused.has(h))) unexplained.push(p);
        continue;
      }
      for (const [h, l] of opened) {
        const c = cases.get(h) ?? { hop: h, alone: [], shared: 0 };
        if (opened.length === 1) c.alone.push(blameOf(p, r, l.flows));
        else c.shared++;
        cases.set(h, c);
      }
    }
  }
  return { proven, crossed, cases, unexplained, farSide };
}

type HopLoad = [string, { load: number; flows: number }];

/**
 * A test out of exactly one leaf whose paths are unknown, whose traced hops are the spine ports facing that leaf
 * (flows in, traced upstream) and hops elsewhere: counted for each of those spine ports (far-side.ts) where nothing
 * else could explain it: no other open traced hop, nothing loaded unseen beside it.
 */
function tallyFarSide(
  f: RailFabric,
  p: Probe,
  hops: readonly HopLoad[],
  ratio: number,
  d: Doubt,
  loadedUnseen: (h: string) => boolean,
  isOpen: (h: HopLoad) => boolean,
  out: Map<string, FarTally>,
) {
  const hidden = new Set(p.flows.filter((fl) => unseen(fl, d)).map((fl) => fl.srcLeaf));
  if (hidden.size !== 1) return;
  const [leaf] = hidden;
  const facing = (h: string) => {
    const w = leafOfHop(f, h);
    return w !== null && w.side === "spinePort" && leafId(w.unit, w.rail) === leaf;
  };
  const ports = hops.filter(([h]) => facing(h));
  if (ports.length === 0 || hops.some(([h]) => loadedUnseen(h))) return;
  const slow = ratio < SLOW_RATIO;
  if (slow && hops.some((h) => !facing(h[0]) && isOpen(h))) return;
  for (const [h, l] of ports) {
    const t = out.get(h) ?? { leaf: leaf!, crossed: 0, slow: 0, blames: [] };
    t.crossed++;
    if (slow) {
      t.slow++;
      t.blames.push(blameOf(p, ratio, l.flows));
    }
    out.set(h, t);
  }
}

/**
 * Which node or link a set of 2-node nccl-tests results points at. Each pair's large-message bus bandwidth is
 * compared with the median pair's (below a tolerance and six robust standard deviations under it, as fleet bench
 * judges) or with an expected figure.
 * A node slow with every partner, where those partners are fast with others, is the fault; a pair slow together
 * while both are fast elsewhere is a link; a slow node not yet tested against a fast one is a suspect, with the
 * known-good node to re-test it with (the second pass of GPU cluster health scanners). Pure.
 */

import { type Finding, makeFinding } from "../../core/finding.js";
import { naturalCompare } from "../../core/natural.js";
import { type Problem, problem } from "../../core/result.js";
import { mad, median, slowThreshold } from "../../fabric/stats.js";
import { PAIR_FINDINGS as F, type SlowWith } from "./catalogue.js";

/** One nccl-tests run: where it came from, the hosts its ranks ran on, its large-message bus bandwidth. */
export type PairMeasurement = {
  source: string;
  hosts: readonly string[];
  busbw: number | null;
  /** Why the run's bandwidth cannot be (busbw not algbw × its bus factor, algbw not bytes / time): never a reference. */
  impossible?: string;
  /** The failure line of a run that died before its end (`Test NCCL failure …`): its rows are not a bandwidth. */
  failed?: string;
  /** What the run said of its own data (`#wrong` > 0, out-of-bounds values): the pair fails, its bandwidth is moot. */
  corrupt?: string;
};

export type PairVerdict = { a: string; b: string; busbw: number; sources: string[]; slow: boolean };

export type NodeVerdict = {
  node: string;
  pairs: number;
  slowPairs: number;
  verdict: "ok" | "bad_node" | "suspect";
};

export type PairsReport = {
  schemaVersion: 1;
  tolerance: number;
  referenceGBps: number | null;
  referenceFrom: string | null;
  thresholdGBps: number | null;
  pairs: PairVerdict[];
  nodes: NodeVerdict[];
  /** Suspects and the known-good node to test each with next. */
  retest: { node: string; with: string | null }[];
  findings: Finding[];
  problems: Problem[];
};

export type JudgeOptions = { tolerance?: number; expectGBps?: number };

export const DEFAULT_TOLERANCE = 0.9;

/**
 * The pair a file name gives, `<a>+<b>` with an optional .txt/.log/.out (`gpu-1+gpu-4.txt`): inside Kubernetes pods the rank
 * lines name the pods, not the nodes, so the name the output was saved under says which nodes ran it. Node names
 * never contain `+`. Null for any other name.
 */
export function pairFromFileName(file: string): [string, string] | null {
  const base = file.slice(file.lastIndexOf("/") + 1).replace(/\.(?:txt|log|out)$/i, "");
  const parts = base.split("+");
  if (parts.length !== 2 || parts.some((p) => !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(p)) || parts[0] === parts[1]) {
    return null;
  }
  return [parts[0]!, parts[1]!];
}

const pairKey = (a: string, b: string) => `${a}\u0000${b}`;

/** Usable measurements merged per unordered pair (best result: a one-off dip is noise, a bad path never recovers). */
function mergePairs(measurements: readonly PairMeasurement[]): {
  pairs: Map<string, PairVerdict>;
  problems: Problem[];
} {
  const pairs = new Map<string, PairVerdict>();
  const problems: Problem[] = [];
  for (const m of measurements) {
    if (
      m.failed !== undefined ||
      m.corrupt !== undefined ||
      m.impossible !== undefined ||
      (m.busbw !== null && !Number.isFinite(m.busbw))
    ) {
      continue;
    }
    const hosts = [...new Set(m.hosts)].sort(naturalCompare);
    if (hosts.length !== 2) {
      problems.push(
        problem(
          "pairs.not_a_pair",
          `${m.source}: the run's ranks are on ${hosts.length} host(s)${hosts.length ? ` (${hosts.join(", ")})` : ""}; a pair test runs on exactly 2 nodes.`,
          {
            hint: "Pass whole nccl-tests outputs of 2-node runs: the `#  Rank N … on <host>` lines name the nodes.",
          },
        ),
      );
      continue;
    }
    if (m.busbw === null || !(m.busbw > 0)) {
      problems.push(
        problem("pairs.no_bandwidth", `${m.source}: no large-message bus bandwidth in this run.`, {
          hint: "Run up to large messages (-e 8G) and keep the result table.",
        }),
      );
      continue;
    }
    const [a, b] = hosts as [string, string];
    const known = pairs.get(pairKey(a, b));
    if (known) {
      known.busbw = Math.max(known.busbw, m.busbw);
      known.sources.push(m.source);
    } else pairs.set(pairKey(a, b), { a, b, busbw: m.busbw, sources: [m.source], slow: false });
  }
  return { pairs, problems };
}

/** Who was paired with whom, once the pairs are marked slow or not. */
type PairGraph = {
  names: string[];
  of: (n: string) => PairVerdict[];
  other: (p: PairVerdict, n: string) => string;
  /** Has at least one pair at full speed: the node itself can reach it. */
  provenGood: (n: string) => boolean;
  slowWith: (n: string) => SlowWith[];
};

function pairGraph(pairs: readonly PairVerdict[]): PairGraph {
  const partners = new Map<string, PairVerdict[]>();
  for (const p of pairs) for (const n of [p.a, p.b]) partners.set(n, [...(partners.get(n) ?? []), p]);
  const of = (n: string) => partners.get(n) ?? [];
  const other = (p: PairVerdict, n: string) => (p.a === n ? p.b : p.a);
  return {
    names: [...partners.keys()].sort(naturalCompare),
    of,
    other,
    provenGood: (n) => of(n).some((p) => !p.slow),
    slowWith: (n) =>
      of(n)
        .filter((p) => p.slow)
        .map((p) => ({ partner: other(p, n), busbw: p.busbw })),
  };
}

/** Slow with every partner, two or more of which are fast with others. */
function badNodes(g: PairGraph): Set<string> {
  const bad = new Set<string>();
  for (const n of g.names) {
    const mine = g.of(n);
    const proven = mine.filter((p) => g.provenGood(g.other(p, n)));
    if (mine.length >= 2 && mine.every((p) => p.slow) && proven.length >= 2) bad.add(n);
  }
  return bad;
}

/** Slow pairs no bad node explains: a link when both nodes are fast elsewhere, else suspects to re-test. */
function unexplainedSlowPairs(
  g: PairGraph,
  pairs: readonly PairVerdict[],
  bad: ReadonlySet<string>,
): { links: PairVerdict[]; suspects: Set<string> } {
  const links: PairVerdict[] = [];
  const suspects = new Set<string>();
  for (const p of pairs) {
    if (!p.slow || bad.has(p.a) || bad.has(p.b)) continue;
    if (g.provenGood(p.a) && g.provenGood(p.b)) links.push(p);
    else for (const n of [p.a, p.b]) if (!g.provenGood(n)) suspects.add(n);
  }
  return { links, suspects };
}

/**
 * Each suspect's next test: a known-good node it has not met, a different one per suspect while any are left, so
 * that the re-tests run side by side (the second pass of GPU cluster health scanners).
 */
function retestPlan(g: PairGraph, suspects: ReadonlySet<string>, bad: ReadonlySet<string>): PairsReport["retest"] {
  const plan: PairsReport["retest"] = [];
  const busy = new Set<string>();
  for (const n of [...suspects].sort(naturalCompare)) {
    const tried = new Set(g.of(n).map((p) => g.other(p, n)));
    const candidates = g.names.filter((c) => c !== n && !tried.has(c) && !bad.has(c) && g.provenGood(c));
    const good = candidates.find((c) => !busy.has(c)) ?? candidates[0] ?? null;
    if (good) busy.add(good);
    plan.push({ node: n, with: good });
  }
  return plan;
}

export function judgePairs(measurements: readonly PairMeasurement[], opts: JudgeOptions = {}): PairsReport {
  const tolerance = opts.tolerance ?? DEFAULT_TOLERANCE;
  if (!(tolerance > 0 && tolerance <= 1)) throw new RangeError(`tolerance must be in (0, 1]; got ${tolerance}`);
  const { pairs: merged, problems } = mergePairs(measurements);
  const impossible = measurements
    .filter((m) => m.impossible !== undefined || (m.busbw !== null && !Number.isFinite(m.busbw)))
    .map((m) =>
      makeFinding(F, "PAIR_IMPOSSIBLE_BANDWIDTH", m.source, {
        source: m.source,
        why: m.impossible ?? `busbw ${m.busbw} GB/s is not a bandwidth`,
      }),
    );
  const failed = measurements
    .filter((m) => m.failed !== undefined)
    .map((m) =>
      makeFinding(F, "PAIR_RUN_FAILED", m.source, {
        source: m.source,
        hosts: [...new Set(m.hosts)].sort(naturalCompare),
        failure: m.failed ?? "",
      }),
    );
  const corrupt = measurements
    .filter((m) => m.corrupt !== undefined && m.failed === undefined)
    .map((m) =>
      makeFinding(F, "PAIR_RUN_CORRUPT", m.source, {
        source: m.source,
        hosts: [...new Set(m.hosts)].sort(naturalCompare),
        corruption: m.corrupt ?? "",
      }),
    );
  impossible.unshift(...failed, ...corrupt);
  const pairs = [...merged.values()].sort((x, y) => naturalCompare(x.a, y.a) || naturalCompare(x.b, y.b));
  const best = pairs.reduce<PairVerdict | null>((m, p) => (m === null || p.busbw > m.busbw ? p : m), null);
  // The median pair, not the best: one fast outlier (a pair that shared a switch, a lucky run) must not make the
  // whole fleet look slow, and a bad node is in a minority of the pairs (fleet bench judges the same way). With
  // fewer than 3 pairs there is no median to speak of, and the best pair is the reference.
  const busbws = pairs.map((p) => p.busbw);
  const useMedian = opts.expectGBps === undefined && pairs.length >= 3;
  const mid = useMedian ? median(busbws) : null;
  const referenceGBps = opts.expectGBps ?? mid ?? best?.busbw ?? null;
  const referenceFrom =
    opts.expectGBps !== undefined
      ? "the expected bandwidth"
      : useMedian
        ? `the median of ${pairs.length} pairs`
        : best
          ? `the best pair, ${best.a}↔${best.b}`
          : null;
  const empty: PairsReport = {
    schemaVersion: 1,
    tolerance,
    referenceGBps,
    referenceFrom,
    thresholdGBps: null,
    pairs,
    nodes: [],
    retest: [],
    findings: impossible,
    problems,
  };
  if (referenceGBps === null || referenceFrom === null) return empty;
  const thresholdGBps = mid !== null ? slowThreshold(mid, mad(busbws, mid), tolerance) : referenceGBps * tolerance;
  for (const p of pairs) p.slow = p.busbw < thresholdGBps;

  const g = pairGraph(pairs);
  const ref = { referenceGBps, thresholdGBps, tolerance, referenceFrom };
  const findings: Finding[] = [...impossible];
  let bad = new Set<string>();
  let suspects = new Set<string>();
  if (pairs.length > 0 && pairs.every((p) => p.slow)) {
    // Against an expected figure every pair can fall short: then the cause is shared, not one node.
    findings.push(makeFinding(F, "PAIRS_ALL_SLOW", "pairs", { ...ref, pairs: pairs.length, bestGBps: best!.busbw }));
  } else {
    bad = badNodes(g);
    for (const n of bad) {
      const provenPartners = g
        .of(n)
        .map((p) => g.other(p, n))
        .filter(g.provenGood);
      findings.push(makeFinding(F, "PAIR_BAD_NODE", n, { ...ref, slow: g.slowWith(n), provenPartners }));
    }
    const unexplained = unexplainedSlowPairs(g, pairs, bad);
    for (const p of unexplained.links) {
      // One slow run may be a one-off (a neighbour's job on the same switch); a repeated one is the path.
      const evidence = { ...ref, a: p.a, b: p.b, busbw: p.busbw, runs: p.sources.length };
      const severity = p.sources.length >= 2 ? "error" : "warning";
      findings.push(makeFinding(F, "PAIR_BAD_LINK", `${p.a}↔${p.b}`, evidence, severity));
    }
    suspects = unexplained.suspects;
  }
  const retest = retestPlan(g, suspects, bad);
  for (const t of retest) {
    findings.push(makeFinding(F, "PAIR_SUSPECT", t.node, { ...ref, slow: g.slowWith(t.node), retestWith: t.with }));
  }
  if (pairs.length < 2 && opts.expectGBps === undefined) {
    findings.push(makeFinding(F, "PAIRS_TOO_FEW", "pairs", { pairs: pairs.length }));
  }
  const names = g.names;
  const nodes: NodeVerdict[] = names.map((n) => {
    const mine = g.of(n);
    return {
      node: n,
      pairs: mine.length,
      slowPairs: mine.filter((p) => p.slow).length,
      verdict: bad.has(n) ? "bad_node" : suspects.has(n) ? "suspect" : "ok",
    };
  });
  return { ...empty, thresholdGBps, nodes, retest, findings };
}

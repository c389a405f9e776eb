/**
 * Which nodes, rails and links the results point at, and how sure that is. A fast test clears both of its nodes
 * (a ring runs at the pace of its slowest rail, so a fast pair proves every rail of both); a slow test is evidence
 * against whichever side is not proven good, once the path between them is known to be sound. Pure: it reads only
 * the results and the fabric view, never the simulator's faults.
 *
 * - bad node: slow against proven-good partners, on every rail of a rail test;
 * - bad rail (node + HCA): a rail test with a proven-good partner slow on that HCA only;
 * - bad leaf uplink: proven-good nodes of a leaf slow with proven-good nodes of other leaves, half the time or more;
 * - bad link (node pair): two proven-good nodes slow together on a sound path, in two runs.
 * Confidence: high (an error) = two or more slow tests against proven-good partners, or one rail test against a
 * proven-good partner of the same leaf (no uplink in the path; the partner's rails, and for a rail the node's
 * other rails, are the control); medium (a warning, with the re-test that would confirm it) = one slow pair test
 * against a proven-good partner; low = slow only with unproven partners (a suspect).
 */

import { type FabricView, type JobResult, linkSubject, railSubject, uplinkSubject } from "../types.js";
import { type Evidence, type JudgedTest, judgeResults } from "./evidence.js";

export type Confidence = "high" | "medium" | "low";

export type Observation = {
  round: number;
  job: string;
  partner: string;
  hca: string | null;
  busbw: number;
  pctOfMedian: number;
  pctOfLine: number;
  /** A rail test: how many of its HCAs were slow (`hca` is then the slowest). */
  slowRails?: number;
  rails?: number;
};

/** The next test that would confirm or clear a verdict. */
export type Retest =
  /** A rail test of `node` with a proven-good partner it has not met (same leaf first: no uplink in the path). */
  | { kind: "rails-with-good"; node: string }
  /** The same pair again: a bad path stays slow, a one-off does not. */
  | { kind: "rerun-pair"; a: string; b: string }
  /** Proven-good nodes of each leaf with proven-good nodes of other leaves: an uplink fault slows them all. */
  | { kind: "cross-leaf"; leaves: string[] };

export type VerdictKind = "node" | "rail" | "uplink" | "link" | "suspect" | "flaky";

export type Verdict = {
  kind: VerdictKind;
  subject: string;
  confidence: Confidence;
  /** The slow tests behind it. */
  observations: Observation[];
  /** Runs of the same subject that were fast (a flaky path), when any. */
  fastRuns: number;
  retest: Retest;
  node?: string;
  hca?: string;
  leaf?: string;
};

export type Diagnosis = Evidence & {
  /** Nodes with at least one fast test. */
  good: ReadonlySet<string>;
  /** Leaves whose uplink is judged bad (paths through them explain slow tests). */
  badLeaves: ReadonlySet<string>;
  /** Partners each node has been tested with. */
  partners: ReadonlyMap<string, ReadonlySet<string>>;
  /** Nodes with no result yet (not scheduled, failed, or resting), and how many of their jobs failed. */
  untested: ReadonlyMap<string, number>;
  verdicts: Verdict[];
};

export type DiagnoseOptions = { tolerance?: number };

export const DEFAULT_FLEET_TOLERANCE = 0.9;

const observation = (t: JudgedTest, partner: string): Observation => ({
  round: t.job.round,
  job: t.job.id,
  partner,
  hca: t.hca,
  busbw: Math.round(t.busbw * 100) / 100,
  pctOfMedian: t.pctOfMedian,
  pctOfLine: t.pctOfLine,
});

const confidenceOf = (n: number): Confidence => (n >= 2 ? "high" : n === 1 ? "medium" : "low");

/** Groups a job's judged tests (one for a pair, one per HCA for a rail test). */
function byJob(tests: readonly JudgedTest[]): Map<string, JudgedTest[]> {
  const m = new Map<string, JudgedTest[]>();
  for (const t of tests) {
    const list = m.get(t.job.id);
    if (list) list.push(t);
    else m.set(t.job.id, [t]);
  }
  return m;
}

function provenGood(jobs: Map<string, JudgedTest[]>): Set<string> {
  const good = new Set<string>();
  for (const tests of jobs.values()) {
    if (tests.every((t) => !t.slow)) for (const n of tests[0]!.job.nodes) good.add(n);
  }
  return good;
}

/**
 * Leaves whose proven-good nodes are slow with proven-good nodes of other leaves in half or more of such pair
 * tests (at least two). Taken worst first, and each bad leaf's crossings are set aside before the next is judged:
 * the leaves on the far side of a bad uplink are then not blamed for it.
 */
function judgeUplinks(
  pairTests: readonly JudgedTest[],
  leafOf: ReadonlyMap<string, string>,
  good: ReadonlySet<string>,
): { bad: Set<string>; slowBy: Map<string, JudgedTest[]>; total: Map<string, number> } {
  const crossings = pairTests.filter((t) => {
    const la = leafOf.get(t.a);
    const lb = leafOf.get(t.b);
    return la !== undefined && lb !== undefined && la !== lb && good.has(t.a) && good.has(t.b);
  });
  const bad = new Set<string>();
  const slowBy = new Map<string, JudgedTest[]>();
  const total = new Map<string, number>();
  for (;;) {
    const slow = new Map<string, JudgedTest[]>();
    const all = new Map<string, number>();
    for (const t of crossings) {
      const ends = [leafOf.get(t.a)!, leafOf.get(t.b)!];
      if (ends.some((l) => bad.has(l))) continue;
      for (const leaf of ends) {
        all.set(leaf, (all.get(leaf) ?? 0) + 1);
        if (!t.slow) continue;
        const list = slow.get(leaf);
        if (list) list.push(t);
        else slow.set(leaf, [t]);
      }
    }
    let worst: string | null = null;
    let worstRatio = 0;
    for (const [leaf, list] of slow) {
      const ratio = list.length / all.get(leaf)!;
      if (list.length >= 2 && ratio >= 0.5 && ratio > worstRatio) [worst, worstRatio] = [leaf, ratio];
    }
    if (worst === null) return { bad, slowBy, total };
    bad.add(worst);
    slowBy.set(worst, slow.get(worst)!);
    total.set(worst, all.get(worst)!);
  }
}

type NodeCase = {
  pairObs: Observation[];
  nodeObs: Observation[];
  railObs: Map<string, Observation[]>;
  unproven: Observation[];
  /** A rail test against a proven-good partner of the same leaf was slow. */
  controlled: boolean;
};

export function diagnose(view: FabricView, results: readonly JobResult[], opts: DiagnoseOptions = {}): Diagnosis {
  const evidence = judgeResults(view, results, opts.tolerance ?? DEFAULT_FLEET_TOLERANCE);
  const jobs = byJob(evidence.tests);
  const good = provenGood(jobs);
  const leafOf = view.leafOf;
  const partners = new Map<string, Set<string>>();
  for (const r of results) {
    const [a, b] = r.job.nodes;
    partners.set(a, (partners.get(a) ?? new Set()).add(b));
    partners.set(b, (partners.get(b) ?? new Set()).add(a));
  }
  const pairTests = evidence.tests.filter((t) => t.hca === null);
  const uplinks = judgeUplinks(pairTests, leafOf, good);
  const pathSound = (a: string, b: string) =>
    leafOf.get(a) === leafOf.get(b) || (!uplinks.bad.has(leafOf.get(a)!) && !uplinks.bad.has(leafOf.get(b)!));

  const cases = new Map<string, NodeCase>();
  const caseOf = (n: string) => {
    const known = cases.get(n);
    if (known) return known;
    const c: NodeCase = { pairObs: [], nodeObs: [], railObs: new Map(), unproven: [], controlled: false };
    cases.set(n, c);
    return c;
  };
  const links = new Map<string, { a: string; b: string; slow: Observation[]; fast: number }>();
  const linkOf = (a: string, b: string) => {
    const key = linkSubject(a, b);
    const known = links.get(key);
    if (known) return known;
    const l = { a: a < b ? a : b, b: a < b ? b : a, slow: [] as Observation[], fast: 0 };
    links.set(key, l);
    return l;
  };

  for (const tests of jobs.values()) {
    const job = tests[0]!.job;
    const [a, b] = job.nodes;
    const slow = tests.filter((t) => t.slow);
    if (!pathSound(a, b)) {
      // Explained by a bad uplink: says nothing about either node, which stays to be tested inside its leaf.
      if (slow.length === 0) continue;
      const worst = slow.reduce((m, t) => (t.busbw < m.busbw ? t : m));
      if (!good.has(a)) caseOf(a).unproven.push(observation(worst, b));
      if (!good.has(b)) caseOf(b).unproven.push(observation(worst, a));
      continue;
    }
    if (slow.length === 0) {
      if (job.kind === "pair" && links.has(linkSubject(a, b))) linkOf(a, b).fast++;
      continue;
    }
    const worst = slow.reduce((m, t) => (t.busbw < m.busbw ? t : m));
    if (good.has(a) && good.has(b)) {
      // Both reach full speed elsewhere: the path between them (or a flapping port).
      linkOf(a, b).slow.push(observation(worst, `${a}↔${b}`));
      continue;
    }
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      if (good.has(x)) continue;
      const c = caseOf(x);
      if (!good.has(y)) {
        c.unproven.push(observation(worst, y));
        continue;
      }
      if (job.kind === "pair") {
        c.pairObs.push(observation(worst, y));
        continue;
      }
      if (leafOf.get(x) === leafOf.get(y)) c.controlled = true;
      if (slow.length > view.hcas.length / 2) {
        c.nodeObs.push({ ...observation(worst, y), slowRails: slow.length, rails: tests.length });
      } else for (const t of slow) c.railObs.set(t.hca!, [...(c.railObs.get(t.hca!) ?? []), observation(t, y)]);
    }
  }

  const verdicts: Verdict[] = [];
  for (const [leaf, slow] of uplinks.slowBy) {
    verdicts.push({
      kind: "uplink",
      subject: uplinkSubject(leaf),
      leaf,
      confidence: confidenceOf(slow.length),
      observations: slow.map((t) => observation(t, leafOf.get(t.a) === leaf ? t.b : t.a)),
      fastRuns: uplinks.total.get(leaf)! - slow.length,
      retest: { kind: "cross-leaf", leaves: [leaf] },
    });
  }
  for (const [node, c] of cases) {
    if (c.railObs.size > 0) {
      for (const [hca, obs] of c.railObs) {
        const all = [...c.pairObs, ...obs];
        verdicts.push({
          kind: "rail",
          subject: railSubject(node, hca),
          node,
          hca,
          confidence: c.controlled ? "high" : confidenceOf(all.length),
          observations: all,
          fastRuns: 0,
          retest: { kind: "rails-with-good", node },
        });
      }
    } else if (c.nodeObs.length + c.pairObs.length > 0) {
      const all = [...c.pairObs, ...c.nodeObs];
      // Without a rail test a bad rail looks like a bad node: stay at medium until one has run.
      const railTested = c.nodeObs.length > 0 || !results.some((r) => r.job.kind === "rails");
      verdicts.push({
        kind: "node",
        subject: node,
        node,
        confidence: c.controlled ? "high" : railTested ? confidenceOf(all.length) : "medium",
        observations: all,
        fastRuns: 0,
        retest: { kind: "rails-with-good", node },
      });
    } else {
      verdicts.push({
        kind: "suspect",
        subject: node,
        node,
        confidence: "low",
        observations: c.unproven,
        fastRuns: 0,
        retest: { kind: "rails-with-good", node },
      });
    }
  }
  for (const l of links.values()) {
    const crossLeaf = leafOf.get(l.a) !== leafOf.get(l.b);
    const flaky = l.fast > 0;
    verdicts.push({
      kind: flaky ? "flaky" : "link",
      subject: linkSubject(l.a, l.b),
      confidence: flaky ? "medium" : confidenceOf(l.slow.length),
      observations: l.slow,
      fastRuns: l.fast,
      retest:
        flaky || !crossLeaf || l.slow.length >= 2
          ? { kind: "rerun-pair", a: l.a, b: l.b }
          : { kind: "cross-leaf", leaves: [leafOf.get(l.a)!, leafOf.get(l.b)!] },
    });
  }
  const tested = new Set(evidence.tests.flatMap((t) => [t.a, t.b]));
  const untested = new Map(view.nodes.filter((n) => !tested.has(n)).map((n) => [n, 0]));
  for (const r of results)
    for (const n of r.job.nodes) if (!r.ok && untested.has(n)) untested.set(n, untested.get(n)! + 1);
  return { ...evidence, good, badLeaves: uplinks.bad, partners, untested, verdicts };
}

/** The retests still worth running: every verdict short of high confidence (flaky paths are reported, not chased). */
export function pendingRetests(d: Diagnosis): Retest[] {
  return d.verdicts.filter((v) => v.confidence !== "high" && v.kind !== "flaky").map((v) => v.retest);
}

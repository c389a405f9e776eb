/**
 * Planners: which 2-node jobs each round runs. Jobs of one round share no node, so they run side by side.
 *
 * - `pairs`: today's circle method (`bench pairs`): n−1 rounds in which every node meets every other once.
 * - `adaptive`: round 1 pairs everyone once — half of each leaf with a neighbour under the same leaf, the other
 *   half with nodes spread over the other leaves (so every leaf's uplink is crossed several times, each time towards
 *   a different leaf); later rounds re-test only what the diagnosis has not settled: each suspect in a rail test
 *   (one HCA per rank) with a proven-good partner of its own leaf, slow pairs again, and proven-good nodes across
 *   leaves to name an uplink. Pure.
 */

import { pairRounds } from "../../nccl/pairs/schedule.js";
import { type Diagnosis, pendingRetests, type Retest } from "../bench/diagnose.js";
import { createRandom } from "../prng.js";
import { maxOf } from "../stats.js";
import type { BenchJob, FabricView } from "../types.js";

export const PLANS = ["adaptive", "pairs"] as const;
export type PlanName = (typeof PLANS)[number];

export type Planner = {
  name: PlanName;
  /** The jobs of `round` (1-based) given what is known so far (diagnosed only when asked); empty when done. */
  next(round: number, diagnosis: () => Diagnosis): BenchJob[];
};

const job = (round: number, i: number, kind: BenchJob["kind"], a: string, b: string, why: string): BenchJob => ({
  id: `r${round}-${i + 1}`,
  round,
  kind,
  nodes: [a, b],
  why,
});

/** Today's circle method. */
export function pairsPlanner(view: FabricView): Planner {
  const rounds = view.nodes.length >= 2 ? pairRounds([...view.nodes]) : [];
  return {
    name: "pairs",
    next: (round) =>
      (rounds[round - 1]?.pairs ?? []).map(([a, b], i) =>
        job(round, i, "pair", a, b, `round ${round} of ${rounds.length}: every pair once`),
      ),
  };
}

function byLeaf(view: FabricView, nodes: readonly string[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const n of nodes) {
    const leaf = view.leafOf.get(n) ?? "";
    const list = m.get(leaf);
    if (list) list.push(n);
    else m.set(leaf, [n]);
  }
  return m;
}

/** Round 1: every node once; half of each leaf with a neighbour under it, the rest across leaves. */
export function firstRound(view: FabricView, seed = 1): [string, string, string][] {
  const rnd = createRandom(seed);
  const pairs: [string, string, string][] = [];
  const crossing = new Map<string, string[]>();
  for (const [leaf, members] of byLeaf(view, view.nodes)) {
    const shuffled = rnd.shuffle(members);
    const inside = 2 * Math.floor(shuffled.length / 4);
    for (let i = 0; i < inside; i += 2)
      pairs.push([shuffled[i]!, shuffled[i + 1]!, "round 1: a neighbour under the same leaf"]);
    crossing.set(leaf, shuffled.slice(inside));
  }
  // Each crossing node goes to one of the fullest other leaves, picked at random among them: partners spread over
  // every leaf, so a slow uplink shows as one leaf slow with many others, not as two leaves slow with each other.
  for (;;) {
    const open = [...crossing.entries()].filter(([, m]) => m.length > 0);
    if (open.length === 0) break;
    const most = maxOf(open.map(([, m]) => m.length));
    const fullest = open.filter(([, m]) => m.length === most);
    const [leaf, members] = fullest[rnd.int(fullest.length)]!;
    const a = members.shift()!;
    const others = open.filter(([l, m]) => l !== leaf && m.length > 0);
    const top = Math.max(0, ...others.map(([, m]) => m.length));
    const candidates = others.filter(([, m]) => m.length === top);
    const other = candidates.length ? candidates[rnd.int(candidates.length)] : undefined;
    const b = other ? other[1].shift() : members.shift();
    if (b === undefined) break; // one node left over: it rests this round
    pairs.push([a, b, other ? "round 1: across leaves (uplinks)" : "round 1: a neighbour under the same leaf"]);
  }
  return pairs;
}

/** Assigns partners to the diagnosis's re-tests; no node twice in a round, no partner it has already met. */
export function retestRound(view: FabricView, d: Diagnosis, round: number): BenchJob[] {
  const busy = new Set<string>();
  const jobs: BenchJob[] = [];
  const met = (a: string, b: string) => d.partners.get(a)?.has(b) ?? false;
  const goodByLeaf = byLeaf(
    view,
    view.nodes.filter((n) => d.good.has(n)),
  );
  const leafOf = (n: string) => view.leafOf.get(n) ?? "";
  const free = (candidates: readonly string[] | undefined, node: string) =>
    (candidates ?? []).find((c) => c !== node && !busy.has(c) && !met(node, c));
  const add = (kind: BenchJob["kind"], a: string, b: string, why: string) => {
    busy.add(a).add(b);
    jobs.push(job(round, jobs.length, kind, a, b, why));
  };
  const leafSize = new Map([...byLeaf(view, view.nodes)].map(([leaf, members]) => [leaf, members.length]));
  // Nodes without a result yet (the odd one out of round 1, a job that failed) get one more try, then are left.
  const untried: Retest[] = [...d.untested]
    .filter(([, failures]) => failures < 2)
    .map(([node]) => ({ kind: "rails-with-good", node }));
  const requests = [...pendingRetests(d), ...untried];
  const seen = new Set<string>();
  const unique = requests.filter((r) => {
    const key = JSON.stringify(r);
    return !seen.has(key) && seen.add(key);
  });
  const waiting: string[] = [];
  for (const r of unique) {
    if (r.kind === "rails-with-good") {
      if (busy.has(r.node)) continue;
      const leaf = leafOf(r.node);
      let partner = free(goodByLeaf.get(leaf), r.node);
      // Across leaves only where the leaf has no one else: an uplink in the path could make anyone look slow.
      if (!partner && !d.badLeaves.has(leaf) && (leafSize.get(leaf) ?? 0) < 2) {
        for (const [other, members] of goodByLeaf) {
          if (other === leaf || d.badLeaves.has(other)) continue;
          partner = free(members, r.node);
          if (partner) break;
        }
      }
      if (partner)
        add("rails", r.node, partner, `re-test ${r.node} rail by rail with ${partner}, which reached full speed`);
      else waiting.push(r.node);
    } else if (r.kind === "rerun-pair") {
      if (!busy.has(r.a) && !busy.has(r.b)) add("pair", r.a, r.b, `run ${r.a}↔${r.b} again: a bad path stays slow`);
    } else {
      crossLeaf(r, goodByLeaf, d, busy, add);
    }
  }
  // Suspects with no proven-good partner left: with each other under the same leaf (a fast result clears both).
  for (const [, members] of byLeaf(view, waiting)) {
    const open = members.filter((n) => !busy.has(n));
    for (let i = 0; i + 1 < open.length; i += 2) {
      const [a, b] = [open[i]!, open[i + 1]!];
      add("rails", a, b, `re-test suspects ${a} and ${b} together, rail by rail (no proven-good partner free)`);
    }
  }
  return jobs;
}

/** Two proven-good nodes of each leaf, each with a proven-good node of another sound leaf. */
function crossLeaf(
  r: Extract<Retest, { kind: "cross-leaf" }>,
  goodByLeaf: Map<string, string[]>,
  d: Diagnosis,
  busy: Set<string>,
  add: (kind: BenchJob["kind"], a: string, b: string, why: string) => void,
): void {
  for (const leaf of r.leaves) {
    let tests = 0;
    for (const a of goodByLeaf.get(leaf) ?? []) {
      if (tests >= 2) break;
      if (busy.has(a)) continue;
      for (const [other, members] of goodByLeaf) {
        if (other === leaf || r.leaves.includes(other) || d.badLeaves.has(other)) continue;
        const b = members.find((m) => !busy.has(m) && !(d.partners.get(a)?.has(m) ?? false));
        if (!b) continue;
        add("pair", a, b, `cross ${leaf}'s uplink: ${a} with ${b} of ${other}`);
        tests++;
        break;
      }
    }
  }
}

export function adaptivePlanner(view: FabricView, seed = 1): Planner {
  return {
    name: "adaptive",
    next(round, d) {
      if (round === 1) return firstRound(view, seed).map(([a, b, why], i) => job(1, i, "pair", a, b, why));
      return retestRound(view, d(), round);
    },
  };
}

export function createPlanner(name: PlanName, view: FabricView): Planner {
  return name === "pairs" ? pairsPlanner(view) : adaptivePlanner(view);
}

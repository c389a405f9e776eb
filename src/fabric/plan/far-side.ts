/**
 * The far side of a leaf whose paths are unknown. Flows out of such a leaf cannot be placed on its uplinks (its
 * switch hashes with a seed the calculator does not know), but flows into it are hashed by leaves and spines the
 * calculator does know: the spine port each one came down through is traced exactly. Every test of that leaf is a
 * rail test both ways, so a slow one may be slow on the way out (an unplaceable uplink, or flows colliding there
 * unforeseen) or on the way in. Out-of-leaf slowness falls on every spine port facing the leaf alike, at the leaf's
 * base rate; a spine port (or the cable behind it, when it is bad both ways) that slows what it sends down makes
 * every test through it slow. A port is named when its slow tests are too many for the base rate of the other ports
 * facing the same leaf to explain: a one-sided binomial tail, with the ports facing the leaf as the multiple tests
 * (Bonferroni). Pure.
 */
import type { AloneBlame } from "./hop-judge.js";

/**
 * Per spine port facing a leaf with unknown paths: tests through it whose other traced hops were proven, and how
 * many were slow; per test, the group it ran in (tests that ran at the same time) and whether it was slow.
 */
export type FarTally = {
  leaf: string;
  crossed: number;
  slow: number;
  blames: AloneBlame[];
  tests: { group: string; slow: boolean }[];
};

/** Chance of a false naming per leaf, over all of its ports together. */
export const FAR_SIDE_ALPHA = 1e-3;
/** Slow tests a port needs at least, whatever the base rate. */
export const FAR_SIDE_LEAST = 3;

/**
 * P(X ≥ k) for X the number of successes of independent trials with chances `ps` (Poisson binomial), by dynamic
 * programming over the trials; with equal chances it is the binomial tail.
 */
export function poissonBinomialTail(ps: readonly number[], k: number): number {
  if (k <= 0) return 1;
  if (k > ps.length) return 0;
  // dist[j]: chance of exactly j successes so far.
  let dist = [1];
  for (const p of ps) {
    const next = new Array<number>(dist.length + 1).fill(0);
    dist.forEach((x, j) => {
      next[j]! += x * (1 - p);
      next[j + 1]! += x * p;
    });
    dist = next;
  }
  return Math.min(
    1,
    dist.slice(k).reduce((a, b) => a + b, 0),
  );
}

/** P(X ≥ k) for X ~ Binomial(n, p). */
export const binomialTail = (n: number, k: number, p: number) =>
  poissonBinomialTail(new Array<number>(Math.max(0, n)).fill(Math.min(1, Math.max(0, p))), k);

export type FarSideVerdict = { hop: string; leaf: string; crossed: number; slow: number; baseRate: number; p: number };

/**
 * Ports whose slow share the base rate of the other ports facing their leaf does not explain. `portsPerLeaf`:
 * how many spine ports face one leaf (the multiple tests).
 */
export function farSideBad(tallies: ReadonlyMap<string, FarTally>, portsPerLeaf: number): FarSideVerdict[] {
  // Per leaf and group: tests and slow tests, so that each test is held against the load it ran under (a round
  // that sent few flows out of the leaf collides less there than one that loaded every uplink).
  const perGroup = new Map<string, { crossed: number; slow: number }>();
  const perLeaf = new Map<string, { crossed: number; slow: number }>();
  const add = (m: Map<string, { crossed: number; slow: number }>, key: string, slow: boolean, sign: 1 | -1) => {
    const x = m.get(key) ?? { crossed: 0, slow: 0 };
    x.crossed += sign;
    if (slow) x.slow += sign;
    m.set(key, x);
  };
  for (const t of tallies.values())
    for (const x of t.tests) {
      add(perGroup, `${t.leaf}|${x.group}`, x.slow, 1);
      add(perLeaf, t.leaf, x.slow, 1);
    }
  const out: FarSideVerdict[] = [];
  for (const [hop, t] of tallies) {
    if (t.slow < FAR_SIDE_LEAST) continue;
    const all = perLeaf.get(t.leaf)!;
    const others = all.crossed - t.crossed;
    // With nothing else to compare against there is no base rate: no naming.
    if (others <= 0) continue;
    const baseRate = (all.slow - t.slow) / others;
    // Each test's chance of being slow anyway: the share slow through the leaf's other ports in its group, or the
    // leaf's overall share where no other port was crossed in that group.
    const own = new Map<string, { crossed: number; slow: number }>();
    for (const x of t.tests) add(own, x.group, x.slow, 1);
    const chances = t.tests.map((x) => {
      const g = perGroup.get(`${t.leaf}|${x.group}`)!;
      const mine = own.get(x.group)!;
      const n = g.crossed - mine.crossed;
      return n > 0 ? (g.slow - mine.slow) / n : baseRate;
    });
    const p = poissonBinomialTail(chances, t.slow);
    if (p * Math.max(1, portsPerLeaf) < FAR_SIDE_ALPHA)
      out.push({ hop, leaf: t.leaf, crossed: t.crossed, slow: t.slow, baseRate, p });
  }
  return out.sort((a, b) => a.hop.localeCompare(b.hop));
}

/** Ports facing a leaf with unknown paths slow in at least two tests and three in four: worth crossing again. */
export function farSideSuspects(tallies: ReadonlyMap<string, FarTally>): string[] {
  return [...tallies]
    .filter(([, t]) => t.slow >= 2 && t.slow >= 0.75 * t.crossed)
    .map(([h]) => h)
    .sort();
}

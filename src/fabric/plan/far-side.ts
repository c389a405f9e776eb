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

/** Per spine port facing a leaf with unknown paths: tests through it whose other traced hops were proven, and how many were slow. */
export type FarTally = { leaf: string; crossed: number; slow: number; blames: AloneBlame[] };

/** Chance of a false naming per leaf, over all of its ports together. */
export const FAR_SIDE_ALPHA = 1e-3;
/** Slow tests a port needs at least, whatever the base rate. */
export const FAR_SIDE_LEAST = 3;

/** P(X ≥ k) for X ~ Binomial(n, p), summed term by term (n is at most a few hundred). */
export function binomialTail(n: number, k: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  // log C(n, i) + i log p + (n - i) log(1 - p), from i = k up.
  let logC = 0;
  for (let i = 1; i <= k; i++) logC += Math.log((n - k + i) / i);
  let sum = 0;
  for (let i = k; i <= n; i++) {
    sum += Math.exp(logC + i * Math.log(p) + (n - i) * Math.log1p(-p));
    logC += Math.log((n - i) / (i + 1));
  }
  return Math.min(1, sum);
}

export type FarSideVerdict = { hop: string; leaf: string; crossed: number; slow: number; baseRate: number; p: number };

/**
 * Ports whose slow share the base rate of the other ports facing their leaf does not explain. `portsPerLeaf`:
 * how many spine ports face one leaf (the multiple tests).
 */
export function farSideBad(tallies: ReadonlyMap<string, FarTally>, portsPerLeaf: number): FarSideVerdict[] {
  const perLeaf = new Map<string, { crossed: number; slow: number }>();
  for (const t of tallies.values()) {
    const x = perLeaf.get(t.leaf) ?? { crossed: 0, slow: 0 };
    x.crossed += t.crossed;
    x.slow += t.slow;
    perLeaf.set(t.leaf, x);
  }
  const out: FarSideVerdict[] = [];
  for (const [hop, t] of tallies) {
    if (t.slow < FAR_SIDE_LEAST) continue;
    const all = perLeaf.get(t.leaf)!;
    const others = all.crossed - t.crossed;
    // With nothing else to compare against there is no base rate: no naming.
    if (others <= 0) continue;
    const baseRate = (all.slow - t.slow) / others;
    const p = binomialTail(t.crossed, t.slow, baseRate);
    if (p * Math.max(1, portsPerLeaf) < FAR_SIDE_ALPHA)
      out.push({ hop, leaf: t.leaf, crossed: t.crossed, slow: t.slow, baseRate, p });
  }
  return out.sort((a, b) => a.hop.localeCompare(b.hop));
}

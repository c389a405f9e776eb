/** A small seedable random source (mulberry32): the same seed gives the same fleet, faults and noise. Pure. */
export type Random = {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (Box–Muller). */
  gauss(): number;
  /** Whole number in [0, n). */
  int(n: number): number;
  /** k distinct items of `from`, in random order. */
  pick<T>(from: readonly T[], k: number): T[];
  shuffle<T>(items: readonly T[]): T[];
};

export function createRandom(seed: number): Random {
  let state = seed >>> 0 || 0x9e3779b9;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const shuffle = <T>(items: readonly T[]): T[] => {
    const a = [...items];
    for (let i = a.length - 1; i > 0; i--) {
      const j = int(i + 1);
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  };
  return {
    next,
    int,
    shuffle,
    gauss: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()),
    pick: (from, k) => shuffle(from).slice(0, k),
  };
}

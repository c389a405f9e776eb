/**
 * Round-robin schedule of 2-node tests (the "circle method" of SuperBench's pair-wise pattern and ClusterKit's FULL
 * mode): n−1 rounds of n/2 disjoint pairs for an even n, so every node meets every other once and no node is in two
 * tests at a time. An odd n gets n rounds, one node resting in each. Pure.
 */
export type PairRound = {
  /** 1-based. */
  round: number;
  pairs: [string, string][];
  /** The node without a partner this round (odd node counts), else null. */
  rests: string | null;
};

/** Every unordered pair of `nodes` exactly once, in rounds of disjoint pairs. Throws RangeError on bad input. */
export function pairRounds(nodes: readonly string[]): PairRound[] {
  const seen = new Set<string>();
  for (const n of nodes) {
    if (n === "") throw new RangeError("a node name is empty");
    if (seen.has(n)) throw new RangeError(`node ${n} is listed twice`);
    seen.add(n);
  }
  if (nodes.length < 2) throw new RangeError(`a pair test needs at least 2 nodes; got ${nodes.length}`);
  // The circle: position 0 stays, the others turn one step per round. A null seat makes the count even.
  const seats: (string | null)[] = nodes.length % 2 === 0 ? [...nodes] : [...nodes, null];
  const n = seats.length;
  const rounds: PairRound[] = [];
  for (let r = 0; r < n - 1; r++) {
    const pairs: [string, string][] = [];
    let rests: string | null = null;
    for (let i = 0; i < n / 2; i++) {
      const a = seats[i]!;
      const b = seats[n - 1 - i]!;
      if (a === null || b === null) rests = a ?? b;
      else pairs.push([a, b]);
    }
    rounds.push({ round: r + 1, pairs, rests });
    seats.splice(1, 0, seats.pop()!);
  }
  return rounds;
}

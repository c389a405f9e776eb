import type { AnalyzeContext } from "./types.js";

/** The management HCA named by the node model (--example/--root/--snapshot), when one was given. */
export function managementHcaOf(ctx: AnalyzeContext): string | null {
  return ctx.inventory?.roles.managementHca ?? null;
}

/** The value most entries share (ties go to `prefer`'s pick); null for an empty list. */
export function mostCommon<T extends string | number>(values: readonly T[], prefer: (a: T, b: T) => T): T | null {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: T | null = null;
  let bestCount = 0;
  for (const [v, c] of counts) {
    if (c > bestCount || (c === bestCount && best !== null && prefer(v, best) === v)) {
      best = v;
      bestCount = c;
    }
  }
  return best;
}

/** `3 × 200 Gb/s` style tallies: value → count, in first-seen order. */
export function tally<T>(values: readonly T[]): [T, number][] {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts];
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

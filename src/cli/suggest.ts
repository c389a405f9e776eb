/** "Did you mean …?" for a mistyped command or flag: the known names closest to what was typed. Pure. */

/** Levenshtein distance, with an early exit once every cell of a row exceeds `max`. */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      row.push(v);
      if (v < best) best = v;
    }
    if (best > max) return best;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The names within a typo's reach of `typed` (at most 2 edits, and fewer than a third of the longer name changed),
 * nearest first; names that start with `typed` count as near too (`--snap` → `--snapshot`).
 */
export function nearestNames(typed: string, names: readonly string[]): string[] {
  const scored = names
    .map((name) => {
      const limit = Math.min(2, Math.floor(Math.max(name.length, typed.length) / 3));
      const d = editDistance(typed, name, limit);
      const prefix = typed.length >= 3 && name.startsWith(typed);
      return { name, d: prefix ? Math.min(d, limit) : d, ok: d <= limit || prefix };
    })
    .filter((s) => s.ok);
  scored.sort((a, b) => a.d - b.d || a.name.localeCompare(b.name));
  return scored.map((s) => s.name);
}

/** ` Did you mean --a or --b?` (with the leading space), or "" when nothing is near. */
export function didYouMean(typed: string, names: readonly string[], prefix = ""): string {
  const near = nearestNames(typed, names).slice(0, 3);
  return near.length > 0 ? ` Did you mean ${near.map((n) => `${prefix}${n}`).join(" or ")}?` : "";
}

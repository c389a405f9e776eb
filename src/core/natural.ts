/** Natural order: mlx5_2 before mlx5_10, eth9 before eth10. */

const isDigit = (c: number) => c >= 48 && c <= 57;

/** End of the run of digits or non-digits that starts at `i`. */
function tokenEnd(s: string, i: number): number {
  const digits = isDigit(s.charCodeAt(i));
  let k = i + 1;
  while (k < s.length && isDigit(s.charCodeAt(k)) === digits) k++;
  return k;
}

function tokensFrom(s: string, i: number): number {
  let n = 0;
  for (let k = i; k < s.length; k = tokenEnd(s, k)) n++;
  return n;
}

function sameRange(a: string, i: number, ie: number, b: string, j: number, je: number): boolean {
  if (ie - i !== je - j) return false;
  for (let k = 0; k < ie - i; k++) if (a.charCodeAt(i + k) !== b.charCodeAt(j + k)) return false;
  return true;
}

/** `a.slice(i, ie)` against `b.slice(j, je)` as strings compare (code units; a prefix first), without slicing. */
function compareRange(a: string, i: number, ie: number, b: string, j: number, je: number): number {
  const n = Math.min(ie - i, je - j);
  for (let k = 0; k < n; k++) {
    const d = a.charCodeAt(i + k) - b.charCodeAt(j + k);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return ie - i < je - j ? -1 : 1;
}

/**
 * Compares token by token (runs of digits, runs of other characters): digit runs by value (then shorter first),
 * other runs as strings; a name that is a prefix of the other comes first. Allocates only where they differ.
 */
export function naturalCompare(a: string, b: string): number {
  if (a === b) return 0;
  // Fast path: where the names first differ, neither has a digit. The runs before are then the same in both, and
  // the run that differs compares by that character (a sorted listing is checked with thousands of these).
  const n = Math.min(a.length, b.length);
  let p = 0;
  while (p < n && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  if (p < n) {
    const ca = a.charCodeAt(p);
    const cb = b.charCodeAt(p);
    if (!isDigit(ca) && !isDigit(cb)) return ca < cb ? -1 : 1;
  }
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ie = tokenEnd(a, i);
    const je = tokenEnd(b, j);
    if (!sameRange(a, i, ie, b, j, je)) {
      if (isDigit(a.charCodeAt(i)) && isDigit(b.charCodeAt(j))) {
        const d = Number(a.slice(i, ie)) - Number(b.slice(j, je));
        return d !== 0 ? d : ie - i - (je - j);
      }
      return compareRange(a, i, ie, b, j, je);
    }
    i = ie;
    j = je;
  }
  return tokensFrom(a, i) - tokensFrom(b, j);
}

/**
 * `names` in natural order: the same array when it already is (a snapshot's listings are stored sorted, so the
 * fleet's thousands of nodes skip the sort), else a sorted copy. Never changes `names`.
 */
export function naturallySorted(names: readonly string[]): readonly string[] {
  for (let i = 1; i < names.length; i++) {
    if (naturalCompare(names[i - 1]!, names[i]!) > 0) return [...names].sort(naturalCompare);
  }
  return names;
}

export function naturalSort<T>(items: readonly T[], key: (t: T) => string): T[] {
  return [...items].sort((a, b) => naturalCompare(key(a), key(b)));
}

/**
 * The decimal names of a listing (GID slots, ports) as numbers, ascending. Only names the number writes back to:
 * `007` is not slot 7's file, so it is left out like any other name.
 */
export function numericNames(names: readonly string[]): number[] {
  const out: number[] = [];
  for (const n of names) {
    if (n.length === 0 || n.length > 9 || (n.length > 1 && n.charCodeAt(0) === 48)) continue;
    let v = 0;
    let digits = true;
    for (let i = 0; i < n.length && digits; i++) {
      const c = n.charCodeAt(i) - 48;
      if (c < 0 || c > 9) digits = false;
      else v = v * 10 + c;
    }
    if (digits) out.push(v);
  }
  for (let i = 1; i < out.length; i++) if (out[i]! < out[i - 1]!) return out.sort((a, b) => a - b);
  return out; // already ascending: a snapshot's listings are stored in order
}

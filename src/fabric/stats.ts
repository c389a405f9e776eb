/** Robust statistics for fleet results: median, MAD, and the slow threshold they give. Pure. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((x, y) => x - y);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Median absolute deviation (unscaled). */
export function mad(values: readonly number[], m = median(values)): number {
  return median(values.map((v) => Math.abs(v - m)));
}

/** MAD × 1.4826 estimates the standard deviation of normal noise without being moved by the slow outliers. */
export const MAD_TO_SIGMA = 1.4826;

/**
 * Below this a result is slow: under `tolerance` × the fleet median, and also more than six robust standard
 * deviations under it (so 3 % run-to-run noise never trips it), but never lower than `floor` × the median.
 */
export function slowThreshold(m: number, madValue: number, tolerance: number, floor = 0.7): number {
  const noiseBound = 1 - (6 * MAD_TO_SIGMA * madValue) / m;
  return m * Math.max(floor, Math.min(tolerance, noiseBound));
}

/**
 * Smallest / largest of many numbers without spreading them into arguments (`Math.min(...xs)` overflows the call
 * stack past roughly 100k values: a 2,048-node, 64-rail fabric has more hops than that). NaN for none.
 */
export function minOf(values: Iterable<number>): number {
  let m = Number.POSITIVE_INFINITY;
  let any = false;
  for (const v of values) {
    any = true;
    if (v < m) m = v;
  }
  return any ? m : Number.NaN;
}

export function maxOf(values: Iterable<number>): number {
  let m = Number.NEGATIVE_INFINITY;
  let any = false;
  for (const v of values) {
    any = true;
    if (v > m) m = v;
  }
  return any ? m : Number.NaN;
}

/** Axis arithmetic for the charts: nice linear ticks, power-of-two ticks, label shortening. */

/** Up to ~`target` round ticks from 0 to at least `max` (1, 2 or 5 × 10^k apart). */
export function linearTicks(max: number, target = 6): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = 0; v < max + step; v += step) {
    ticks.push(Number(v.toPrecision(12)));
    if (v >= max) break;
  }
  return ticks;
}

/** Power-of-two exponents from lo to hi, at most ~`target` of them (every 1, 2, 4… exponents). */
export function log2Ticks(lo: number, hi: number, target = 10): number[] {
  const span = Math.max(1, hi - lo);
  let every = 1;
  while (span / every > target) every *= 2;
  const ticks: number[] = [];
  for (let e = Math.ceil(lo / every) * every; e <= hi; e += every) ticks.push(e);
  return ticks;
}

/** A label cut to `max` characters with an ellipsis (the full name goes in the element's title). */
export function shorten(label: string, max = 24): string {
  return label.length > max ? `${label.slice(0, max - 1)}…` : label;
}

/** Rounds to 0.1 px: smaller files, no visible difference. */
export const px = (n: number): number => Math.round(n * 10) / 10;

/** Numbers with their units, the way every page prints them. */

/** `8 B`, `512 KiB`, `1 MiB`, `8 GiB` (binary units, as nccl-tests sizes are powers of two). */
export function bytesText(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[i]}`;
}

/** Bus bandwidth as nccl-tests prints it, GB/s (10^9 bytes per second). */
export function gbpsText(n: number): string {
  return `${n >= 100 ? n.toFixed(1) : n.toFixed(2)} GB/s`;
}

export function percentText(fraction: number): string {
  return `${Math.round(fraction * 100)} %`;
}

/** `1 node`, `3 nodes`. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

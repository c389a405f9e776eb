/** Numbers with their units, shared by the text and HTML reports. */

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

/** Numbers with their units, the way every page prints them. */
import { bytesText } from "../../core/units.js";

export { bytesText };

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

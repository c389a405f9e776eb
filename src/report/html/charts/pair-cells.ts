/**
 * The cells of a node × node pair heat map, shared by `bench judge` and `fleet bench`: each measured pair fills both
 * of its cells, a pair without a result is crossed, and every other cell is the diagonal or "not tested".
 */
import { gbpsText, percentText } from "../format.js";
import type { MatrixCell } from "./matrix.js";

/** Red to amber below the tolerance, greens above it: the threshold is where the colour family changes. */
export function pairColour(fraction: number, tolerance: number): string {
  const clamp = (v: number) => Math.max(0, Math.min(1, v));
  const hue =
    fraction >= tolerance
      ? 95 + 45 * clamp((fraction - tolerance) / Math.max(1e-9, 1 - tolerance))
      : 40 * clamp((fraction - 0.5) / Math.max(1e-9, tolerance - 0.5));
  return `hsl(${Math.round(hue)} 62% 42%)`;
}

export type MeasuredPair = {
  a: string;
  b: string;
  busbw: number;
  /** busbw as a fraction of what the page compares with (the reference, the fleet median). */
  fraction: number;
  slow: boolean;
  marked: boolean;
  /** What the fraction is of, for the tooltip: "the reference", "the fleet median". */
  of: string;
  /** Appended to the tooltip ("; bad link"). */
  note?: string;
};

export type UnmeasuredPair = { a: string; b: string; reason: string };

/** Every cell of the `nodes` × `nodes` matrix, in the given node order. */
export function pairCells(
  nodes: readonly string[],
  measured: readonly MeasuredPair[],
  unmeasured: readonly UnmeasuredPair[],
  tolerance: number,
): MatrixCell[] {
  const index = new Map(nodes.map((n, i) => [n, i]));
  const cells: MatrixCell[] = [];
  const filled = new Set<string>();
  const both = (a: string, b: string, cell: (r: string, c: string) => Omit<MatrixCell, "row" | "col">) => {
    for (const [r, c] of [
      [a, b],
      [b, a],
    ] as const) {
      const row = index.get(r);
      const col = index.get(c);
      if (row === undefined || col === undefined) continue;
      filled.add(`${r}\u0000${c}`);
      cells.push({ row, col, ...cell(r, c) });
    }
  };
  for (const p of measured) {
    both(p.a, p.b, () => ({
      fill: pairColour(p.fraction, tolerance),
      text: `${Math.round(p.fraction * 100)}%`,
      title: `${p.a} ↔ ${p.b}: ${gbpsText(p.busbw)}, ${percentText(p.fraction)} of ${p.of}${p.slow ? " (slow)" : ""}${p.note ?? ""}`,
      marked: p.marked,
      kind: p.slow ? "pair slow" : "pair",
    }));
  }
  for (const u of unmeasured) {
    both(u.a, u.b, () => ({
      fill: "var(--muted)",
      text: "✖",
      title: `${u.a} ↔ ${u.b}: no result (${u.reason})`,
      kind: "failed",
    }));
  }
  for (const r of nodes) {
    for (const c of nodes) {
      if (filled.has(`${r}\u0000${c}`)) continue;
      cells.push({
        row: index.get(r)!,
        col: index.get(c)!,
        fill: "var(--panel)",
        title: r === c ? r : `${r} ↔ ${c}: not tested`,
        kind: r === c ? "self" : "untested",
      });
    }
  }
  return cells;
}

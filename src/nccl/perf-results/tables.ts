import type { PerfRow } from "./types.js";

/**
 * The size sweeps of one run. nccl-tests prints one column header and then, for `-o all` (every reduction op), `-d all`
 * (every data type) or `-r -1` (every root of a rooted collective), one whole sweep of sizes per op, type or root, one
 * after the other (the loops around TimeTest in https://github.com/NVIDIA/nccl-tests/blob/master/src/all_reduce.cu and
 * gather.cu). A table starts where the type, redop or root changes, or where the size goes back down. Pure.
 */
export type Table = { label: string; rows: PerfRow[] };

export type TableSummary = {
  label: string;
  type: string;
  redop: string | null;
  root: number | null;
  rows: number;
  peak: { bytes: number; busbw: number } | null;
};

const sameKind = (a: PerfRow, b: PerfRow) => a.type === b.type && a.redop === b.redop && a.root === b.root;

/** Splits rows into tables in print order; every row lands in exactly one. */
export function tablesOf(rows: readonly PerfRow[]): Table[] {
  const groups: PerfRow[][] = [];
  let prev: PerfRow | null = null;
  for (const r of rows) {
    if (!prev || !sameKind(prev, r) || r.bytes < prev.bytes) groups.push([]);
    groups[groups.length - 1]!.push(r);
    prev = r;
  }
  return labelled(groups);
}

/** Labels name what tells the tables apart: the type always, the redop and root when they vary. */
function labelled(groups: readonly PerfRow[][]): Table[] {
  const vary = (f: (r: PerfRow) => unknown) => new Set(groups.map((g) => f(g[0]!))).size > 1;
  const redops = vary((r) => r.redop);
  const roots = vary((r) => r.root);
  const seen = new Map<string, number>();
  return groups.map((rows) => {
    const r = rows[0]!;
    const parts = [r.type];
    if (redops && r.redop) parts.push(r.redop);
    if (roots && r.root !== null) parts.push(`root ${r.root}`);
    const base = parts.join(" ");
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return { label: n === 1 ? base : `${base} (${n})`, rows };
  });
}

const best = (r: PerfRow) => Math.max(r.outOfPlace?.busbw ?? 0, r.inPlace?.busbw ?? 0);

export function summariseTable(t: Table): TableSummary {
  const first = t.rows[0]!;
  let peak: TableSummary["peak"] = null;
  for (const r of t.rows) if (!peak || best(r) > peak.busbw) peak = { bytes: r.bytes, busbw: best(r) };
  return { label: t.label, type: first.type, redop: first.redop, root: first.root, rows: t.rows.length, peak };
}

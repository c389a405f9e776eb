import { collectiveOf, type PerfRow, type PerfRun } from "./types.js";

/**
 * What the table itself says when the command line is missing (pastes rarely carry it): nccl-tests prints
 * busbw = algbw × factor — 2(n−1)/n for all_reduce, (n−1)/n for all_gather, reduce_scatter and alltoall, 1 for
 * broadcast, reduce and sendrecv — and the redop and root columns tell the rest apart, as does an in-place #wrong
 * that reads N/A on every row (alltoall and sendrecv leave in-place results unchecked). Pure; tech-spec §5.2.
 */

export type CollectiveInference = {
  name: string | null;
  source: "program" | "ratio" | "ratio_and_text" | "text" | null;
  /** Collectives the table fits equally well (all_gather and alltoall print the same columns and factor). */
  candidates?: string[];
};

const REDUCING = /^(sum|prod|max|min|avg|premulsum|mulsum)$/i;
export const TYPE_BYTES: Record<string, number> = {
  int8: 1,
  uint8: 1,
  char: 1,
  half: 2,
  float16: 2,
  bfloat16: 2,
  int32: 4,
  uint32: 4,
  int: 4,
  float: 4,
  float32: 4,
  int64: 8,
  uint64: 8,
  double: 8,
  float64: 8,
};

/**
 * The `n` rows with the largest out-of-place algbw, widest first (the most significant digits, so the ratio busbw/algbw
 * is the most exact); the first of equals first.
 */
function widestRows(rows: readonly PerfRow[], n: number): PerfRow[] {
  return rows
    .filter((r) => r.outOfPlace?.busbw != null && (r.outOfPlace.algbw ?? 0) > 0.005)
    .sort((a, b) => (b.outOfPlace?.algbw ?? 0) - (a.outOfPlace?.algbw ?? 0))
    .slice(0, n);
}

/** busbw / algbw of the widest row, or null when no row carries enough digits. */
export function busAlgRatio(rows: readonly PerfRow[]): number | null {
  const side = widestRows(rows, 1)[0]?.outOfPlace;
  return side && side.algbw !== null && side.busbw !== null && side.algbw >= 0.05 ? side.busbw / side.algbw : null;
}

/** busbw ÷ algbw of one row as an interval: both are printed to two decimals (± 0.005). */
function boundsOf(r: PerfRow): [number, number] | null {
  const a = r.outOfPlace?.algbw ?? 0;
  const b = r.outOfPlace?.busbw ?? 0;
  if (a <= 0.005 || b <= 0) return null;
  return [(b - 0.005) / (a + 0.005), (b + 0.005) / (a - 0.005)];
}

/** The widest row's busbw ÷ algbw interval. */
function ratioBounds(rows: readonly PerfRow[]): [number, number] | null {
  const r = widestRows(rows, 1)[0];
  return r ? boundsOf(r) : null;
}

/** The rows' interval where it is narrow (they decide), else the footer's where there is one, else the rows'. */
function closestBounds(rows: [number, number] | null, footer: [number, number] | null): [number, number] | null {
  if (rows !== null && rows[1] - rows[0] < 0.1) return rows;
  return footer ?? rows;
}

/**
 * busbw ÷ algbw from the run's footer where the rows' figures are too rounded to give it (tiny sizes print `0.00` or
 * `0.01`): nccl-tests adds each measurement's busbw and prints the mean with six significant digits (`# Avg bus
 * bandwidth : 0.0516788`, `bw[0] += busBw; bw_count[0]++` in BenchTime, src/common.cu), and each measurement's algbw
 * is its size over its time, which the row prints to a hundredth of a microsecond. So the factor is the footer's mean
 * over the mean of size ÷ time, to within the times' rounding. Only for a whole run (its footer printed) whose every
 * measurement shows its time. Null otherwise.
 */
function footerBounds(run: PerfRun): [number, number] | null {
  if (run.avgBusBw === null || run.avgBusBw <= 0 || run.incomplete || run.rows.length === 0) return null;
  let sum = 0;
  let n = 0;
  let shortest = Number.POSITIVE_INFINITY;
  for (const r of run.rows) {
    for (const side of [r.outOfPlace, r.inPlace]) {
      if (side === null) continue;
      if (side.timeUs === null || side.timeUs <= 0 || r.bytes <= 0) return null;
      sum += r.bytes / side.timeUs / 1e3;
      n++;
      shortest = Math.min(shortest, side.timeUs);
    }
  }
  if (n === 0) return null;
  const ratio = run.avgBusBw / (sum / n);
  // Each time is ± 0.005 µs; the footer's six digits add 1e-5 of their own.
  const e = 0.005 / shortest + 1e-5;
  return [ratio * (1 - e), ratio * (1 + e)];
}

/**
 * The table's reading, and where it leaves several collectives (gather or scatter, all_gather or alltoall), the one of
 * them that the text around the output names and no other: `I ran scatter on one node` above a table that fits
 * gather and scatter alike. Words never override what the table decides.
 */
export function inferCollective(run: PerfRun): CollectiveInference {
  const fromTable = collectiveFromTable(run);
  // The words that introduce the run (before its first row) before any after it: a page's list of the other tests
  // after the table names them all.
  const before = fromTable.candidates?.filter((c) => run.namedBeforeRows.includes(c)) ?? [];
  if (before.length === 1) return { name: before[0]!, source: "ratio_and_text" };
  const named = fromTable.candidates?.filter((c) => run.namedInText.includes(c)) ?? [];
  if (named.length === 1) return { name: named[0]!, source: "ratio_and_text" };
  // No row to read and no program named: the one collective the words around the output name by a test's own name
  // (`running all_reduce`), never by a plain English verb (`reduce`, `gather`, `scatter`, `broadcast`).
  const spelled = run.namedInText.filter((c) => TEST_NAMES.has(c));
  if (fromTable.name === null && run.rows.length === 0 && spelled.length === 1)
    return { name: spelled[0]!, source: "text" };
  // Rows that fit several collectives and narrow them to none (one rank's busbw of 0 gives no factor): the one test
  // the words name, when the rows' op and root fit it (`Operation: AllReduce sum` under a one-row sample).
  if (fromTable.name === null && !fromTable.candidates && spelled.length === 1 && rowsFit(run.rows, spelled[0]!))
    return { name: spelled[0]!, source: "text" };
  return fromTable;
}

const REDUCING_TESTS = new Set(["all_reduce", "reduce_scatter", "reduce"]);
const ROOTED_TESTS = new Set(["broadcast", "reduce", "gather", "scatter"]);

/** Whether every row's op and root are ones the collective prints (a reducing op, a root ≥ 0, or neither). */
function rowsFit(rows: readonly PerfRow[], name: string): boolean {
  return rows.every(
    (r) =>
      (r.redop === null || REDUCING.test(r.redop) === REDUCING_TESTS.has(name)) &&
      (r.root === null || r.root >= 0 === ROOTED_TESTS.has(name)),
  );
}

/** Collectives whose name is no everyday word. */
const TEST_NAMES = new Set(["all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv", "hypercube"]);

function collectiveFromTable(run: PerfRun): CollectiveInference {
  const named = collectiveOf(run.program);
  if (named) return { name: named, source: "program" };
  const bounds = closestBounds(ratioBounds(run.rows), footerBounds(run));
  if (!bounds) return { name: null, source: null };
  const [lo, hi] = bounds;
  const below1 = hi < 1;
  const one = lo <= 1.01 && hi >= 0.99 && hi - lo < 0.1;
  // alltoall and sendrecv do not check their in-place results (alltoall.cu, sendrecv.cu: `reportErrors = in_place ?
  // 0 : 1`): every row's in-place #wrong reads N/A beside a checked out-of-place one.
  const inPlaceUnchecked =
    run.rows.length > 0 &&
    run.rows.every((r) => typeof r.outOfPlace?.wrong === "number" && r.inPlace !== null && r.inPlace.wrong === null);
  const inPlaceCounted =
    run.rows.length > 0 &&
    run.rows.every((r) => typeof r.inPlace?.wrong === "number" && typeof r.outOfPlace?.wrong === "number");
  // Printed count per rank: size ÷ (count × type size) is the rank count for alltoall and all_gather (count is per
  // rank) and 1 for sendrecv. At many ranks their factor (n−1)/n prints as 1, so the count tells them apart.
  const perRank = countDivisor(run.rows);
  const spread = perRank !== null && perRank >= 2;
  if (inPlaceUnchecked) {
    if (one && !spread) return { name: "sendrecv", source: "ratio" };
    if (below1 || spread) return { name: "alltoall", source: "ratio" };
  }
  const reducing = run.rows.some((r) => r.redop !== null && REDUCING.test(r.redop));
  const rooted = run.rows.some((r) => r.root !== null && r.root >= 0);
  const pick = (name: string): CollectiveInference => ({ name, source: "ratio" });
  if (reducing) {
    if (rooted) return pick("reduce");
    // all_reduce's factor is ≥ 1 (exactly 1 on two ranks); reduce_scatter's is below 1.
    if (lo > 0.97) return pick("all_reduce");
    if (below1) return pick("reduce_scatter");
    // A count that is the whole size would be reduce_scatter on one rank, whose busbw is 0 (ReduceScatterGetBw's
    // factor (n−1)/n, src/reduce_scatter.cu): a row with any busbw is all_reduce's (shape seen at
    // https://github.com/NVIDIA/nccl/issues/949, a comment's first rows, every figure 0.00 or 0.01).
    const moved = run.rows.some((r) => (r.outOfPlace?.busbw ?? 0) > 0 || (r.inPlace?.busbw ?? 0) > 0);
    return perRank === 1 && moved ? pick("all_reduce") : { name: null, source: null };
  }
  if (rooted) {
    if (one) return pick("broadcast");
    return below1 ? { name: null, source: null, candidates: ["gather", "scatter"] } : { name: null, source: null };
  }
  if (one && !spread) return pick("sendrecv");
  if (below1 || spread) {
    // Before nccl-tests 2.11 each test printed its own columns (src/*.cu at
    // https://github.com/NVIDIA/nccl-tests/tree/1ae8cdc, the last commit before the 2.11 resync): all_gather none for
    // the op, alltoall a `redop` column left blank (its op name is ""); since 2.11 every test prints a redop ("none"
    // where it reduces nothing) and a root. So no redop column is an old all_gather, and a redop column blank on
    // every row an old alltoall.
    if (run.redopColumn === false) return pick("all_gather");
    if (run.redopColumn === true && run.rows.every((r) => r.redop === null && r.root === null)) return pick("alltoall");
    // An in-place `#wrong` counted on every row: all_gather checks its in-place result, alltoall does not (its
    // in-place #wrong reads N/A, inPlaceUnchecked above). The one release that printed alltoall's in-place count,
    // nccl-tests 2.13.0 (the `#wrong` column came in 51af557, its N/A for alltoall three weeks later in a0a1491,
    // v2.13.1: https://github.com/NVIDIA/nccl-tests/commit/a0a1491), leaves both when the output names it.
    if (inPlaceCounted && run.testsVersion !== "2.13.0") return pick("all_gather");
    return { name: null, source: null, candidates: ["all_gather", "alltoall"] };
  }
  return { name: null, source: null };
}

/**
 * size ÷ (count × type size) of the first row that says both (a whole number), or null. nccl-tests prints the count per
 * rank: alltoall and all_gather rows divide the size by the rank count, sendrecv and all_reduce rows do not
 * (AlltoAllGetCollByteCount, https://github.com/NVIDIA/nccl-tests/blob/master/src/alltoall.cu).
 */
function countDivisor(rows: readonly PerfRow[]): number | null {
  const r = rows.find((x) => x.count > 0 && x.bytes > 0 && TYPE_BYTES[x.type] !== undefined);
  if (!r) return null;
  const n = r.bytes / (r.count * TYPE_BYTES[r.type]!);
  return Number.isInteger(n) ? n : null;
}

/**
 * The rank count the table implies when no rank line or thread count says it: size ÷ (count × type size) is the
 * rank count for all_gather, reduce_scatter and alltoall (count is per rank; also where the table leaves only such
 * candidates), and all_reduce's factor 2(n−1)/n gives n. Null when neither is exact.
 */
export function ranksFromTable(
  run: PerfRun,
  collective: string | null,
  candidates: readonly string[] = [],
): number | null {
  // Collectives the table leaves undecided whose count is every one per rank (all_gather or alltoall) agree on it.
  const perRank = (c: string | null) => c === "all_gather" || c === "reduce_scatter" || c === "alltoall";
  if (perRank(collective) || (collective === null && candidates.length > 0 && candidates.every(perRank))) {
    const n = countDivisor(run.rows);
    return n !== null && n >= 2 ? n : null;
  }
  if (collective === "all_reduce") {
    // n = 2 / (2 − busbw/algbw), the ratio being an interval (both columns carry two decimals): n only when exactly
    // one whole rank count fits it, so small or large-scale tables say nothing rather than a neighbouring count. The
    // widest rows are asked, a few, and the counts each allows intersected: a row whose ratio fits no count at all (a
    // figure damaged in the paste) says nothing, and rows that allow different counts leave it unsaid.
    let lo = 2;
    let hi = Number.POSITIVE_INFINITY;
    let asked = 0;
    for (const r of widestRows(run.rows, ROWS_ASKED)) {
      const bounds = boundsOf(r);
      if (bounds === null || bounds[1] >= 2) continue;
      const from = Math.ceil(2 / (2 - bounds[0]) - 1e-9);
      const to = Math.floor(2 / (2 - bounds[1]) + 1e-9);
      if (from > to) continue;
      lo = Math.max(lo, from);
      hi = Math.min(hi, to);
      asked++;
    }
    return asked > 0 && lo === hi ? lo : null;
  }
  return null;
}

/** How many of the widest rows the rank count is read from. */
const ROWS_ASKED = 3;

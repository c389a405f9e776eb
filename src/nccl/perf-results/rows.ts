/**
 * One nccl-tests result row read by the column header above it: the layout a header gives (`layoutOf`), a row's fields
 * under it (`typedRow`, `untypedRow`), or a piece of one (`rowPiece`). Pure; the parser (parse-text.ts) assembles rows
 * into runs. Columns as src/common.cu prints them (https://github.com/NVIDIA/nccl-tests), and the variants read here.
 */
import { BLANK_SIDE, figuresStart } from "./line-shapes.js";
import type { Perf, PerfRow } from "./types.js";

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;
/** The old error column's value as nccl-tests printed it (`%.0e`, rccl-tests adds `*` to a failed one). */
const OLD_ERROR = /^\d[eE][-+]\d\d\*?$/;
/** Header columns after the figures that name a row's tuning, not a figure (see RowLayout.trailing). */
const TRAILING_COLUMNS = new Set(["algo", "proto", "nchannels"]);
const DATE = /^\d{4}-\d{2}-\d{2}$|^\d{2}:\d{2}:\d{2}$/;
/**
 * A figure a page masked (`XXXXX`, `XXX.XX`: a README's template of the output, the numbers left out): read as no
 * value, like `N/A` (shape seen at
 * https://github.com/GoogleCloudPlatform/cluster-toolkit/blob/HEAD/examples/machine-learning/a3-megagpu-8g/nccl-tests/README.md).
 */
const MASKED_FIGURE = /^X+(?:\.X+)?$/i;

/** What a column header says of the rows under it. */
export type RowLayout = {
  /** Figures of both sides (8: `time algbw busbw #wrong` twice). */
  metricCols: number;
  /**
   * The header names one side's figures only (a page trimmed the table to fit): 3 for `time algbw busbw`, 4 with its
   * `#wrong` (or old `error`) column after them; 0: both sides.
   */
  oneSide: 0 | 3 | 4;
  hasTimestamp: boolean;
  /** Before nccl-tests 2.13 the 4th column was `error` (max deviation), not `#wrong`. */
  errorColumn: boolean;
  /**
   * Columns a header names after the #wrong ones that are no figure of either side: rccl-tests' `algo proto
   * nchannels` (the tuning each size ran with, seen at https://github.com/ROCm/rocm-systems/pull/8273). Their values
   * are left off the end of each row.
   */
  trailing: number;
  /**
   * MSCCL++'s test harness (microsoft/mscclpp test/mscclpp-test/common.cc, `BaseTestEngine::runTest`) prints
   * `size count time algbw busbw #wrong` twice, in-place first, with no type, redop or root column, and each row fills
   * one side only: an out-of-place row is padded by 33 spaces where the in-place figures would be. A table trimmed
   * to the columns a page wanted (`size time algbw busbw`, one side, shape seen at
   * https://github.com/elizabetht/spark/blob/HEAD/infiniband-tutorial/LINKEDIN_ARTICLE.md) is read the same way, by
   * the names its header gives.
   */
  untyped: boolean;
  /** With `untyped`: whether the rows hold a count column, and how many figures one side's group has. */
  untypedCount: boolean;
  untypedGroup: number;
};

/** Rows read with no header above them: nccl-tests' own layout since 2.13. */
export const DEFAULT_LAYOUT: Readonly<RowLayout> = {
  metricCols: 8,
  oneSide: 0,
  hasTimestamp: false,
  errorColumn: false,
  trailing: 0,
  untyped: false,
  untypedCount: true,
  untypedGroup: 4,
};

/** The layout a column header's names give. */
export function layoutOf(cols: readonly string[]): RowLayout {
  const untyped = cols[1] === "time" || cols[2] === "time";
  const untypedCount = untyped ? cols[1] === "count" : true;
  let untypedGroup = 4;
  if (untyped) {
    const figures = cols.length - (untypedCount ? 2 : 1);
    const sides = Math.max(1, cols.filter((c) => c === "time").length);
    untypedGroup = figures % sides === 0 && figures / sides >= 3 ? figures / sides : 4;
  }
  const after = untyped ? 2 : cols.indexOf("root") >= 0 ? cols.indexOf("root") + 1 : cols.indexOf("type") + 1;
  const hasTimestamp = cols.includes("timestamp");
  let trailing = 0;
  while (trailing < cols.length && TRAILING_COLUMNS.has(cols[cols.length - 1 - trailing]!)) trailing++;
  // NCCL 1.x tests: `bytes N type op time algbw busbw res`, `res` being the same deviation as `error`.
  const errorColumn = (cols.includes("error") || cols.includes("res")) && !cols.includes("#wrong");
  let metricCols = cols.length - after - (hasTimestamp ? 1 : 0) - trailing;
  const named = cols.slice(after, after + metricCols).join(" ");
  // One side's figures, with or without its check column (`time algbw busbw #wrong`, a page's trimmed table).
  const oneSide = named === "time algbw busbw" ? 3 : /^time algbw busbw (?:#wrong|error|res)$/.test(named) ? 4 : 0;
  if (oneSide === 4 || metricCols < 2 || metricCols % 2 !== 0) metricCols = 8;
  return { metricCols, oneSide, hasTimestamp, errorColumn, trailing, untyped, untypedCount, untypedGroup };
}

export type RowFields = Omit<PerfRow, "line">;

/**
 * A row of nccl-tests' typed layout (`size count type [redop root] time algbw busbw #wrong …`), or null when the line
 * is none. `headerless`: no header said what the columns are, so an old error value in the last column says it
 * (`errorColumn` in the answer).
 */
export function typedRow(
  line: string,
  layout: Readonly<RowLayout>,
  headerless: boolean,
): { row: RowFields; errorColumn: boolean } | null {
  const tokens = line.split(/\s+/);
  if (layout.trailing > 0 && tokens.length > 3 + layout.trailing) tokens.length -= layout.trailing;
  while (tokens.length > 3 && DATE.test(tokens[tokens.length - 1]!)) tokens.pop();
  const bytes = Number(tokens[0]);
  const count = Number(tokens[1]);
  const type = tokens[2];
  if (!Number.isInteger(bytes) || !Number.isInteger(count) || type === undefined || NUMBER.test(type)) return null;
  const rest = tokens.slice(3);
  const group = layout.metricCols / 2;
  let mid: number;
  let groups: string[][];
  // Where the figures start, read from the figures themselves: the one place where a time and an algbw agree
  // (algbw = size / time). A row cut at its end (a line wrapped or truncated by a terminal, a page, a logger) keeps
  // its whole out-of-place side; its in-place side, cut, says nothing rather than something else.
  const start = BLANK_SIDE.test(line) ? null : figuresStart(bytes, rest, group);
  const side = layout.oneSide;
  if (side > 0 && rest.length >= side && rest.length - side <= 2) {
    // One side's figures: out-of-place (nccl-tests prints it first); without a #wrong column, checked or not unknown.
    mid = rest.length - side;
    groups = [side === 3 ? [...rest.slice(mid), "N/A"] : rest.slice(mid), []];
  } else if (start !== null && rest.length - start < layout.metricCols && rest.length - start >= group) {
    mid = start;
    groups = [rest.slice(start, start + group), []];
  } else if (rest.length >= layout.metricCols && rest.length - layout.metricCols <= 2) {
    mid = rest.length - layout.metricCols;
    groups = [rest.slice(mid, mid + group), rest.slice(mid + group)];
  } else if (rest.length >= group && rest.length - group <= 2) {
    mid = rest.length - group;
    groups = [[], rest.slice(mid)]; // in-place only (trace replay)
  } else return null;
  // No header: a last column printed as `5e-07` or `0e+00` is the old error value (`%.0e`), not a #wrong count
  // (`%g`: an integer, or `1.23457e+06`) — common.cu before and after nccl-tests 2.13.
  const errorColumn = layout.errorColumn || (headerless && OLD_ERROR.test(rest[rest.length - 1] ?? ""));
  const perfs = groups.map((g) => (g.length ? perfOf(g, errorColumn) : null));
  if (perfs.some((x) => x === undefined)) return null;
  let redop: string | null = null;
  let root: number | null = null;
  for (const t of rest.slice(0, mid)) {
    if (NUMBER.test(t)) root = Number(t);
    else redop = t;
  }
  return {
    row: { bytes, count, type, redop, root, outOfPlace: perfs[0] ?? null, inPlace: perfs[1] ?? null },
    errorColumn,
  };
}

/**
 * An MSCCL++ test row (see RowLayout.untyped): `size count` then one side's `time algbw busbw [#wrong]` (the count is
 * left out when the harness checks nothing), in-place unless a wide gap after the count stands for the in-place figures
 * left blank; or both sides. Null when the line is none.
 */
export function untypedRow(line: string, layout: Readonly<RowLayout>): RowFields | null {
  const m = (layout.untypedCount ? /^(\d+)\s+(\d+)(\s+)(.*)$/ : /^(\d+)()(\s+)(.*)$/).exec(line);
  const rest = m ? m[4]!.split(/\s+/) : [];
  const group = layout.untypedGroup;
  const sides = rest.length > group ? [rest.slice(0, group), rest.slice(group)] : [rest];
  // A side without its #wrong figure checked nothing: N/A.
  const perfs = sides.map((g) => (g.length === 3 ? [...g, "N/A"] : g)).map((g) => perfOf(g, false));
  if (
    !m ||
    rest.length < 3 ||
    rest.length > 2 * group ||
    sides.some((g) => g.length > 4) ||
    perfs.some((x) => x === undefined)
  )
    return null;
  const outOfPlaceOnly = sides.length === 1 && m[3]!.length > 20;
  return {
    bytes: Number(m[1]),
    // No count column: the size in the harness's 4-byte elements.
    count: layout.untypedCount ? Number(m[2]) : Math.floor(Number(m[1]) / 4),
    // The harness moves `int` data (BaseTestColl::setupCollTest: `typeSize_ = sizeof(int)`; checkData compares ints).
    type: "int32",
    redop: null,
    root: null,
    inPlace: outOfPlaceOnly ? null : (perfs[0] ?? null),
    outOfPlace: outOfPlaceOnly ? (perfs[0] ?? null) : (perfs[1] ?? null),
  };
}

function num(t: string | undefined): number | null | undefined {
  if (t === undefined) return undefined;
  if (t === "N/A" || MASKED_FIGURE.test(t)) return null;
  if (!NUMBER.test(t)) return undefined;
  return Number(t);
}

/**
 * The old `error` column may also read `inf` (a result element that became infinite); rccl-tests marks a deviation over
 * its threshold with an asterisk (`2e+00*`, `%5.0le%s` in ROCm/rccl-tests src/common.cu): the value is judged as printed.
 */
function errorNum(t: string | undefined): number | null | undefined {
  const v = t?.endsWith("*") ? t.slice(0, -1) : t;
  return v !== undefined && /^\+?inf(?:inity)?$/i.test(v) ? Number.POSITIVE_INFINITY : num(v);
}

/**
 * `time algbw busbw #wrong [i_min i_max i_p99 i_cv%]`, or `time algbw busbw error` before nccl-tests 2.13;
 * undefined when a value is not a number or N/A.
 */
function perfOf(g: readonly string[], errorColumn: boolean): Perf | undefined {
  const [t, a, b, w] = [num(g[0]), num(g[1]), num(g[2]), errorColumn ? errorNum(g[3]) : num(g[3])];
  if (t === undefined || a === undefined || b === undefined || w === undefined) return undefined;
  return { timeUs: t, algbw: a, busbw: b, wrong: errorColumn ? null : w, maxError: errorColumn ? w : null };
}

/**
 * nccl-tests prints a row in three writes (its head, then each side's figures once that side has run): NCCL's own
 * lines printed while the collective runs (NCCL_DEBUG_SUBSYS=COLL, or connections set up on first use) land between
 * them, glued to the piece before (`  8589934592  2147483648  float  sum  -1host:pid:tid [1] NCCL INFO AllReduce: …`,
 * shape seen at https://github.com/Timez-zx/nccl-tests/blob/HEAD/nccl.log).
 */

/** An NCCL record glued to the end of a row's piece (`-1host:pid:tid [1] NCCL INFO …`): where it starts. */
const GLUED_RECORD = /(?<=[\d.A])[A-Za-z][\w.-]{0,254}:\d+:\d+ \[\d+\] NCCL (?:INFO|WARN|TRACE)\b/;
/** A row's head alone: size, count, type, then its op and root (`8589934592  2147483648  float  sum  -1`). */
const ROW_HEAD = /^\d+\s+\d+\s+[a-z][a-z0-9]*(?:\s+[a-z]+\s+-?\d+)?$/;
/** A side's figures alone, or both sides': time, algbw, busbw and #wrong (or the old error), as nccl-tests prints them. */
const FIGURES = /^(?:[\d.]+|N\/A)(?:\s+(?:[\d.]+(?:e[+-]\d+)?|N\/A)){2,7}$/;

/** A piece of a row broken apart: its head (and whether a record was glued after it), or figures; else null. */
export function rowPiece(line: string): { head: string; glued: boolean } | { figures: string[] } | null {
  const glued = GLUED_RECORD.exec(line);
  const own = (glued ? line.slice(0, glued.index) : line).trim();
  if (ROW_HEAD.test(own)) return { head: own, glued: glued !== null };
  return FIGURES.test(own) ? { figures: own.split(/\s+/) } : null;
}

/**
 * Assembles a row NCCL's own lines broke apart: a head starts the row, figures continue it, and the row is whole once
 * it has the layout's figures. `push` says whether a line was taken (true/false), gives the row once whole, or null
 * where the line is no piece.
 */
export class RowPieces {
  private split: { head: string; figures: string[] } | null = null;

  reset(): void {
    this.split = null;
  }

  push(line: string, metricCols: number): boolean | { row: string } | null {
    const piece = rowPiece(line);
    if (piece === null) return null;
    if ("head" in piece) {
      // A head with nothing glued after it and no root ending it is a row cut short, read as such.
      if (!piece.glued && this.split === null && !/\s-?\d+$/.test(piece.head)) return null;
      this.split = { head: piece.head, figures: [] };
      return true;
    }
    const split = this.split;
    if (split === null) return null;
    split.figures.push(...piece.figures);
    if (split.figures.length < metricCols) return true;
    this.split = null;
    return { row: `${split.head} ${split.figures.join(" ")}` };
  }
}

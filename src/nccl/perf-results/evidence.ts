import type { CollectiveInference } from "./infer.js";
import type { PerfRun } from "./types.js";

/**
 * Which reading of an nccl-tests output decided each fact (`data.evidence` of kind `nccl_tests`), each list below
 * strongest first. The first reading that has a value decides; a weaker one never overrides it. Null only when no
 * reading has a value. What nccl-tests prints: src/common.cu and src/*.cu in https://github.com/NVIDIA/nccl-tests.
 *
 * - collective: `banner` (`# Collective test starting: all_gather_perf`, nccl-tests ≥ 2.14: what ran), `json` (the
 *   -J file's args), `command_line` (`mpirun … ./build/all_gather_perf …` pasted above: what was asked), then
 *   `column_layout` (redop/root columns, in-place `N/A`, busbw ÷ algbw against the collective's bus factor),
 *   `column_layout_and_words` (the layout leaves two, the words around the output name one of them: `I ran scatter`),
 *   `words` (no row: the one collective the text names by a test's own name, `running all_reduce`).
 * - nranks: `rank_lines` (one `#  Rank N … on HOST device D` per rank, or the -J file's device list), `thread_line`
 *   (`nThread × nGpus`: one process's), `command_line` (a pasted `mpirun -n P … -t T -g G`: P × T × G, what was
 *   asked), then `column_layout` (size ÷ count × type size, or all_reduce's factor). The thread line gives way to the
 *   column layout where the rows need a multiple of its count: an MPI build's one banner for several processes.
 * - rows, peak: `result_rows` (stdout) or `json`.
 * - avgBusBw: `footer` (`# Avg bus bandwidth`) or `json`: nccl-tests' own average over every size it ran. A cut table
 *   is no weaker reading of it (its mean is another number), so without the footer it stays null.
 * - wrongResults: `wrong_column` (`#wrong` per row, nccl-tests ≥ 2.13: elements counted), `out_of_bounds_line`
 *   (`# Out of bounds values : N OK|FAILED`: nccl-tests' own check over the whole run), then `error_column` (the
 *   largest deviation of nccl-tests < 2.13, printed to one digit and judged here against nccl-tests' tolerance).
 */
export type NcclTestsEvidence = {
  collective: "banner" | "json" | "command_line" | "column_layout" | "column_layout_and_words" | "words" | null;
  nranks: "rank_lines" | "thread_line" | "command_line" | "launcher_tasks" | "column_layout" | null;
  rows: "result_rows" | "json" | null;
  peak: "result_rows" | "json" | null;
  avgBusBw: "footer" | "json" | null;
  wrongResults: "wrong_column" | "out_of_bounds_line" | "error_column" | null;
};

/** Whether the results were wrong, and which reading decided it (`value` null: nothing was checked). */
export type WrongResults = { value: boolean | null; decidedBy: NcclTestsEvidence["wrongResults"] };

/**
 * Wrong results from the strongest check the run printed. `errorBeyondTolerance`: the old `error` column held a
 * deviation beyond nccl-tests' tolerance (judged by the caller; null when no row carried the column).
 */
export function wrongResultsOf(run: PerfRun, errorBeyondTolerance: boolean | null): WrongResults {
  const perfs = run.rows.flatMap((r) => [r.outOfPlace, r.inPlace]);
  // Clean rows say nothing of the rows not printed: "no wrong result" needs the finished run (its footer, or the -J
  // file); a wrong row is one whatever follows.
  const finished = run.format === "json" || run.outOfBounds !== null || run.avgBusBw !== null;
  const unlessUnfinished = (w: WrongResults): WrongResults =>
    w.value === false && !finished ? { value: null, decidedBy: null } : w;
  const counts = perfs.map((p) => p?.wrong).filter((w): w is number => typeof w === "number");
  if (counts.length > 0) return unlessUnfinished({ value: counts.some((w) => w > 0), decidedBy: "wrong_column" });
  // nccl-tests prints `Out of bounds values : 0 OK` whatever it checked: with validation off (`-c 0`, every row's
  // check `N/A`) or no row run, that zero checked nothing. A count above zero is a failed check whenever printed.
  const checked = run.validation !== false && perfs.some((p) => p?.maxError != null);
  const oob = run.outOfBounds;
  if (oob && (checked || !oob.ok)) return { value: !oob.ok, decidedBy: "out_of_bounds_line" };
  if (errorBeyondTolerance !== null)
    return unlessUnfinished({ value: errorBeyondTolerance, decidedBy: "error_column" });
  return { value: null, decidedBy: null };
}

/** The evidence of one run's facts; `nranksSource` as the summary states it. */
export function runEvidence(
  run: PerfRun,
  coll: CollectiveInference,
  nranksSource: "ranks" | "threads" | "command_line" | "launcher_tasks" | "table" | null,
  wrong: WrongResults,
): NcclTestsEvidence {
  const json = run.format === "json";
  const collective =
    coll.source === "program"
      ? run.programSource
      : coll.source === "ratio"
        ? "column_layout"
        : coll.source === "ratio_and_text"
          ? "column_layout_and_words"
          : coll.source === "text"
            ? "words"
            : null;
  const nranks =
    nranksSource === "ranks"
      ? "rank_lines"
      : nranksSource === "threads"
        ? "thread_line"
        : nranksSource === "command_line" || nranksSource === "launcher_tasks"
          ? nranksSource
          : nranksSource === "table"
            ? "column_layout"
            : null;
  const rows = run.rows.length === 0 ? null : json ? "json" : "result_rows";
  return {
    collective,
    nranks,
    rows,
    peak: rows,
    avgBusBw: run.avgBusBw === null ? null : json ? "json" : "footer",
    wrongResults: wrong.decidedBy,
  };
}

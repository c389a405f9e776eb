/** The problems the nccl-tests text parser (parse-text.ts) reports, as data. */
import { type Problem, problem } from "../../core/result.js";
import { bytesText } from "../../core/units.js";
import type { PerfRun } from "./types.js";

export function badRowProblem(line: string, lineNo: number): Problem {
  return problem(
    "nccl_tests.bad_row",
    `Row not understood: expected "size count type [redop root] time algbw busbw #wrong …", found "${line.slice(0, 120)}".`,
    { line: lineNo },
  );
}

export function badRowsProblem(count: number): Problem {
  return problem("nccl_tests.bad_rows", `${count} rows were not understood (first 5 listed).`);
}

/** A run with rows and no footer: it crashed, hung, or the paste was cut. */
export function unfinishedProblem(run: PerfRun): Problem {
  const why = run.failures[0] ? `; it printed "${run.failures[0].slice(0, 120)}"` : "";
  return problem(
    "nccl_tests.incomplete",
    `The run did not finish: it stopped after ${run.rows.length} row(s), the largest size reached ${bytesText(Math.max(...run.rows.map((r) => r.bytes)))}, without its "# Avg bus bandwidth" footer${why}: the figures cover the rows printed.`,
    { hint: "A crash or a cut paste; the first failure line (or the NCCL WARN before it) says why." },
  );
}

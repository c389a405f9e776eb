import type { Finding } from "../../core/finding.js";
import type { ParseResult } from "../../core/result.js";
import type { AnalyzeOutcome } from "../types.js";

/** Turns a parse result into an outcome: parse problems kept, the judge run only on parsed data. */
export function outcomeOf<T>(
  result: ParseResult<T>,
  judge: (value: T) => { findings: Finding[]; summary: string },
): AnalyzeOutcome {
  if (!result.ok) return { data: null, findings: [], problems: result.problems };
  const { findings, summary } = judge(result.value);
  return { data: result.value, findings, problems: result.problems, summary };
}

/** Share of the non-blank lines (at most the first 200) that match `re`. */
export function lineShare(head: string, re: RegExp): number {
  const lines = head.split(/\r?\n/, 400).filter((l) => l.trim() !== "");
  if (lines.length === 0) return 0;
  const sample = lines.slice(0, 200);
  return sample.filter((l) => re.test(l)).length / sample.length;
}

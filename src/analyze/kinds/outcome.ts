import type { Finding } from "../../core/finding.js";
import type { ParseResult } from "../../core/result.js";
import { MAX_LINE_LENGTH } from "../../parse/capture.js";
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

/** A device list read with no port of any device (the parser said `….no_ports`): the ports were not checked. */
export function portsUnread(result: ParseResult<unknown>): boolean {
  return result.ok && result.problems.some((p) => p.code.endsWith(".no_ports"));
}

/**
 * The parsed value with `evidence`: which reading decided each fact (src/analyze/host-evidence.ts has the orders of
 * strength). A failed parse stays as it is.
 */
export function withEvidence<T, E>(
  result: ParseResult<T>,
  evidenceOf: (value: T) => E,
): ParseResult<T & { evidence: E }> {
  return result.ok ? { ...result, value: { ...result.value, evidence: evidenceOf(result.value) } } : result;
}

/**
 * The non-blank lines of a detection head, without over-long ones: detectors test one line at a time with
 * anchored patterns, so no pattern can backtrack across lines or through a 64 KiB run of spaces.
 */
export function headLines(head: string, max = 2000): string[] {
  const out: string[] = [];
  // `max` counts lines that carry text: a paste double-spaced by stray carriage returns keeps the same head.
  for (let from = 0; out.length < max && from <= head.length; ) {
    const nl = head.indexOf("\n", from);
    const to = nl < 0 ? head.length : nl;
    const l = head.slice(from, to);
    if (l.length <= MAX_LINE_LENGTH && l.trim() !== "") out.push(l.replace(/\r$/, ""));
    from = to + 1;
  }
  return out;
}

/** True when some line of the head matches `re` (a pattern without the `m` flag). */
export function anyLine(head: string, re: RegExp): boolean {
  return headLines(head).some((l) => re.test(l));
}

/** Share of the non-blank lines (at most the first 200) that match `re`. */
export function lineShare(head: string, re: RegExp): number {
  const sample = headLines(head, 400).slice(0, 200);
  if (sample.length === 0) return 0;
  return sample.filter((l) => re.test(l)).length / sample.length;
}

import { bySeverity, type Finding, summarize } from "../core/finding.js";
import type { Problem } from "../core/result.js";
import type { AnalyzedInput } from "./index.js";

const LABEL: Record<Finding["severity"], string> = { error: "ERROR", warning: "WARN ", info: "info " };

function renderFinding(f: Finding): string[] {
  return [`  ${LABEL[f.severity]} ${f.code} ${f.subject}: ${f.message}`, `        fix: ${f.fix}`];
}

function renderProblem(p: Problem): string[] {
  const lines = [`  problem ${p.code}: ${p.message}`];
  if (p.hint) lines.push(...p.hint.split("\n").map((h) => `        ${h}`));
  return lines;
}

/** The text report: per input a `file: kind` header, a one-line summary, findings (errors first), problems. */
export function renderAnalyzeText(entries: readonly AnalyzedInput[]): string {
  const out: string[] = [];
  for (const e of entries) {
    out.push(`${e.file}: ${e.kind}`);
    if (e.summary) out.push(`  ${e.summary}`);
    for (const f of [...e.findings].sort(bySeverity)) out.push(...renderFinding(f));
    for (const p of e.problems ?? []) out.push(...renderProblem(p));
    if (e.kind !== "unknown" && e.findings.length === 0 && !e.problems?.length) out.push("  no findings");
    out.push("");
  }
  const s = summarize(entries.flatMap((e) => e.findings));
  const problems = entries.reduce((n, e) => n + (e.problems?.length ?? 0), 0);
  out.push(
    `${entries.length} input(s): ${s.errors} error(s), ${s.warnings} warning(s), ${s.infos} info, ${problems} problem(s)`,
  );
  return `${out.join("\n")}\n`;
}

/** The `-o json|yaml` value: one entry per input (design.md contract), each carrying `schemaVersion`. */
export function structuredEntries(entries: readonly AnalyzedInput[]): object[] {
  return entries.map(({ summary: _summary, ...e }) => ({ schemaVersion: 1, ...e }));
}

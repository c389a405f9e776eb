import { bySeverity, summarize } from "../../core/finding.js";
import type { LintFileResult } from "../../kube/lint/index.js";
import { summaryLine } from "../findings-text.js";
import { defineReport } from "../registry.js";

export type LintResult = { results: LintFileResult[]; strict: boolean };

function renderLintText({ results, strict }: LintResult): string {
  const lines: string[] = [];
  for (const r of results) {
    for (const p of r.problems) lines.push(`ERROR   ${p.message}`, ...(p.hint ? [`        ${p.hint}`] : []));
    for (const f of [...r.findings].sort(bySeverity)) {
      const loc = `${r.file}${f.line ? `:${f.line}` : ""} (document ${f.document}, ${f.kind}/${f.name}${f.container ? `, container ${f.container}` : ""})`;
      lines.push(`${f.severity.toUpperCase().padEnd(7)} ${f.code} ${loc}`);
      lines.push(`        field: ${f.field}`, `        ${f.message}`, `        fix: ${f.fix}`);
    }
  }
  const all = results.flatMap((r) => r.findings);
  const s = summarize(all, strict);
  const objects = results.reduce((n, r) => n + r.objects.length, 0);
  const unread = results.reduce((n, r) => n + r.problems.length, 0);
  // A file that could not be read is never a PASS: its objects were not checked.
  const status = unread > 0 ? "FAIL" : s.status.toUpperCase();
  const unreadText = unread > 0 ? `; ${unread} input problem(s), those documents were not checked` : "";
  lines.push(summaryLine(s, `${objects} object(s) in ${results.length} file(s)${unreadText}`, status));
  return `${lines.join("\n")}\n`;
}

/** `lint`: findings per manifest file. */
export const LINT_REPORT = defineReport<LintResult>({
  name: "lint",
  text: renderLintText,
  structured: ({ results, strict }) => {
    const findings = results.flatMap((r) => r.findings);
    const problems = results.flatMap((r) => r.problems);
    const { status, errors, warnings } = summarize(findings, strict);
    return {
      schemaVersion: 1,
      files: results.map((r) => ({ file: r.file, objects: r.objects, problems: r.problems })),
      findings: findings.map(({ evidence: _e, ...f }) => f),
      summary: { status: problems.length ? "fail" : status, errors: errors + problems.length, warnings },
    };
  },
});

import { bySeverity, failIfUnchecked, summarize } from "../../core/finding.js";
import type { LintFileResult } from "../../kube/lint/index.js";
import { groupIdenticalWith, summaryLine } from "../findings-text.js";
import { defineReport } from "../registry.js";

export type LintResult = { results: LintFileResult[]; strict: boolean };

function renderLintText({ results, strict }: LintResult): string {
  const lines: string[] = [];
  for (const r of results) {
    for (const p of r.problems) lines.push(`ERROR   ${p.message}`, ...(p.hint ? [`        ${p.hint}`] : []));
    // The same finding in several places (Master and Worker, every replica type) prints once, under its places.
    for (const { finding: f, members } of groupIdenticalWith([...r.findings].sort(bySeverity))) {
      members.forEach((m, i) => {
        const loc = `${r.file}${m.line ? `:${m.line}` : ""} (document ${m.document}, ${m.kind}/${m.name}${m.container ? `, container ${m.container}` : ""})`;
        lines.push(i === 0 ? `${f.severity.toUpperCase().padEnd(7)} ${f.code} ${loc}` : `    and ${loc}`);
        lines.push(`        field: ${m.field}`);
      });
      lines.push(`        ${f.message}`, `        fix: ${f.fix}`);
    }
  }
  const all = results.flatMap((r) => r.findings);
  const objects = results.reduce((n, r) => n + r.objects.length, 0);
  const unread = results.reduce((n, r) => n + r.problems.length, 0);
  // A file that could not be read is never a PASS: its objects were not checked.
  const s = failIfUnchecked(summarize(all, strict), unread);
  const unreadText = unread > 0 ? `; ${unread} input problem(s), those documents were not checked` : "";
  lines.push(summaryLine(s, `${objects} object(s) in ${results.length} file(s)${unreadText}`));
  return `${lines.join("\n")}\n`;
}

/** `lint`: findings per manifest file. */
export const LINT_REPORT = defineReport<LintResult>({
  name: "lint",
  text: renderLintText,
  structured: ({ results, strict }) => {
    const findings = results.flatMap((r) => r.findings);
    const problems = results.flatMap((r) => r.problems);
    const { status, errors, warnings } = failIfUnchecked(summarize(findings, strict), problems.length);
    return {
      schemaVersion: 1,
      files: results.map((r) => ({ file: r.file, objects: r.objects, problems: r.problems })),
      findings: findings.map(({ evidence: _e, ...f }) => f),
      summary: { status, errors: errors + problems.length, warnings },
    };
  },
});

/** Findings as text, the way every report prints them: grouped by severity, code and subject in columns, wrapped. */
import type { Finding, Severity } from "../core/finding.js";

const WIDTH = 110;

const SECTIONS: [Severity, string][] = [
  ["error", "Errors"],
  ["warning", "Warnings"],
  ["info", "Info"],
];

/** `Errors (n)`, `Warnings (n)`, `Info (n)` sections (each after a blank line), in one column layout. */
export function renderFindingSections(findings: readonly Finding[]): string[] {
  const columns = columnsFor(findings);
  const lines: string[] = [];
  for (const [severity, title] of SECTIONS) {
    const group = findings.filter((f) => f.severity === severity);
    if (group.length) lines.push("", `${title} (${group.length})`, ...renderFindings(group, columns));
  }
  return lines;
}

type Columns = { codeWidth: number; subjectWidth: number };

/** One column layout for every section, so that the whole report lines up. */
function columnsFor(findings: readonly Finding[]): Columns {
  return {
    codeWidth: Math.max(0, ...findings.map((f) => f.code.length)) + 2,
    subjectWidth: Math.min(18, Math.max(0, ...findings.map((f) => f.subject.length)) + 2),
  };
}

function renderFindings(findings: readonly Finding[], { codeWidth, subjectWidth }: Columns): string[] {
  const indent = 2 + codeWidth + subjectWidth;
  const out: string[] = [];
  for (const f of findings) {
    const head = `  ${f.code.padEnd(codeWidth)}${f.subject.padEnd(subjectWidth)}`;
    const message = wrap(f.message, WIDTH - indent);
    const fix = wrap(`fix: ${f.fix}`, WIDTH - indent);
    const pad = " ".repeat(indent);
    if (head.length > indent) out.push(head.trimEnd(), ...message.map((l) => pad + l));
    else out.push(head + message[0], ...message.slice(1).map((l) => pad + l));
    out.push(...fix.map((l) => pad + l));
  }
  return out;
}

/** Greedy word wrap; a `command in backticks` is never split, so it can be copied whole. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.match(/[^\s`]*`[^`]*`\S*|\S+/g) ?? []) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

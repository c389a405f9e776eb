/** Findings as text, the way every report prints them: grouped by severity, code and subject in columns, wrapped. */
import { compactNames } from "../checks/select.js";
import type { Finding, Severity, Summary } from "../core/finding.js";

/** Text reports wrap here when the output is not a terminal (a file, a pipe, CI logs). */
export const DEFAULT_TEXT_WIDTH = 80;

/** The width a text report wraps to: the terminal's columns, or 80 when not a terminal. */
export function textWidth(out: { isTTY: boolean; columns?: number | undefined }): number {
  return out.isTTY && out.columns && out.columns >= 40 ? out.columns : DEFAULT_TEXT_WIDTH;
}

/**
 * The verdict line every command ends its text report with, worded the same everywhere:
 * `FAIL: 2 error(s), 1 warning(s), 3 info` then what was looked at (`; 9 object(s) in 1 file(s)`).
 */
export function summaryLine(s: Summary, scope?: string): string {
  const counts = `${s.errors} error(s), ${s.warnings} warning(s), ${s.infos} info`;
  return `${s.status.toUpperCase()}: ${counts}${scope ? `; ${scope}` : ""}`;
}

const escapeRe = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The subject's name as a whole word in a text (mlx5_1 is not inside mlx5_10). */
function subjectPattern(subject: string): RegExp {
  return new RegExp(`(?<![\\w.])${escapeRe(subject)}(?![\\w])`, "g");
}

/**
 * Identical findings about several subjects (the same holes in the GID table of 8 HCAs) become one finding naming
 * them all (`mlx5_1..mlx5_8`): same code and severity, and the same message and fix once each names its own
 * subject. Text reports only; JSON keeps one finding per subject.
 */
export function groupIdentical(findings: readonly Finding[]): Finding[] {
  return groupIdenticalWith(findings).map((g) => g.finding);
}

/**
 * {@link groupIdentical}, keeping the findings each group stands for (a report that prints more than the finding,
 * such as `lint`'s file, line and field, lists them under the one message).
 */
export function groupIdenticalWith<F extends Finding>(findings: readonly F[]): { finding: Finding; members: F[] }[] {
  const groups = new Map<string, F[]>();
  const order: string[] = [];
  for (const f of findings) {
    const re = subjectPattern(f.subject);
    const key = [f.code, f.severity, f.message.replace(re, "\u0000"), f.fix.replace(re, "\u0000")].join("\u0001");
    const g = groups.get(key);
    if (g) g.push(f);
    else {
      groups.set(key, [f]);
      order.push(key);
    }
  }
  return order.map((key) => {
    const g = groups.get(key)!;
    const first = g[0]!;
    if (g.length === 1) return { finding: first, members: g };
    const names = compactNames(g.map((f) => f.subject));
    const re = subjectPattern(first.subject);
    const finding = {
      ...first,
      subject: names,
      message: first.message.replace(re, names),
      fix: first.fix.replace(re, names),
    };
    return { finding, members: g };
  });
}

const SECTIONS: [Severity, string][] = [
  ["error", "Errors"],
  ["warning", "Warnings"],
  ["info", "Info"],
];

/** `Errors (n)`, `Warnings (n)`, `Info (n)` sections (each after a blank line), in one column layout. */
export function renderFindingSections(findings: readonly Finding[], width = DEFAULT_TEXT_WIDTH): string[] {
  const merged = groupIdentical(findings);
  const columns = columnsFor(merged, width);
  const lines: string[] = [];
  for (const [severity, title] of SECTIONS) {
    const count = findings.filter((f) => f.severity === severity).length;
    const group = merged.filter((f) => f.severity === severity);
    if (group.length) lines.push("", `${title} (${count})`, ...renderFindings(group, columns));
  }
  return lines;
}

type Columns = { codeWidth: number; subjectWidth: number; width: number };

/** One column layout for every section, so that the whole report lines up. */
function columnsFor(findings: readonly Finding[], width: number): Columns {
  return {
    codeWidth: Math.max(0, ...findings.map((f) => f.code.length)) + 2,
    subjectWidth: Math.min(18, Math.max(0, ...findings.map((f) => f.subject.length)) + 2),
    width,
  };
}

function renderFindings(findings: readonly Finding[], { codeWidth, subjectWidth, width }: Columns): string[] {
  // On a narrow terminal the text starts under the code instead of being squeezed into a sliver.
  const indent = Math.min(2 + codeWidth + subjectWidth, Math.max(4, width - 40));
  const WIDTH = width;
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

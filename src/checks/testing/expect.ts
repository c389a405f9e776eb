/** Small readers for test assertions over findings. */
import type { Finding } from "../../core/finding.js";

export type Verdict = { code: string; subject: string; severity: string };

export function verdicts(findings: readonly Finding[]): Verdict[] {
  return findings.map((f) => ({ code: f.code, subject: f.subject, severity: f.severity }));
}

/** Findings of severity error or warning: what a healthy node must not have. */
export function problemsOf(findings: readonly Finding[]): Verdict[] {
  return verdicts(findings.filter((f) => f.severity !== "info"));
}

export function only(findings: readonly Finding[], code: string): Finding[] {
  return findings.filter((f) => f.code === code);
}

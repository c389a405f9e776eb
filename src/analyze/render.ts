import { bySeverity, type Finding, failIfUnchecked, summarize } from "../core/finding.js";
import type { Problem } from "../core/result.js";
import { bytesText } from "../core/units.js";
import { DEFAULT_TEXT_WIDTH, groupIdentical, summaryLine, wrap } from "../report/findings-text.js";
import type { AnalyzedInput } from "./index.js";

/** Not read at all (no data). */
export const notRead = (e: AnalyzedInput): boolean => e.data === null;
/** Read, but without facts its kind has (`unread`): what was read is reported, and it is never a PASS. */
export const readInPart = (e: AnalyzedInput): boolean => e.data !== null && (e.unread?.length ?? 0) > 0;

/** `; 1 not analysed; 1 read in part (gpus not in the capture)`, or nothing. */
export function unreadScope(entries: readonly AnalyzedInput[], sep = "; "): string {
  const none = entries.filter(notRead).length;
  const part = entries.filter(readInPart);
  const missing = [...new Set(part.flatMap((e) => e.unread ?? []))].join(", ");
  return [
    none ? `${sep}${none} not analysed` : "",
    part.length ? `${sep}${part.length} read in part (${missing} not in the capture)` : "",
  ].join("");
}

const LABEL: Record<Finding["severity"], string> = { error: "ERROR", warning: "WARN ", info: "info " };

function renderFinding(f: Finding, width: number): string[] {
  const pad = "        ";
  const text = wrap(`${f.code} ${f.subject}: ${f.message}`, width - pad.length);
  const fix = wrap(`fix: ${f.fix}`, width - pad.length);
  const sure = f.confidence
    ? wrap(`confidence ${f.confidence.level}: ${f.confidence.why.join("; ")}`, width - pad.length)
    : [];
  return [
    `  ${LABEL[f.severity]} ${text[0]}`,
    ...text.slice(1).map((l) => pad + l),
    ...fix.map((l) => pad + l),
    ...sure.map((l) => pad + l),
  ];
}

function renderProblem(p: Problem): string[] {
  const lines = [`  problem ${p.code}: ${p.message}`];
  if (p.hint) lines.push(...p.hint.split("\n").map((h) => `        ${h}`));
  return lines;
}

type Loose = Record<string, unknown>;
const isObj = (v: unknown): v is Loose => typeof v === "object" && v !== null;

/** A summary line for kinds whose analyser gives none (the NCCL kinds), read from their data contract. */
export function fallbackSummary(kind: string, data: unknown): string | undefined {
  if (!isObj(data)) return undefined;
  if (kind === "nccl_log") {
    const versions = Array.isArray(data.ncclVersions) ? data.ncclVersions.join(", ") : "";
    return [
      versions ? `NCCL ${versions}` : null,
      typeof data.ranks === "number" && data.ranks > 0
        ? `${data.ranks} ranks on ${String(data.nNodes ?? "?")} node(s)`
        : typeof data.nNodes === "number" && data.nNodes > 0
          ? `${data.nNodes} node(s)`
          : null,
      typeof data.network === "string" ? `network ${data.network}` : null,
      typeof data.verdict === "string" ? `verdict ${data.verdict}` : null,
    ]
      .filter(Boolean)
      .join("; ");
  }
  if (kind === "nccl_tests") {
    const peak = isObj(data.peak) ? data.peak : null;
    return [
      typeof data.collective === "string" ? data.collective : null,
      typeof data.nranks === "number" ? `${data.nranks} ranks` : null,
      peak && typeof peak.busbw === "number" && typeof peak.bytes === "number"
        ? `peak busbw ${peak.busbw} GB/s at ${bytesText(peak.bytes)}`
        : null,
      typeof data.avgBusBw === "number" ? `avg bus bandwidth ${data.avgBusBw} GB/s` : null,
    ]
      .filter(Boolean)
      .join("; ");
  }
  return undefined;
}

/** The text report: per input a `file: kind` header, a one-line summary, findings (errors first), problems. */
export function renderAnalyzeText(entries: readonly AnalyzedInput[], width = DEFAULT_TEXT_WIDTH): string {
  const out: string[] = [];
  for (const e of entries) {
    out.push(`${e.file}: ${e.kind}`);
    const summary = e.summary ?? fallbackSummary(e.kind, e.data);
    if (summary) out.push(`  ${summary}`);
    for (const f of groupIdentical([...e.findings].sort(bySeverity))) out.push(...renderFinding(f, width));
    for (const p of e.problems ?? []) out.push(...renderProblem(p));
    if (e.kind !== "unknown" && e.findings.length === 0 && !e.problems?.length) out.push("  no findings");
    out.push("");
  }
  const s = summarize(entries.flatMap((e) => e.findings));
  const problems = entries.reduce((n, e) => n + (e.problems?.length ?? 0), 0);
  // An input that could not be read or recognised, or was read in part, was not (all) checked: never a PASS.
  const unread = entries.filter((e) => notRead(e) || readInPart(e)).length;
  const scope = `${entries.length} input(s), ${problems} problem(s)${unreadScope(entries)}`;
  out.push(summaryLine(failIfUnchecked(s, unread), scope));
  return `${out.join("\n")}\n`;
}

/** The `-o json|yaml` value: one entry per input (design.md contract), each carrying `schemaVersion`. */
export function structuredEntries(entries: readonly AnalyzedInput[]): object[] {
  return entries.map(({ summary: _summary, ...e }) => ({ schemaVersion: 1, ...e }));
}

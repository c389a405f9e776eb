/** The parts every page is made of: findings with their fixes, problems, tables, label/value facts, legends. */
import { bySeverity, type Finding, type Summary } from "../../core/finding.js";
import type { Problem } from "../../core/result.js";
import { count } from "./format.js";
import { Html, h, richText } from "./html.js";

/** Findings, errors first, each with its code, subject, message and fix; the page's filter hides by severity. */
export function findingsList(findings: readonly Finding[], none = "No findings."): Html {
  if (findings.length === 0) return h`<p class="none">${none}</p>`;
  const items = [...findings].sort(bySeverity).map(
    (f) => h`<li class="finding sev-${f.severity}" data-severity="${f.severity}" data-code="${f.code}">
<span class="badge ${f.severity}">${f.severity}</span><code>${f.code}</code> <span class="subject">${f.subject}</span>
<p>${richText(f.message)}</p>
<p class="fix"><b>Fix:</b> ${richText(f.fix)}</p></li>`,
  );
  return h`<ol class="findings">${items}</ol>`;
}

/** Inputs that could not be read or parsed: said, never hidden. */
export function problemsList(problems: readonly Problem[]): Html | null {
  if (problems.length === 0) return null;
  const items = problems.map(
    (p) => h`<li class="finding sev-error problem" data-severity="error">
<span class="badge error">problem</span><code>${p.code}</code>
<p>${richText(p.message)}</p>${p.hint ? h`<p class="fix"><b>What to do:</b> ${richText(p.hint)}</p>` : null}</li>`,
  );
  return h`<ol class="findings problems">${items}</ol>`;
}

/** One table cell: text, or a number right-aligned. */
export type Cell = string | number | Html | { html: Html | string; num?: boolean; title?: string };

export type TableSpec = {
  columns: readonly (string | { label: string; num?: boolean })[];
  rows: readonly { cells: readonly Cell[]; className?: string }[];
  caption?: string;
  className?: string;
};

function cell(c: Cell, tag: "td" | "th"): Html {
  if (typeof c === "object" && !(c instanceof Html)) {
    return h`<${tag}${c.num ? h` class="num"` : null}${c.title ? h` title="${c.title}"` : null}>${c.html}</${tag}>`;
  }
  return typeof c === "number" ? h`<${tag} class="num">${c}</${tag}>` : h`<${tag}>${c}</${tag}>`;
}

export function table(spec: TableSpec): Html {
  const head = spec.columns.map((c) =>
    typeof c === "string" ? h`<th>${c}</th>` : h`<th${c.num ? h` class="num"` : null}>${c.label}</th>`,
  );
  const rows = spec.rows.map(
    (r) => h`<tr${r.className ? h` class="${r.className}"` : null}>${r.cells.map((c) => cell(c, "td"))}</tr>`,
  );
  return h`<table${spec.className ? h` class="${spec.className}"` : null}>${spec.caption ? h`<caption>${spec.caption}</caption>` : null}
<thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

/** Label/value pairs (the node summary, a run's facts). */
export function facts(rows: readonly (readonly [string, string | Html])[]): Html {
  return h`<dl class="facts">${rows.map(([k, v]) => h`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

/** A colour legend: swatch + label. */
export function legend(items: readonly { colour: string; label: string }[]): Html {
  return h`<div class="legend">${items.map((i) => h`<span><i style="background:${i.colour}"></i>${i.label}</span>`)}</div>`;
}

/** `FAIL`/`WARN`/`PASS` with the counts, for the page header. */
export function statusOf(s: Summary): { status: Summary["status"]; text: string } {
  return {
    status: s.status,
    text: `${count(s.errors, "error")}, ${count(s.warnings, "warning")}, ${s.infos} info`,
  };
}

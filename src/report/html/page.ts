/**
 * The page shell every report shares: one self-contained document (inline CSS, inline SVG, no script, no URL), a
 * light and a dark scheme (prefers-color-scheme), a print layout, and the severity filter of the findings.
 * The Content-Security-Policy forbids every fetch and every script: the page works the same offline.
 */
import type { Finding, Severity } from "../../core/finding.js";
import { Html, h } from "./html.js";

/** The light palette: the page's default, and what it prints in whatever scheme the reader uses. */
const LIGHT = `--bg:#fff;--fg:#1b1f24;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;
--error:#cf222e;--error-bg:#ffebe9;--warning:#9a6700;--warning-bg:#fff8c5;--info:#0969da;--info-bg:#ddf4ff;
--ok:#1a7f37;--ok-bg:#dafbe1;--band:#1a7f3722;--accent:#8250df;
--s0:#0969da;--s1:#cf222e;--s2:#1a7f37;--s3:#8250df;--s4:#bc4c00;--s5:#0598bc;--s6:#bf3989;--s7:#6e7781`;

const DARK = `--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;
--error:#ff7b72;--error-bg:#3c1618;--warning:#d29922;--warning-bg:#3a2d0b;--info:#58a6ff;--info-bg:#0c2d6b;
--ok:#3fb950;--ok-bg:#12361f;--band:#3fb95026;--accent:#bc8cff;
--s0:#58a6ff;--s1:#ff7b72;--s2:#3fb950;--s3:#bc8cff;--s4:#f0883e;--s5:#39c5cf;--s6:#f778ba;--s7:#9198a1`;

const CSS = `
:root{color-scheme:light dark;${LIGHT}}
@media (prefers-color-scheme:dark){:root{${DARK}}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:1200px;margin:0 auto;padding:20px 24px 40px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:18px 0 6px}
.sub{color:var(--muted);margin:0 0 12px}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--panel);padding:1px 4px;border-radius:4px}
.status{display:inline-block;font-weight:700;padding:2px 10px;border-radius:12px;margin-right:8px}
.status.pass{color:var(--ok);background:var(--ok-bg)}.status.warn{color:var(--warning);background:var(--warning-bg)}
.status.fail{color:var(--error);background:var(--error-bg)}
.filter{display:flex;gap:14px;align-items:center;border:1px solid var(--line);border-radius:6px;padding:6px 12px;margin:12px 0;width:max-content}
.filter legend{padding:0 4px;color:var(--muted)}
.toggle{position:absolute;opacity:0;width:1px;height:1px;margin:0}
.filter label{cursor:pointer;user-select:none}
.filter label::before{content:"";display:inline-block;width:11px;height:11px;border:1.5px solid var(--muted);border-radius:3px;margin-right:6px;vertical-align:-1px}
#show-error:checked~main label[for=show-error]::before,#show-warning:checked~main label[for=show-warning]::before,
#show-info:checked~main label[for=show-info]::before{background:var(--info);border-color:var(--info);box-shadow:inset 0 0 0 2px var(--bg)}
#show-error:focus-visible~main label[for=show-error],#show-warning:focus-visible~main label[for=show-warning],
#show-info:focus-visible~main label[for=show-info]{outline:2px solid var(--info);outline-offset:2px}
#show-error:not(:checked)~main .finding.sev-error,#show-warning:not(:checked)~main .finding.sev-warning,
#show-info:not(:checked)~main .finding.sev-info{display:none}
ol.findings{list-style:none;padding:0;margin:0}
.finding{border:1px solid var(--line);border-left:4px solid var(--line);border-radius:6px;padding:8px 12px;margin:8px 0;break-inside:avoid}
.finding.sev-error{border-left-color:var(--error)}.finding.sev-warning{border-left-color:var(--warning)}.finding.sev-info{border-left-color:var(--info)}
.finding p{margin:4px 0}.finding .fix{color:var(--muted)}.finding .fix b{color:var(--fg)}
.badge{display:inline-block;font-size:12px;font-weight:700;border-radius:10px;padding:0 8px;margin-right:6px}
.badge.error{color:var(--error);background:var(--error-bg)}.badge.warning{color:var(--warning);background:var(--warning-bg)}
.badge.info{color:var(--info);background:var(--info-bg)}.badge.ok{color:var(--ok);background:var(--ok-bg)}
.subject{font-weight:600}
.none{color:var(--muted)}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600}td.num,th.num{text-align:right}
tr.chosen td{background:var(--ok-bg);font-weight:600}tr.odd td{background:var(--warning-bg)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:8px 0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
.chart{display:block;max-width:100%;height:auto;margin:8px 0}
.chart text{fill:var(--fg);font:11px system-ui,sans-serif}.chart .muted{fill:var(--muted)}
.chart .axis{stroke:var(--muted);stroke-width:1}.chart .grid{stroke:var(--line);stroke-width:1}
.chart .band{fill:var(--band)}.chart .rate{stroke:var(--ok);stroke-width:1.5;stroke-dasharray:6 4}
.chart .median{stroke:var(--accent);stroke-width:1.5;stroke-dasharray:2 3}
.chart .line{fill:none;stroke-width:2}.chart .cell{stroke:var(--bg);stroke-width:1}
.chart .cell-text{fill:#fff;font-weight:600;paint-order:stroke;stroke:#0009;stroke-width:2px}
.chart .sev-ok{fill:var(--ok-bg)}.chart .sev-info{fill:var(--info)}.chart .sev-warning{fill:var(--warning)}
.chart .sev-error{fill:var(--error)}.chart .not-verified{fill:var(--panel)}
.chart .mark{fill:none;stroke:var(--fg);stroke-width:2}.chart .bad-label{fill:var(--error);font-weight:700}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;margin:4px 0;color:var(--muted);font-size:13px}
.legend i{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.scroll{overflow:auto;max-height:80vh;border:1px solid var(--line);border-radius:6px}
.entry{margin-top:26px}
footer{margin-top:32px;color:var(--muted);font-size:12px}
@media print{:root{color-scheme:light;${LIGHT};--fg:#000;--muted:#444}
body{font-size:11pt;-webkit-print-color-adjust:exact;print-color-adjust:exact}main{max-width:none;padding:0}
.filter{display:none}.finding{display:block!important}.scroll{overflow:visible;max-height:none;border:0}
h2{break-after:avoid}svg,table{break-inside:avoid}}
`;

/** The stylesheet is a constant of ours with no `<` in it: it goes in as markup. */
const STYLE = new Html(CSS.trim());

export type PageSpec = {
  /** The document title (also the heading). */
  title: string;
  /** One line under the heading: where the facts came from. */
  subtitle?: string;
  status?: { status: "pass" | "warn" | "fail"; text: string };
  /** Every finding on the page: the severity filter counts them. */
  findings: readonly Finding[];
  body: readonly Html[];
};

const SEVERITIES: [Severity, string][] = [
  ["error", "errors"],
  ["warning", "warnings"],
  ["info", "info"],
];

/**
 * The severity filter, without script: one checkbox per severity ahead of <main>, so that the sibling selector
 * `#show-error:not(:checked) ~ main .sev-error` hides those findings (cheap even on a 1,000-node page); the
 * boxes are drawn by their labels in the page header.
 */
function severityToggles(): Html {
  return h`${SEVERITIES.map(([sev, label]) => h`<input type="checkbox" class="toggle" id="show-${sev}" aria-label="show ${label}" checked>`)}`;
}

function severityFilter(findings: readonly Finding[]): Html {
  const labels = SEVERITIES.map(([sev, label]) => {
    const n = findings.filter((f) => f.severity === sev).length;
    return h`<label for="show-${sev}">${label} (${n})</label>`;
  });
  return h`<fieldset class="filter"><legend>Show findings</legend>${labels}</fieldset>`;
}

/** A whole HTML document. */
export function page(spec: PageSpec): string {
  const status = spec.status
    ? h`<p><span class="status ${spec.status.status}">${spec.status.status.toUpperCase()}</span>${spec.status.text}</p>`
    : null;
  const doc = h`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${spec.title}</title>
<style>${STYLE}</style>
</head>
<body>
${spec.findings.length ? severityToggles() : null}
<main>
<h1>${spec.title}</h1>
${spec.subtitle ? h`<p class="sub">${spec.subtitle}</p>` : null}
${status}
${spec.findings.length ? severityFilter(spec.findings) : null}
${spec.body}
<footer>Written by kube-rdma. Bandwidths in GB/s (10<sup>9</sup> bytes per second), link rates in Gb/s, sizes in binary units (1 KiB = 1024 B).</footer>
</main>
</body>
</html>
`;
  return doc.value;
}

/** The `bench judge -o html` page: the pair heat map (node × node, % of the reference), bad nodes and links marked. */
import { failIfUnchecked, type Summary, summarize } from "../../../core/finding.js";
import { naturalCompare } from "../../../core/natural.js";
import type { PairsReport } from "../../../nccl/pairs/index.js";
import { matrixChart } from "../charts/matrix.js";
import { type MeasuredPair, pairCells, pairColour } from "../charts/pair-cells.js";
import { facts, findingsList, legend, problemsList, statusOf, table } from "../components.js";
import { count, gbpsText, percentText } from "../format.js";
import { type Html, h } from "../html.js";
import { page } from "../page.js";

export { pairColour } from "../charts/pair-cells.js";

function heatMap(report: PairsReport): Html {
  const nodes = report.nodes.map((n) => n.node).sort(naturalCompare);
  const reference = report.referenceGBps ?? Math.max(...report.pairs.map((p) => p.busbw));
  const badLinks = new Set(report.findings.filter((f) => f.code === "PAIR_BAD_LINK").map((f) => f.subject));
  const verdict = new Map(report.nodes.map((n) => [n.node, n.verdict]));
  const measured: MeasuredPair[] = report.pairs.map((p) => {
    const marked = badLinks.has(`${p.a}↔${p.b}`) || badLinks.has(`${p.b}↔${p.a}`);
    return {
      a: p.a,
      b: p.b,
      busbw: p.busbw,
      fraction: reference > 0 ? p.busbw / reference : 0,
      slow: p.slow,
      marked,
      of: "the reference",
      ...(marked ? { note: "; bad link" } : {}),
    };
  });
  const cells = pairCells(nodes, measured, [], report.tolerance);
  const label = (n: string) => {
    const v = verdict.get(n);
    return {
      name: n,
      marked: v === "bad_node",
      ...(v && v !== "ok" ? { note: v === "bad_node" ? "bad node" : "suspect" } : {}),
    };
  };
  const size = nodes.length <= 12 ? 44 : nodes.length <= 24 ? 32 : nodes.length <= 64 ? 16 : 8;
  return h`${matrixChart({
    rows: nodes.map(label),
    cols: nodes.map(label),
    cells,
    cell: size,
    className: "pairs",
    title: `Pair bus bandwidth as % of the reference, ${count(nodes.length, "node")}`,
  })}
${legend([
  { colour: pairColour(1, report.tolerance), label: "100 % of the reference" },
  {
    colour: pairColour(report.tolerance, report.tolerance),
    label: `${percentText(report.tolerance)}: the slow threshold`,
  },
  { colour: pairColour((report.tolerance + 0.5) / 2, report.tolerance), label: "slow" },
  { colour: pairColour(0.5, report.tolerance), label: "50 % or less" },
  { colour: "var(--panel)", label: "not tested" },
  { colour: "transparent", label: "outlined: a bad link; ✖ a bad node" },
])}`;
}

function pairTable(report: PairsReport): Html {
  const reference = report.referenceGBps;
  return table({
    columns: [
      "pair",
      { label: "bus bandwidth", num: true },
      { label: "of the reference", num: true },
      "verdict",
      "from",
    ],
    rows: [...report.pairs]
      .sort((a, b) => a.busbw - b.busbw)
      .map((p) => ({
        className: p.slow ? "odd" : "",
        cells: [
          `${p.a} ↔ ${p.b}`,
          { html: gbpsText(p.busbw), num: true },
          { html: reference ? percentText(p.busbw / reference) : "", num: true },
          p.slow ? "slow" : "ok",
          p.sources.join(", "),
        ],
      })),
  });
}

export function renderHtml(report: PairsReport): string {
  const summary = summarize(report.findings);
  const nodes = report.nodes.length;
  const next = report.retest.filter((t) => t.with !== null);
  const head: [string, string][] = [];
  if (report.referenceGBps !== null)
    head.push(["reference", `${gbpsText(report.referenceGBps)} (${report.referenceFrom ?? "given"})`]);
  if (report.thresholdGBps !== null) {
    head.push(["slow below", `${gbpsText(report.thresholdGBps)} (${percentText(report.tolerance)} of the reference)`]);
  }
  return page({
    title: `kube-rdma bench judge: ${count(report.pairs.length, "pair test")} on ${count(nodes, "node")}`,
    subtitle: "Each pair's large-message bus bandwidth (all_reduce_perf between 2 nodes) against the reference.",
    status: notJudgedStatus(summary, report.problems.length),
    findings: report.findings,
    body: [
      facts(head),
      h`<h2>Pair matrix</h2>`,
      report.pairs.length ? heatMap(report) : h`<p class="none">No pair could be judged.</p>`,
      h`<h2>Findings</h2>`,
      findingsList(report.findings, "No slow node or link: every pair is within the tolerance."),
      next.length ? h`<h2>Next tests</h2><ul>${next.map((t) => h`<li>${t.node} ↔ ${t.with ?? ""}</li>`)}</ul>` : null,
      h`<h2>Pairs, slowest first</h2>`,
      report.pairs.length ? pairTable(report) : h`<p class="none">None.</p>`,
      report.problems.length ? h`<h2>Inputs not judged</h2>${problemsList(report.problems)}` : null,
    ].filter((x): x is Html => x !== null),
  });
}

/** A file that gave no pair result was not judged: never a pass (as in the text report). */
function notJudgedStatus(summary: Summary, notJudged: number): ReturnType<typeof statusOf> {
  const s = statusOf(failIfUnchecked(summary, notJudged));
  return notJudged ? { ...s, text: `${s.text}, ${count(notJudged, "input")} not judged` } : s;
}

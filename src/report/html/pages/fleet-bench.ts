/**
 * The `fleet bench -o html` page: what the rounds found (bad nodes, rails, links) with how sure and the re-test
 * that confirms it, round 1's pairs as a heat map (node × node, % of the fleet median), the rounds, jobs and
 * budget, and the jobs that gave no result.
 */
import type { Finding } from "../../../core/finding.js";
import { naturalCompare } from "../../../core/natural.js";
import { retestWords, type VerdictEvidence } from "../../../fabric/bench/catalogue.js";
import type { Reference } from "../../../fabric/bench/evidence.js";
import type { FirstRoundPair, FleetBenchResult } from "../../kinds/fleet-bench.js";
import { matrixChart } from "../charts/matrix.js";
import { type MeasuredPair, pairCells, pairColour } from "../charts/pair-cells.js";
import { facts, findingsList, legend, statusOf, table } from "../components.js";
import { bytesText, count, gbpsText, percentText } from "../format.js";
import { type Html, h } from "../html.js";
import { page } from "../page.js";

/** Above this many nodes the heat map would be mostly empty and too large: round 1 is a table of its slowest pairs. */
export const HEAT_MAP_MAX_NODES = 64;
const SLOWEST_SHOWN = 20;

const secondsText = (s: number) => (s >= 120 ? `${Math.round(s / 6) / 10} min` : `${Math.round(s * 10) / 10} s`);

function referenceText(ref: Reference): string {
  const top = ref.sizes.at(-1);
  if (!top) return "no test";
  return `median ${gbpsText(top.medianGBps)} at ${bytesText(top.bytes)} (${percentText(top.medianGBps / ref.lineGBps)} of the line rate, from the ${ref.from}); slow below ${gbpsText(top.thresholdGBps)}`;
}

/** The verdicts (findings with a confidence): what, how sure, and the test that confirms or clears it. */
function verdictTable(findings: readonly Finding[]): Html | null {
  const verdicts = findings.filter((f) => (f.evidence as Partial<VerdictEvidence> | undefined)?.confidence);
  if (verdicts.length === 0) return null;
  return table({
    className: "verdicts",
    columns: ["finding", "subject", "confidence", "confirming re-test"],
    rows: verdicts.map((f) => {
      const e = f.evidence as VerdictEvidence;
      return {
        className: `sev-${f.severity}`,
        cells: [f.code, f.subject, e.confidence, retestWords(e.retest)],
      };
    }),
  });
}

/** Nodes a verdict names (a bad node, or the node of a bad rail), with what it says, for the heat map's labels. */
function nodeNotes(findings: readonly Finding[]): Map<string, string> {
  const notes = new Map<string, string>();
  for (const f of findings) {
    const e = f.evidence as Partial<VerdictEvidence> | undefined;
    if (f.code === "FLEET_BAD_NODE") notes.set(f.subject, "bad node");
    else if (f.code === "FLEET_BAD_RAIL" && e?.node && !notes.has(e.node)) notes.set(e.node, `bad rail ${e.hca ?? ""}`);
  }
  return notes;
}

type FailedPair = { nodes: readonly string[]; reason: string };

function heatMap(
  pairs: readonly FirstRoundPair[],
  failed: readonly FailedPair[],
  ref: { median: number; tolerance: number },
  notes: Map<string, string>,
): Html {
  const nodes = [...new Set([...pairs.flatMap((p) => [p.a, p.b]), ...failed.flatMap((f) => f.nodes)])].sort(
    naturalCompare,
  );
  const measured: MeasuredPair[] = pairs.map((p) => {
    const fraction = ref.median > 0 ? p.busbw / ref.median : 0;
    return {
      a: p.a,
      b: p.b,
      busbw: p.busbw,
      fraction,
      slow: fraction < ref.tolerance,
      marked: notes.has(p.a) || notes.has(p.b),
      of: "the fleet median",
    };
  });
  const unmeasured = failed.flatMap((f) => {
    const [a, b] = f.nodes;
    return a === undefined || b === undefined ? [] : [{ a, b, reason: f.reason }];
  });
  const cells = pairCells(nodes, measured, unmeasured, ref.tolerance);
  const label = (n: string) => ({ name: n, marked: notes.has(n), ...(notes.has(n) ? { note: notes.get(n)! } : {}) });
  const size = nodes.length <= 12 ? 44 : nodes.length <= 24 ? 32 : 16;
  return h`${matrixChart({
    rows: nodes.map(label),
    cols: nodes.map(label),
    cells,
    cell: size,
    className: "pairs fleet-bench",
    title: `Round 1: pair bus bandwidth as % of the fleet median, ${count(pairs.length, "pair")} on ${count(nodes.length, "node")}`,
  })}
${legend([
  { colour: pairColour(1, ref.tolerance), label: "100 % of the fleet median" },
  { colour: pairColour(ref.tolerance, ref.tolerance), label: `${percentText(ref.tolerance)}: the slow threshold` },
  { colour: pairColour(0.5, ref.tolerance), label: "50 % or less" },
  { colour: "var(--muted)", label: "✖ no result (the job failed)" },
  { colour: "transparent", label: "outlined: a pair with a bad node or rail; ✖ that node" },
])}`;
}

function slowestPairs(pairs: readonly FirstRoundPair[], median: number): Html {
  const shown = [...pairs].sort((a, b) => a.busbw - b.busbw).slice(0, SLOWEST_SHOWN);
  return h`<p>${count(pairs.length, "pair")} in round 1, too many nodes for a heat map: the ${count(shown.length, "slowest pair")}, slowest first.</p>
${table({
  className: "first-round",
  columns: ["pair", { label: "bus bandwidth", num: true }, { label: "of the fleet median", num: true }],
  rows: shown.map((p) => ({
    cells: [
      `${p.a} ↔ ${p.b}`,
      { html: gbpsText(p.busbw), num: true },
      { html: median > 0 ? percentText(p.busbw / median) : "", num: true },
    ],
  })),
})}`;
}

function firstRound(result: FleetBenchResult): Html {
  const top = result.report.reference.pair.sizes.at(-1);
  if (!top || result.firstRound.length === 0) return h`<p class="none">Round 1 gave no pair result.</p>`;
  const nodes = new Set(result.firstRound.flatMap((p) => [p.a, p.b])).size;
  return nodes <= HEAT_MAP_MAX_NODES
    ? heatMap(
        result.firstRound,
        result.report.failedJobs.filter((f) => f.round === 1),
        { median: top.medianGBps, tolerance: top.thresholdGBps / top.medianGBps },
        nodeNotes(result.report.findings),
      )
    : slowestPairs(result.firstRound, top.medianGBps);
}

export function renderHtml(result: FleetBenchResult): string {
  const r = result.report;
  const head: [string, string][] = [
    ["plan", r.plan],
    ["rounds", `${r.rounds.length}, ${count(r.jobs, "job")} (${r.failedJobs.length} without a result)`],
    ["time", `${secondsText(r.seconds)} (budget ${secondsText(r.budgetSeconds)})`],
    ["pairs", referenceText(r.reference.pair)],
    ["rails", referenceText(r.reference.rail)],
  ];
  if ("run" in result) {
    head.push(["run", `${result.run.id} in namespace ${result.run.namespace}, leaves from ${result.run.leaves}`]);
    if (result.run.interrupted) head.push(["interrupted", "yes: the report is partial"]);
  } else {
    const t = result.simulated;
    head.push([
      "planted",
      `${count(t.nodes.length, "node")}, ${count(t.rails.length, "rail")}, ${count(t.links.length, "link")}, ${t.flapping.length} flapping`,
    ]);
  }
  const { nodes, rails, links } = r.found;
  return page({
    title: `kube-rdma fleet bench: ${count(r.nodes, "node")}, ${count(r.rounds.length, "round")}`,
    subtitle: `${"run" in result ? "Cluster run" : "Simulated fleet"}: rounds of 2-node all_reduce_perf jobs, judged against the fleet median.`,
    status: statusOf(r.summary),
    findings: r.findings,
    body: [
      facts(head),
      h`<h2>Found (confirmed)</h2>`,
      h`<p class="found">${count(nodes.length, "node")}${nodes.length ? `: ${nodes.join(", ")}` : ""}; ${count(rails.length, "rail")}${rails.length ? `: ${rails.join(", ")}` : ""}; ${count(links.length, "link")}${links.length ? `: ${links.join(", ")}` : ""}</p>`,
      verdictTable(r.findings),
      h`<h2>Findings</h2>`,
      findingsList(r.findings, "Nothing slow: every pair and rail is within the tolerance of the fleet median."),
      h`<h2>Round 1</h2>`,
      firstRound(result),
      h`<h2>Rounds</h2>`,
      table({
        className: "rounds",
        columns: [
          { label: "round", num: true },
          { label: "jobs", num: true },
          { label: "failed", num: true },
          { label: "time", num: true },
        ],
        rows: r.rounds.map((x) => ({
          cells: [x.round, x.jobs, x.failed, { html: secondsText(x.seconds), num: true }],
        })),
      }),
      r.failedJobs.length
        ? h`<h2>Jobs without a result</h2>${table({
            className: "failed-jobs",
            columns: ["job", { label: "round", num: true }, "nodes", "reason"],
            rows: r.failedJobs.map((f) => ({ cells: [f.job, f.round, f.nodes.join(" ↔ "), f.reason] })),
          })}`
        : null,
    ].filter((x): x is Html => x !== null),
  });
}

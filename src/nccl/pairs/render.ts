/** Text of `bench pairs` (the schedule) and `bench judge` (the verdict). Pure. */
import { failIfUnchecked, summarize } from "../../core/finding.js";
import { renderFindingSections, summaryLine } from "../../report/findings-text.js";
import type { PairsReport } from "./judge.js";
import type { PairRound } from "./schedule.js";

const gb = (v: number) => `${v.toFixed(1)} GB/s`;

export function renderPairRounds(rounds: readonly PairRound[], testCommand: string, gpusPerNode: number): string {
  const nodes = new Set(rounds.flatMap((r) => r.pairs.flat()));
  const lines = [
    `${rounds.length} round(s) over ${nodes.size} nodes: every node meets every other once; the pairs of a round`,
    "share no node, so they run side by side.",
    "",
  ];
  for (const r of rounds) {
    const pairs = r.pairs.map(([a, b]) => `${a}↔${b}`).join("  ");
    lines.push(`round ${r.round}: ${pairs}${r.rests ? `  (${r.rests} rests)` : ""}`);
  }
  lines.push(
    "",
    "Each pair runs the 2-node test, one rank per GPU:",
    `  ${testCommand}`,
    ...placement(rounds[0]?.pairs[0], gpusPerNode),
    "Save each whole output as <a>+<b>.txt (the file name names the pair; inside pods the rank lines show pod",
    `names), e.g. kubectl logs job/pair-${rounds[0]?.pairs[0]?.join("-") ?? "a-b"}-launcher > ${rounds[0]?.pairs[0]?.join("+") ?? "a+b"}.txt, then:`,
    "  kube-rdma bench judge *+*.txt",
  );
  return `${lines.join("\n")}\n`;
}

/** How to put the test on one pair: mpirun's host list, or the pods' node affinity on Kubernetes. */
function placement(pair: [string, string] | undefined, gpus: number): string[] {
  if (!pair) return [];
  const [a, b] = pair;
  return [
    `placed on the pair with mpirun's host list (-H ${a}:${gpus},${b}:${gpus}), or on Kubernetes as a job of its own:`,
    `  kube-rdma job nccl-tests --nodes 2 --gpus ${gpus} --on ${a},${b} --name pair-${a}-${b}`,
  ];
}

export function renderPairsReport(report: PairsReport): string {
  const lines: string[] = [];
  const nodes = report.nodes.length;
  lines.push(`kube-rdma bench judge: ${report.pairs.length} pair test(s) on ${nodes} node(s)`);
  if (report.referenceGBps !== null && report.thresholdGBps !== null) {
    lines.push(
      `  reference ${gb(report.referenceGBps)} (${report.referenceFrom}); slow below ${gb(report.thresholdGBps)} (${Math.round(report.tolerance * 100)}%)`,
    );
  }
  if (report.pairs.length) {
    lines.push("", "Pairs (slowest first)");
    const width = Math.max(...report.pairs.map((p) => `${p.a}↔${p.b}`.length)) + 2;
    for (const p of [...report.pairs].sort((x, y) => x.busbw - y.busbw)) {
      const label = `${p.a}↔${p.b}`.padEnd(width);
      lines.push(`  ${label}${gb(p.busbw).padStart(11)}  ${p.slow ? "SLOW" : "ok  "}  ${p.sources.join(", ")}`);
    }
  }
  const flagged = report.nodes.filter((n) => n.verdict !== "ok");
  if (flagged.length) {
    lines.push("", "Nodes");
    for (const n of flagged) {
      lines.push(
        `  ${n.node}  ${n.verdict === "bad_node" ? "bad node" : "suspect"}: ${n.slowPairs} of ${n.pairs} pair(s) slow`,
      );
    }
  }
  lines.push(...renderFindingSections(report.findings));
  const next = report.retest.filter((t) => t.with !== null);
  if (next.length) {
    lines.push("", "Next tests (side by side)", ...next.map((t) => `  ${t.node}↔${t.with}`));
  }
  for (const p of report.problems) lines.push("", `problem: ${p.message}${p.hint ? `\n  ${p.hint}` : ""}`);
  // A file that gave no pair result was not judged: its pair may be the slow one, so never a PASS.
  const notJudged = report.problems.length;
  const s = failIfUnchecked(summarize(report.findings), notJudged);
  lines.push("", summaryLine(s, notJudged ? `${notJudged} input(s) not judged` : undefined));
  return `${lines.join("\n")}\n`;
}

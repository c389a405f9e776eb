/**
 * perftest bandwidth runs (ib_write_bw, ib_read_bw, ib_send_bw): each NIC's best average at 64 KiB or larger
 * messages against its port's line rate, before NCCL is blamed. The rate comes from `--line-rate` or the node model.
 */
import type { Finding } from "../../core/finding.js";
import { makeFinding } from "../../core/finding.js";
import { type PerftestRun, parsePerftest, toGbps } from "../../parse/perftest.js";
import { ANALYZE_CATALOGUE as C } from "../catalogue.js";
import type { AnalyzeContext, AnalyzerKind } from "../types.js";
import { anyLine, outcomeOf } from "./outcome.js";

/** A healthy NIC reaches ~95 % (see PERFTEST_BELOW_LINE_RATE); below this share of line rate is a finding. */
export const LINE_RATE_SHARE = 0.9;
/** Smaller messages are bound by per-message costs, not the link: not judged. */
const PLATEAU_BYTES = 65_536;

const TEST_COMMAND: Record<string, string> = {
  RDMA_Write: "ib_write_bw",
  RDMA_Read: "ib_read_bw",
  Send: "ib_send_bw",
};

/** The run's best average at plateau sizes, in Gb/s, with its message size; null when no row is that large. */
export function plateauOf(run: PerftestRun): { gbps: number; bytes: number } | null {
  let best: { gbps: number; bytes: number } | null = null;
  for (const r of run.rows) {
    if (r.bytes < PLATEAU_BYTES) continue;
    const gbps = toGbps(r.average, run.unit);
    if (!best || gbps > best.gbps) best = { gbps, bytes: r.bytes };
  }
  return best;
}

function lineRateOf(device: string | null, ctx: AnalyzeContext): { gbps: number; from: string } | null {
  if (ctx.lineRateGbps !== undefined) return { gbps: ctx.lineRateGbps, from: "--line-rate" };
  const hca = device ? ctx.inventory?.hcas.find((h) => h.name === device) : undefined;
  const rate = hca?.ports.find((p) => p.rateGbps !== null)?.rateGbps ?? null;
  return rate === null ? null : { gbps: rate, from: `${device}'s port rate on ${ctx.inventory!.hostname}` };
}

function judge(runs: readonly PerftestRun[], ctx: AnalyzeContext): { findings: Finding[]; summary: string } {
  const findings: Finding[] = [];
  const parts: string[] = [];
  const unjudged: { device: string; why: string }[] = [];
  for (const run of runs) {
    const device = run.device ?? "the NIC";
    const test = TEST_COMMAND[run.test ?? ""] ?? "perftest";
    const plateau = plateauOf(run);
    if (!plateau) {
      unjudged.push({ device, why: "no message of 64 KiB or more was measured" });
      continue;
    }
    const rate = lineRateOf(run.device, ctx);
    parts.push(
      `${test} ${device}: ${plateau.gbps.toFixed(1)} Gb/s${rate ? ` (${Math.round((100 * plateau.gbps) / rate.gbps)} % of ${rate.gbps})` : ""}`,
    );
    if (!rate) {
      unjudged.push({ device, why: "the port's rate is not in the output" });
      continue;
    }
    if (plateau.gbps >= LINE_RATE_SHARE * rate.gbps) continue;
    findings.push(
      makeFinding(C, "PERFTEST_BELOW_LINE_RATE", device, {
        test,
        device,
        averageGbps: plateau.gbps,
        bytes: plateau.bytes,
        lineRateGbps: rate.gbps,
        percent: (100 * plateau.gbps) / rate.gbps,
        rateFrom: rate.from,
        mtu: run.mtu,
      }),
    );
  }
  const whys = [...new Set(unjudged.map((u) => u.why))];
  for (const why of whys) {
    const devices = [...new Set(unjudged.filter((u) => u.why === why).map((u) => u.device))].join(", ");
    findings.push(makeFinding(C, "PERFTEST_NOT_JUDGED", "perftest", { devices, why }));
  }
  return { findings, summary: parts.length ? parts.join("; ") : `${runs.length} run(s), none at 64 KiB or more` };
}

export const perftestAnalyzer: AnalyzerKind = {
  kind: "perftest_bw",
  detect(head) {
    const table = anyLine(head, /#bytes\s+#iterations\s+BW peak\[(?:Gb|MB)\/sec\]\s+BW average\[/);
    if (!table) return anyLine(head, /^\s*(?:RDMA_Write|RDMA_Read|Send)\s+BW\s+Test\s*$/) ? 0.6 : 0;
    return 0.95;
  },
  analyze(text, ctx) {
    return outcomeOf(parsePerftest(text), (value) => judge(value.runs, ctx));
  },
};

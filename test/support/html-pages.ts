/** The report pages the HTML tests open: built through the same result objects the commands print. */
import { readFileSync } from "node:fs";
import { type AnalyzedInput, analyzeText } from "../../src/analyze/index.js";
import type { AnalyzeContext } from "../../src/analyze/types.js";
import { runChecks, verifyReport } from "../../src/checks/index.js";
import { openReader } from "../../src/host/index.js";
import { readInventory } from "../../src/inventory/index.js";
import type { NodeInventory } from "../../src/inventory/types.js";
import { judgePairs, type PairMeasurement, pairRounds } from "../../src/nccl/pairs/index.js";
import { ANALYZE_REPORT } from "../../src/report/kinds/analyze.js";
import { BENCH_JUDGE_REPORT } from "../../src/report/kinds/bench.js";
import { FLEET_VERIFY_REPORT } from "../../src/report/kinds/fleet-verify.js";
import { VERIFY_REPORT } from "../../src/report/kinds/verify.js";
import { renderReport } from "../../src/report/registry.js";
import { fleetResult } from "./fleet-report.js";
import { allReduceOutput } from "./nccl-tests-output.js";

/** Names that would run script or break out of an attribute if a page printed them unescaped. */
export const HOSTILE = "<script>alert(1)</script>";
export const HOSTILE_ATTR = `x" onmouseover="alert(1)`;
export const HOSTILE_TAG = `a'><img src=x onerror=alert(2)>`;

/** An example host's inventory with some names replaced everywhere they occur (HCA names, the host name). */
export async function exampleInventory(example: string, rename: Record<string, string> = {}): Promise<NodeInventory> {
  let json = JSON.stringify(await readInventory(await openReader({ example })));
  for (const [from, to] of Object.entries(rename)) json = json.replaceAll(JSON.stringify(from), JSON.stringify(to));
  return JSON.parse(json) as NodeInventory;
}

export async function verifyPage(inv: NodeInventory): Promise<string> {
  return renderReport(VERIFY_REPORT, verifyReport(inv, runChecks(inv)), "html");
}

export function fixture(path: string): string {
  return readFileSync(`fixtures/${path}`, "utf8");
}

export function analyzeEntries(
  inputs: readonly { file: string; text: string }[],
  ctx: AnalyzeContext = {},
): AnalyzedInput[] {
  return inputs.map((i) => analyzeText(i.file, i.text, ctx));
}

export function analyzePage(entries: readonly AnalyzedInput[]): Promise<string> {
  return renderReport(ANALYZE_REPORT, entries, "html");
}

/**
 * A full round of pair tests over `nodes` (every node meets every other once), each pair at 185 GB/s unless
 * `speed` says otherwise; the runs' outputs are analysed as `bench judge` does.
 */
export function pairMeasurements(nodes: readonly string[], speed: (a: string, b: string) => number): PairMeasurement[] {
  return pairRounds(nodes).flatMap((r) =>
    r.pairs.map(([a, b], i) => {
      // Named run-…: the pair comes from the rank lines (`on <host>`), as for any file not named <a>+<b>.txt.
      const entry = analyzeText(
        `run-${r.round}-${i + 1}.txt`,
        allReduceOutput({ hosts: [a, b], peakBusBw: speed(a, b) }),
        {},
        {
          kind: "nccl_tests",
        },
      );
      const data = entry.data as { hosts: string[]; largeMessage: { busbw: number } | null };
      return { source: entry.file, hosts: data.hosts, busbw: data.largeMessage?.busbw ?? null };
    }),
  );
}

export function judgePage(measurements: readonly PairMeasurement[]): Promise<string> {
  const report = judgePairs(measurements);
  return renderReport(BENCH_JUDGE_REPORT, report, "html");
}

export async function fleetPage(nodes: number | readonly string[]): Promise<string> {
  return renderReport(FLEET_VERIFY_REPORT, await fleetResult(nodes), "html");
}

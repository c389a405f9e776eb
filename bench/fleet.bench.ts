/**
 * fleet verify analysis at scale: 10,000 collector logs (snapshots of the example hosts, 1 in 50 with one fault,
 * each with its own host name) → per-node verify (snapshot reader, inventory, checks) → fleet consistency report.
 * Target: under 10 s. Uses the worker threads `fleet verify` starts (one per core); stops after a 30 s budget and
 * projects the rest.
 */
import { runChecks } from "../src/checks/index.js";
import { collectSnapshot, openReader, SnapshotHostReader } from "../src/host/index.js";
import { readInventory } from "../src/inventory/index.js";
import { attributeValues } from "../src/kube/fleet/consistency.js";
import {
  analyseInThread,
  buildFleetReport,
  type CollectOutcome,
  createAnalysisPool,
  defaultAnalysisThreads,
} from "../src/kube/fleet/index.js";
import type { NodeAnalysis } from "../src/kube/fleet/node-analyser.js";
import { parseSnapshotLog } from "../src/kube/fleet/snapshot-log.js";

const TOTAL = 10_000;
const TARGET_S = 10;
const BUDGET_S = 30;
const ODD = ["fw-mismatch", "half-rate", "gid-index-5", "no-ofed", "h100-18hca"];

const base = new Map<string, string>();
for (const example of ["a100-8x-roce", ...ODD]) {
  base.set(example, JSON.stringify(await collectSnapshot(await openReader({ example }))));
}
const kib = (example: string) => `${example} ${(base.get(example)!.length / 1024).toFixed(0)} KiB`;
console.log(`snapshot logs (v3): ${["a100-8x-roce", ...ODD].map(kib).join(", ")}`);
/** Node i's log: the seed, or (1 in 50) one of the odd examples, with its own host name. */
function logOf(i: number): { node: string; log: string } {
  const node = `gpu-${String(i).padStart(5, "0")}`;
  const example = i % 50 === 7 ? ODD[((i / 50) % ODD.length) | 0]! : "a100-8x-roce";
  const text = base.get(example)!;
  return { node, log: text.replace(/"host":"[^"]*"/, `"host":"${node}"`) };
}

const threads = defaultAnalysisThreads(TOTAL); // what `fleet verify` starts for 10,000 nodes
const pool = createAnalysisPool(threads);
// Warm up (JIT, module loading in every worker) before timing.
await Promise.all(Array.from({ length: threads * 2 }, (_, i) => pool.handle(logOf(i).log, `warm-${i}`)));

const outcomes: CollectOutcome<NodeAnalysis>[] = [];
/** When each 1,000th reply came: the first thousands carry the JIT compiling the analysis code in every worker. */
const thousands: number[] = [];
const start = performance.now();
let next = 0;
let stopped = false;
const inFlight = threads * 4;
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (next < TOTAL && !stopped) {
      const { node, log } = logOf(next++);
      const r = await pool.handle(log, node);
      outcomes.push(
        r.ok ? { node, ok: true, result: r.value, pod: node } : { node, ok: false, reason: r.reason, pod: null },
      );
      if (outcomes.length % 1000 === 0) thousands.push(performance.now());
      if ((performance.now() - start) / 1000 > BUDGET_S) stopped = true;
    }
  }),
);
const analysedS = (performance.now() - start) / 1000;
await pool.close();
const t = performance.now();
const report = buildFleetReport(outcomes);
const reportS = (performance.now() - t) / 1000;

// Baseline in the same process: the same pipeline on one thread (warmed up first), with where the time goes.
for (let i = 0; i < 300; i++) await analyseInThread(logOf(i).log, `warm-${i}`);
const t1 = performance.now();
for (let i = 0; i < 300; i++) await analyseInThread(logOf(i).log, `single-${i}`);
const singleMs = (performance.now() - t1) / 300;
const stage = { parse: 0, inventory: 0, checks: 0 };
for (let i = 0; i < 200; i++) {
  const { log } = logOf(i); // the bench's own copy of a log, outside the timed stage
  let t0 = performance.now();
  const parsed = parseSnapshotLog(log, "x");
  stage.parse += performance.now() - t0;
  if (!parsed.ok) continue;
  t0 = performance.now();
  const inv = await readInventory(new SnapshotHostReader(parsed.value));
  stage.inventory += performance.now() - t0;
  t0 = performance.now();
  runChecks(inv);
  attributeValues(inv);
  stage.checks += performance.now() - t0;
}

const done = outcomes.length;
const totalS = analysedS + reportS;
const projected = done < TOTAL ? (totalS / done) * TOTAL : totalS;
const odd = new Set(report.consistency.findings.map((f) => f.subject));
console.log(`fleet analysis: ${done} of ${TOTAL} snapshots in ${totalS.toFixed(2)} s on ${threads} worker thread(s)`);
console.log(
  `  per node: ${((analysedS * 1000) / done).toFixed(2)} ms wall (${(done / analysedS).toFixed(0)} nodes/s); one thread: ${singleMs.toFixed(2)} ms/node (ratio ${(singleMs / ((analysedS * 1000) / done)).toFixed(2)}×)`,
);
const perThousand = thousands.map((t, i) => ((t - (thousands[i - 1] ?? start)) / 1000).toFixed(2));
if (perThousand.length > 1) {
  console.log(
    `  each 1,000 nodes (s): ${perThousand.join(" ")} — the first ones carry the JIT compiling in both workers`,
  );
}
console.log(
  `  one thread, per node: log → snapshot ${(stage.parse / 200).toFixed(2)} ms, snapshot → inventory ${(stage.inventory / 200).toFixed(2)} ms, checks + fleet values ${(stage.checks / 200).toFixed(2)} ms`,
);
console.log(
  `  report (consistency + verdicts): ${(reportS * 1000).toFixed(0)} ms; ${odd.size} odd node(s), ${report.failedNodes.length} failed`,
);
if (done < TOTAL)
  console.log(`  stopped at the ${BUDGET_S} s budget; projected for ${TOTAL}: ${projected.toFixed(1)} s`);
console.log(
  `target: ${TOTAL} snapshots < ${TARGET_S} s → ${projected < TARGET_S ? "PASS" : "MISS"} (${projected.toFixed(1)} s)`,
);

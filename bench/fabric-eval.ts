/**
 * `npm run bench:fabric`: the rail-aware fleet bench against the fabric simulator, 10 random fleets per
 * oversubscription (1, 2, 4) on the issue's scenario (4 units × 256 nodes × 8 rails, 10 bad nodes, 2 bad NICs,
 * 2 bad leaf uplinks, 1 bad spine port, 3 % noise), and the flat-fabric planner on the 2:1 fleets for comparison.
 * Prints recall and precision per fault kind, rounds, jobs and simulated wall time.
 */
import { type EvalRun, evaluate, FAULT_KINDS, REFERENCE_SCENARIO, totals } from "../src/fabric/eval.js";

const SEEDS = Array.from({ length: Number(process.env.FABRIC_EVAL_FLEETS ?? 10) }, (_, i) => i + 1);
const pct = (x: number) => (Number.isNaN(x) ? "  –  " : `${(100 * x).toFixed(1)}%`.padStart(6));

function table(title: string, runs: EvalRun[], ms: number): string {
  const t = totals(runs);
  const rounds = runs.map((r) => r.rounds);
  const lines = [
    `${title}: ${runs.length} fleets, rounds ${Math.min(...rounds)}–${Math.max(...rounds)}, jobs ${Math.round(runs.reduce((s, r) => s + r.jobs, 0) / runs.length)} on average, simulated ${(runs.reduce((s, r) => s + r.seconds, 0) / runs.length / 60).toFixed(1)} min on average, ${(ms / runs.length / 1000).toFixed(1)} s per fleet here`,
    "  kind        planted  found right  found wrong  recall  precision",
  ];
  for (const k of FAULT_KINDS) {
    const x = t[k];
    lines.push(
      `  ${k.padEnd(10)}  ${String(x.planted).padStart(7)}  ${String(x.truePositives).padStart(11)}  ${String(x.falsePositives).padStart(11)}  ${pct(x.recall)}  ${pct(x.precision)}`,
    );
  }
  return lines.join("\n");
}

for (const oversubscription of [1, 2, 4]) {
  const t0 = performance.now();
  const runs: EvalRun[] = [];
  for (const seed of SEEDS) runs.push(await evaluate({ ...REFERENCE_SCENARIO, oversubscription, seed }));
  console.log(`${table(`rail-aware planner, ${oversubscription}:1`, runs, performance.now() - t0)}\n`);
}
const t0 = performance.now();
const flat: EvalRun[] = [];
for (const seed of SEEDS) flat.push(await evaluate({ ...REFERENCE_SCENARIO, seed }, "flat"));
console.log(table("flat-fabric planner (one leaf per unit), 2:1", flat, performance.now() - t0));

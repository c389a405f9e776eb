/**
 * `npm run bench:fabric`: the rail-aware fleet bench against the fabric simulator on 1,024 nodes (4 units × 256
 * nodes × 8 rails, 2:1; 10 bad nodes, 2 bad NICs, 2 bad leaf uplinks, 1 bad spine port, 3 % noise), under each
 * realism switch of the simulator on its own, the combination the targets name, and all together
 * (REALISM_VARIANTS in src/fabric/eval.ts). A fault is one way (what the leaf or spine end sends) unless the variant
 * says a bad cable slows both ways; those variants are scored by cable: a planted fault counts as found when either
 * end of its cable is named, a named hop as wrong when its cable holds no planted fault (scoreFabric). Prints recall and precision per fault kind, rounds, jobs, simulated
 * wall time, and how many hops each run reported as not cleared (and how many planted faults sat among them), with
 * the range over the fleets of each per-fleet figure.
 * FABRIC_EVAL_FLEETS sets the random fleets per variant (default 5); FABRIC_EVAL_ONLY a substring of a name.
 * Round budget: at most 6 rounds per fleet (round 1: every node in a pair test inside its unit; round 2: re-tests
 * beside the spine sweep; rounds 3–6: suspects crossed alone, two waves, and group tests of every good node on the
 * rails whose leaves hold a hop in doubt, two waves; four group waves instead where the NIC picks the ports).
 */
import {
  type EvalRun,
  evaluate,
  FAULT_KINDS,
  REALISM_VARIANTS,
  REFERENCE_SCENARIO,
  totals,
} from "../src/fabric/eval.js";

const SEEDS = Array.from({ length: Number(process.env.FABRIC_EVAL_FLEETS ?? 5) }, (_, i) => i + 1);
const ONLY = process.env.FABRIC_EVAL_ONLY ?? "";
const pct = (x: number) => (Number.isNaN(x) ? "  –  " : `${(100 * x).toFixed(1)}%`.padStart(6));

/** Per-fleet recall and precision of a kind, as min–max over the fleets where it is defined. */
function range(runs: readonly EvalRun[], k: (typeof FAULT_KINDS)[number], subset: boolean): string {
  const span = (xs: number[]) => {
    const ys = xs.filter((x) => !Number.isNaN(x));
    return ys.length === 0 ? "–" : `${pct(Math.min(...ys)).trim()}–${pct(Math.max(...ys)).trim()}`;
  };
  const one = runs.map((r) => totals([r])[k]);
  return `${span(one.map((x) => x.recall))}, ${subset ? "–" : span(one.map((x) => x.precision))}`;
}

/** The not-cleared hops as a user meets them: leaves to look at, and how far their hops were proven. */
function leafLine(runs: readonly EvalRun[]): string {
  const ls = runs.map((r) => r.notClearedLeaves!);
  const pcts = ls.flatMap((l) => l.provenPct).sort((a, b) => a - b);
  const q = (p: number) => (pcts.length ? `${pcts[Math.min(pcts.length - 1, Math.floor(p * pcts.length))]}%` : "–");
  return `  by leaf: ${Math.round(ls.reduce((s, l) => s + l.leaves, 0) / runs.length)} leaves per fleet on average (${ls.reduce((s, l) => s + l.pathsUnknown, 0)} in all with paths unknown); the least load a leaf's not-cleared hops carried, over leaves with known paths: median ${q(0.5)}, 10th percentile ${q(0.1)}`;
}

function table(title: string, runs: EvalRun[], ms: number): string {
  const t = totals(runs);
  const rounds = runs.map((r) => r.rounds);
  const avg = (f: (r: EvalRun) => number) => runs.reduce((s, r) => s + f(r), 0) / runs.length;
  const lines = [
    `${title}: ${runs.length} fleets, rounds ${Math.min(...rounds)}–${Math.max(...rounds)}, jobs ${Math.round(avg((r) => r.jobs))} on average, simulated ${(avg((r) => r.seconds) / 60).toFixed(1)} min on average, ${(ms / runs.length / 1000).toFixed(1)} s per fleet here`,
    `  hops reported not cleared: ${Math.round(avg((r) => r.notCleared))} per fleet on average (${Math.min(...runs.map((r) => r.notCleared))}–${Math.max(...runs.map((r) => r.notCleared))}), never crossed ${Math.round(avg((r) => r.neverCrossed))}; planted faults not found but listed there: ${runs.reduce((s, r) => s + r.plantedNotCleared, 0)}`,
    leafLine(runs),
    "  kind        planted  found right  found wrong  recall  precision  per fleet: recall, precision (min–max)",
  ];
  for (const k of FAULT_KINDS) {
    const x = t[k];
    if (x.planted === 0 && x.falsePositives === 0 && (k === "loadOnly" || k === "downNics")) continue;
    const subset = k === "loadOnly" || k === "downNics";
    lines.push(
      `  ${k.padEnd(10)}  ${String(x.planted).padStart(7)}  ${String(x.truePositives).padStart(11)}  ${(subset ? "(above)" : String(x.falsePositives)).padStart(11)}  ${pct(x.recall)}  ${(subset ? "  –  " : pct(x.precision)).padStart(9)}  ${range(runs, k, subset)}`,
    );
  }
  return lines.join("\n");
}

for (const v of REALISM_VARIANTS) {
  if (ONLY && !v.name.includes(ONLY)) continue;
  const t0 = performance.now();
  const runs: EvalRun[] = [];
  for (const seed of SEEDS) runs.push(await evaluate({ ...REFERENCE_SCENARIO, ...v.options, seed }));
  console.log(`${table(v.name, runs, performance.now() - t0)}\n`);
}

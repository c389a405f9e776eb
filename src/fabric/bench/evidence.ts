/**
 * From raw results to judged tests: the fleet reference per message size (median, MAD, slow threshold) and, for
 * every test, whether it was slow and by how much. Pure.
 */
import { mad, median, slowThreshold } from "../stats.js";
import { type BenchJob, expectedBusBw, type FabricView, type JobResult, type SizeResult } from "../types.js";

export type SizeReference = {
  bytes: number;
  medianGBps: number;
  madGBps: number;
  thresholdGBps: number;
  tests: number;
};

/** The fleet's reference for one kind of test: every size, and the largest one the verdicts use. */
export type Reference = {
  kind: "pair" | "rail";
  sizes: SizeReference[];
  /** Expected busbw at line rate (HCAs × line rate × ring efficiency). */
  lineGBps: number;
  /** Where the reference came from: the fleet's results, or the line rate when too few tests ran. */
  from: "fleet" | "line rate";
};

/** One judged nccl-tests table of a job. */
export type JudgedTest = {
  job: BenchJob;
  a: string;
  b: string;
  hca: string | null;
  /** Large-message busbw (the largest size of the sweep). */
  busbw: number;
  bytes: number;
  slow: boolean;
  pctOfMedian: number;
  pctOfLine: number;
  /** % of the fleet median at every size. */
  perSize: { bytes: number; busbw: number; pctOfMedian: number }[];
};

const MIN_TESTS_FOR_FLEET_REFERENCE = 4;

function referenceOf(
  kind: "pair" | "rail",
  tables: readonly (readonly SizeResult[])[],
  view: FabricView,
  tolerance: number,
  /** A floor for the median: rail tests run only for suspects, so many may be slow; the pairs' median / HCAs is
   * what a healthy rail reaches. */
  anchorGBps?: number,
): Reference {
  const lineGBps = expectedBusBw(view, kind);
  const bySize = new Map<number, number[]>();
  for (const rows of tables) {
    for (const r of rows) {
      const list = bySize.get(r.bytes);
      if (list) list.push(r.busbw);
      else bySize.set(r.bytes, [r.busbw]);
    }
  }
  const fromFleet = tables.length >= MIN_TESTS_FOR_FLEET_REFERENCE;
  const sizes = [...bySize.entries()]
    .sort((x, y) => x[0] - y[0])
    .map(([bytes, values]) => {
      if (!fromFleet) {
        const m = anchorGBps ?? lineGBps;
        return {
          bytes,
          medianGBps: m,
          madGBps: 0,
          thresholdGBps: slowThreshold(m, 0, tolerance),
          tests: values.length,
        };
      }
      // Twice: the second pass keeps only the results the first found healthy, so that a fleet where many paths
      // are slow (a bad uplink under a few leaves) does not widen the noise band until real faults pass as noise.
      let m = Math.max(median(values), anchorGBps ?? 0);
      let d = mad(values, m);
      const healthy = values.filter((v) => v >= slowThreshold(m, d, tolerance));
      if (healthy.length >= MIN_TESTS_FOR_FLEET_REFERENCE) {
        m = Math.max(median(healthy), anchorGBps ?? 0);
        d = mad(healthy, m);
      }
      return { bytes, medianGBps: m, madGBps: d, thresholdGBps: slowThreshold(m, d, tolerance), tests: values.length };
    });
  return { kind, sizes, lineGBps, from: fromFleet ? "fleet" : "line rate" };
}

const pct = (v: number, of: number) => Math.round((1000 * v) / of) / 10;

function judge(job: BenchJob, hca: string | null, rows: readonly SizeResult[], ref: Reference): JudgedTest | null {
  const last = rows.reduce<SizeResult | null>((m, r) => (m === null || r.bytes > m.bytes ? r : m), null);
  if (!last) return null;
  const sizeRef = (bytes: number) => ref.sizes.find((s) => s.bytes === bytes);
  const largest = sizeRef(last.bytes);
  const medianGBps = largest?.medianGBps ?? ref.lineGBps;
  const threshold = largest?.thresholdGBps ?? ref.lineGBps * 0.9;
  return {
    job,
    a: job.nodes[0],
    b: job.nodes[1],
    hca,
    busbw: last.busbw,
    bytes: last.bytes,
    slow: last.busbw < threshold,
    pctOfMedian: pct(last.busbw, medianGBps),
    pctOfLine: pct(last.busbw, ref.lineGBps),
    perSize: rows.map((r) => ({
      bytes: r.bytes,
      busbw: r.busbw,
      pctOfMedian: pct(r.busbw, sizeRef(r.bytes)?.medianGBps ?? ref.lineGBps),
    })),
  };
}

export type Evidence = { pair: Reference; rail: Reference; tests: JudgedTest[] };

export function judgeResults(view: FabricView, results: readonly JobResult[], tolerance: number): Evidence {
  const ok = results.filter((r): r is Extract<JobResult, { ok: true }> => r.ok);
  const tables = (rail: boolean) =>
    ok.flatMap((r) => r.tests.filter((t) => (t.hca !== null) === rail).map((t) => t.rows));
  const pair = referenceOf("pair", tables(false), view, tolerance);
  const pairTop = pair.sizes.at(-1);
  const anchor = pair.from === "fleet" && pairTop ? pairTop.medianGBps / view.hcas.length : undefined;
  const rail = referenceOf("rail", tables(true), view, tolerance, anchor);
  const tests: JudgedTest[] = [];
  for (const r of ok) {
    for (const t of r.tests) {
      const judged = judge(r.job, t.hca, t.rows, t.hca === null ? pair : rail);
      if (judged) tests.push(judged);
    }
  }
  return { pair, rail, tests };
}

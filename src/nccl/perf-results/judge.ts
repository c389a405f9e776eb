import type { Finding } from "../../core/finding.js";
import { makeFinding } from "../../core/finding.js";
import type { NodeInventory } from "../../inventory/types.js";
import { type Baseline, findBaseline, PROBLEM_FRACTION, perNicCeiling } from "../baselines.js";
import { deriveNcclEnv } from "../env.js";
import { type NcclLogVerdict, VERDICT_TEXT } from "../log/report.js";
import { type BandwidthContext, bandwidthFindings } from "./bandwidth.js";
import { errorText, NCCL_TESTS_FINDINGS as F, sizeText } from "./catalogue.js";
import { type NcclTestsEvidence, runEvidence, wrongResultsOf } from "./evidence.js";
import { inferCollective, ranksFromTable } from "./infer.js";
import { summariseTable, type TableSummary, tablesOf } from "./tables.js";
import { expectedFabricBusBw } from "./traffic.js";

export { socketSuspected } from "./bandwidth.js";

import { busBwFactor, type PerfRow, type PerfRun } from "./types.js";

export type Expectation = { GBps: number; problemBelowGBps: number; source: string };

export type RunSummary = {
  collective: string | null;
  collectiveSource: "program" | "ratio" | "ratio_and_text" | "text" | null;
  /** When the table fits several collectives equally well (all_gather and alltoall): which. */
  collectiveCandidates?: string[];
  nranks: number | null;
  /**
   * Where nranks came from: the `# Rank` lines, nThread × nGpus, the pasted launcher command line, or the table
   * (size ÷ count, busbw ÷ algbw).
   */
  nranksSource: "ranks" | "threads" | "command_line" | "launcher_tasks" | "table" | null;
  hosts: string[];
  gpus: string[];
  rows: PerfRow[];
  avgBusBw: number | null;
  peak: { bytes: number; busbw: number } | null;
  largeMessage: { bytes: number; busbw: number; basis: string } | null;
  expectation: Expectation | null;
  baseline: Omit<Baseline, "gpuModel"> | null;
  outOfBounds: { count: number; ok: boolean } | null;
  /**
   * The tables of a run that printed several size sweeps (`-o all`, `-d all`, every root of a rooted collective), each
   * judged on its own; absent for a run of one table.
   */
  tables?: TableSummary[];
  /** Rows not listed (a run late in a long soak, judged as it ended: `rows` is empty). */
  rowsOmitted?: number;
  /** Whether any result was wrong: false when checked and right, null when nothing was checked (validation off). */
  wrongResults: boolean | null;
  /** Which reading decided each fact (src/nccl/perf-results/evidence.ts has the order of strength). */
  evidence: NcclTestsEvidence;
};

const GiB = 2 ** 30;
const bestBus = (r: PerfRow): number => Math.max(r.outOfPlace?.busbw ?? 0, r.inPlace?.busbw ?? 0);
/** A row with a busbw on either side: a row whose figures a page masked (`XXX.XX`) measured nothing to judge. */
const measured = (r: PerfRow): boolean => (r.outOfPlace?.busbw ?? null) !== null || (r.inPlace?.busbw ?? null) !== null;

/** Peak over sizes ≥ 1 GiB, or over the three largest sizes when the run stopped below 1 GiB. */
export function largeMessageBusBw(rows: readonly PerfRow[]): { bytes: number; busbw: number; basis: string } | null {
  if (rows.length === 0) return null;
  let pool = rows.filter((r) => r.bytes >= GiB);
  let basis = "peak over sizes ≥ 1 GiB";
  if (pool.length === 0) {
    const sizes = [...new Set(rows.map((r) => r.bytes))].sort((a, b) => b - a).slice(0, 3);
    pool = rows.filter((r) => sizes.includes(r.bytes));
    basis = `peak over the largest sizes (${sizes.map(sizeText).join(", ")}); the run stopped below 1 GiB`;
  }
  let best = pool[0]!;
  for (const r of pool) if (bestBus(r) > bestBus(best)) best = r;
  return { bytes: best.bytes, busbw: bestBus(best), basis };
}

/**
 * Whether busbw was still rising at the end of a run that stopped below 1 GiB: the last size is more than 3 % above
 * the size before it. Such a run has not reached its plateau, so its last figure is no measure of the fabric.
 */
export function stillRisingBelow1GiB(rows: readonly PerfRow[]): boolean {
  const bySize = new Map<number, number>();
  for (const r of rows) bySize.set(r.bytes, Math.max(bySize.get(r.bytes) ?? 0, bestBus(r)));
  const sizes = [...bySize.keys()].sort((a, b) => a - b);
  const last = sizes.at(-1);
  const before = sizes.at(-2);
  if (last === undefined || before === undefined || last >= GiB) return false;
  return bySize.get(last)! > bySize.get(before)! * 1.03;
}

/** NIC count and rate of the node's data HCAs (what NCCL_IB_HCA would name). */
function dataNics(inv: NodeInventory): { count: number; rateGbps: number } | null {
  const env = deriveNcclEnv(inv);
  const rates = env.dataHcas.map((h) => {
    const hca = inv.hcas.find((x) => x.name === h);
    return hca?.ports.find((p) => p.state === "ACTIVE")?.rateGbps ?? null;
  });
  const known = rates.filter((r): r is number => r !== null);
  if (known.length === 0) return null;
  return { count: known.length, rateGbps: Math.min(...known) };
}

/**
 * A point-to-point run (sendrecv) measures one NIC between one pair: its figure swings by several percent from run to
 * run, so within 10 % of the NIC's ceiling is not a problem (nccl-tests' own NCCL_TESTS_MIN_BW check is a floor the
 * user sets; PERFORMANCE.md: busbw for sendrecv is the algbw, one link).
 */
const P2P_PROBLEM_FRACTION = 0.9;
const POINT_TO_POINT = new Set(["sendrecv"]);

function expectationOf(
  collective: string | null,
  nodes: number,
  gpusPerNode: number,
  nics: { count: number; rateGbps: number; fromLog?: boolean },
): Expectation | null {
  const ceiling = perNicCeiling(nics.rateGbps);
  const e = expectedFabricBusBw(collective, { nodes, gpusPerNode, nics: nics.count, nicGBps: ceiling.GBps });
  if (!e) return null;
  const found = nics.fromLog ? " (as NCCL found them: `NET/IB: … speed=` lines)" : "";
  const fraction = collective && POINT_TO_POINT.has(collective) ? P2P_PROBLEM_FRACTION : PROBLEM_FRACTION;
  return {
    GBps: e.GBps,
    problemBelowGBps: e.GBps * fraction,
    source: `${collective} on ${nodes} nodes: ${e.why}${found}, ${ceiling.GBps} GB/s per NIC (${nics.rateGbps} Gb/s × efficiency ${Math.round(ceiling.efficiency * 1000) / 1000}: ${ceiling.source})`,
  };
}

export type JudgeContext = {
  inventory?: NodeInventory;
  expectGBps?: number;
  logVerdict?: NcclLogVerdict;
  /** NIC ports per node and their speed as NCCL found them in the same output (NCCL_DEBUG_SUBSYS=NET). */
  logNics?: { perNode: number; gbps: number };
};

/**
 * The ranks the `#  Rank N …` lines prove: ranks are numbered from 0, so the highest index seen counts every rank below
 * it too (a paste that keeps only the last rank lines, or elides the middle with `......`).
 */
export function rankLinesCount(run: PerfRun): number {
  let highest = -1;
  for (const r of run.ranks) if (r.rank > highest) highest = r.rank;
  return Math.max(run.ranks.length, highest + 1);
}

/** Summarises one run and judges its large-message busbw. */
export function judgeRun(run: PerfRun, ctx: JudgeContext): { summary: RunSummary; findings: Finding[] } {
  const findings: Finding[] = [];
  const coll = inferCollective(run);
  // Fewer rank lines than one process's own ranks (nThread × nGpus): a page elided the rest (`#  Rank  1 …` then
  // `...`); the lines are no count then, and the banner and the launcher say it.
  const perProcess = run.nThread && run.nGpus ? run.nThread * run.nGpus : null;
  const elided = perProcess !== null && rankLinesCount(run) < perProcess && run.duplicateRanks === 0;
  const ranksListed = elided ? 0 : rankLinesCount(run);
  // No rank line: the pasted command line (what was asked: `mpirun -n 256 … -g 1`, the processes × -t × -g) before
  // the banner's nThread × nGpus, which counts one process's ranks. An MPI build prints its banner once for all its
  // processes; a build without MPI run by `mpirun -np 16` is 16 tests of one rank each, and each prints its own banner
  // and its own `Rank 0`: only when those repeat does the banner's count stand for the run.
  const oneProcess = run.nThread && run.nGpus ? run.nThread * run.nGpus : null;
  const separateTests = run.duplicateHeaders > 0 || run.duplicateRanks > 0;
  const launched = run.commandRanks !== null && run.commandRanks !== oneProcess ? run.commandRanks : null;
  const asked = ranksListed || (oneProcess && separateTests) ? null : launched;
  // The processes the launcher reported starting (each runs nThread × nGpus ranks), where no command line says it.
  const started =
    ranksListed || asked || separateTests || run.launcherTasks === null ? null : run.launcherTasks * (oneProcess ?? 1);
  const threads = ranksListed || asked || started ? null : oneProcess;
  // Then the table's own arithmetic. It also says the run's count where the banner's is one process's of several (an
  // MPI build's banner with its rank lines cut): rows that need a multiple of nThread × nGpus ranks.
  const fromTable = ranksListed || asked || started ? null : ranksFromTable(run, coll.name, coll.candidates);
  const processes =
    !separateTests && threads !== null && fromTable !== null && fromTable > threads && fromTable % threads === 0;
  const listed = ranksListed || (processes ? null : threads);
  const nranks = listed ?? asked ?? started ?? fromTable;
  const nranksSource = ranksListed
    ? "ranks"
    : listed
      ? "threads"
      : asked
        ? "command_line"
        : started
          ? "launcher_tasks"
          : fromTable
            ? "table"
            : null;
  const hosts = [...new Set(run.ranks.map((r) => r.host).filter((h) => h !== ""))];
  const gpus = [...new Set(run.ranks.map((r) => r.gpu))];
  const judged = run.rows.filter(measured);
  const large = largeMessageBusBw(judged);
  let peak: RunSummary["peak"] = null;
  for (const r of judged) if (!peak || bestBus(r) > peak.busbw) peak = { bytes: r.bytes, busbw: bestBus(r) };
  const log =
    ctx.logVerdict && ctx.logVerdict !== "unknown" ? `${ctx.logVerdict} (${VERDICT_TEXT[ctx.logVerdict]})` : null;

  // The tolerance scales with every rank of the run; nThread × nGpus counts one process only, so only listed ranks count.
  const checks = correctness(run, ranksListed || null);
  findings.push(...checks);
  const errorColumn = run.rows.some((r) => typeof (r.outOfPlace?.maxError ?? r.inPlace?.maxError) === "number");
  const wrong = wrongResultsOf(run, errorColumn ? checks.some((f) => f.code === "NCCL_TESTS_ERROR_DELTA") : null);
  const mismatch = busbwMismatch(run.rows, coll.name, nranks);
  if (mismatch) findings.push(mismatch);
  if (run.duplicateHeaders + run.duplicateRanks > 0) {
    findings.push(
      makeFinding(F, "NCCL_TESTS_NOT_MPI", "run", { duplicates: run.duplicateHeaders + run.duplicateRanks }),
    );
  }

  const multiNode = hosts.length >= 2;
  const gpusPerNode = nranks && hosts.length ? Math.round(nranks / hosts.length) : 0;
  // The node model's data NICs; else the ports NCCL itself found in this run's output.
  const nics = !multiNode
    ? null
    : ctx.inventory
      ? dataNics(ctx.inventory)
      : ctx.logNics
        ? { count: ctx.logNics.perNode, rateGbps: ctx.logNics.gbps, fromLog: true }
        : null;
  // Multi-node baselines need the NICs (from the node model); single-node ones do not.
  const baselineQuery =
    gpus[0] && gpusPerNode && (!multiNode || nics) ? { gpu: gpus[0], gpusPerNode, nics, collective: coll.name } : null;
  const baseline = baselineQuery ? findBaseline(baselineQuery) : null;
  let expectation: Expectation | null = null;
  if (ctx.expectGBps !== undefined) {
    expectation = {
      GBps: ctx.expectGBps,
      problemBelowGBps: ctx.expectGBps * 0.9,
      source: "--expect; problem below 90% as with NCCL_TESTS_MIN_BW",
    };
  } else if (baseline && multiNode) {
    expectation = {
      GBps: baseline.typicalGBps[1],
      problemBelowGBps: baseline.problemBelowGBps,
      source: `baseline ${baseline.description}: ${baseline.typicalGBps[0]}–${baseline.typicalGBps[1]} GB/s; ${baseline.source}`,
    };
  } else if (nics && multiNode) {
    expectation = expectationOf(coll.name, hosts.length, gpusPerNode, nics);
  }

  const bw: BandwidthContext = {
    multiNode,
    hosts,
    gpus,
    collective: coll.name,
    nics,
    expectation,
    baseline,
    logVerdict: ctx.logVerdict,
    log,
    stillRising: stillRisingBelow1GiB(judged),
  };
  const tables = tablesOf(run.rows);
  if (large && !run.duplicateHeaders && !run.duplicateRanks) {
    if (tables.length < 2) findings.push(...bandwidthFindings(large, "run", bw));
    else {
      // Each table is judged on its own (`-o all`: one per reduction op); one node is said once.
      if (!multiNode && hosts.length === 1) findings.push(...bandwidthFindings(large, "run", bw));
      else
        for (const t of tables) {
          const tl = largeMessageBusBw(t.rows);
          if (tl) findings.push(...bandwidthFindings(tl, t.label, bw));
        }
    }
  }

  const { gpuModel: _omit, ...baselineData } = baseline ?? { gpuModel: null };
  return {
    summary: {
      collective: coll.name,
      collectiveSource: coll.source,
      ...(coll.candidates ? { collectiveCandidates: coll.candidates } : {}),
      nranks,
      nranksSource,
      hosts,
      gpus,
      rows: run.rows,
      avgBusBw: run.avgBusBw,
      peak,
      largeMessage: large,
      expectation,
      baseline: baseline ? (baselineData as Omit<Baseline, "gpuModel">) : null,
      outOfBounds: run.outOfBounds,
      ...(tables.length > 1 ? { tables: tables.map(summariseTable) } : {}),
      wrongResults: wrong.value,
      evidence: runEvidence(run, coll, nranksSource, wrong),
    },
    findings,
  };
}

/**
 * What nccl-tests before 2.13 tolerated in its `error` column, per element and per additional rank
 * (NVIDIA/nccl-tests src/common.cu, v2.0.0 to v2.11.0: `DeltaMaxValue`, used by `CheckData`): 1e-2 for half and
 * bfloat16, 1e-5 for float, 1e-12 for double, and 1e-200 for the integer types — i.e. integers must match exactly,
 * written 0 here. `CheckData` counted a failed check (`# Out of bounds values`) when the largest deviation exceeded
 * this × (nranks − 1), nranks being every rank of the run. Unknown type names: undefined (not judged).
 */
const ERROR_PER_RANK: Readonly<Record<string, number>> = {
  half: 1e-2,
  bfloat16: 1e-2,
  float: 1e-5,
  double: 1e-12,
  int8: 0,
  uint8: 0,
  int32: 0,
  uint32: 0,
  int64: 0,
  uint64: 0,
  char: 0,
  int: 0,
};

/** The tolerance nccl-tests < 2.13 applied to a row's `error`; null when the type or (for floats) nranks is unknown. */
export function errorTolerance(type: string, nranks: number | null): { perRank: number; tolerance: number } | null {
  const perRank = Object.hasOwn(ERROR_PER_RANK, type) ? ERROR_PER_RANK[type]! : undefined;
  if (perRank === undefined) return null;
  if (perRank === 0) return { perRank, tolerance: 0 };
  if (!nranks || nranks < 1) return null;
  // toPrecision: 1e-5 × 15 is 0.00015000000000000001 in binary; the evidence shows 0.00015.
  return { perRank, tolerance: Number((perRank * (nranks - 1)).toPrecision(12)) };
}

/**
 * The smallest deviation that nccl-tests would print as `v`: it printed one significant digit (`%5.0le`), so
 * `2e-07` may stand for 1.5e-07. Judging this lower bound never flags a row nccl-tests passed; a value within
 * rounding of the tolerance is left to the run's own `Out of bounds values` line.
 */
function printedAtLeast(v: number): number {
  if (!(v > 0) || !Number.isFinite(v)) return v;
  return Number((v - 10 ** Math.floor(Math.log10(v) + 1e-9) / 2).toPrecision(12));
}

/**
 * Without the rank list a row is judged against the tolerance of a run far larger than any measured (32,768 ranks):
 * only a deviation no run of any size passes (a float `1e+00`, a wrong sum) is flagged then.
 */
const ANY_RUN_RANKS = 32768;

/**
 * An in-place side no check reads: every row's in-place error off by a whole unit while every out-of-place one is 0. The
 * collectives that leave their in-place result unchecked (alltoall and sendrecv: `reportErrors = in_place ? 0 : 1` in
 * src/alltoall.cu and src/sendrecv.cu of https://github.com/NVIDIA/nccl-tests) printed such a column before 2.13's
 * `#wrong` printed N/A there, and the run's own `Out of bounds values : 0 OK` counted none of it (shape seen in an
 * Open MPI-tagged table committed to https://github.com/microsoft/msccl-leaderboard). Two rows at least.
 */
function inPlaceUnchecked(rows: readonly PerfRow[]): boolean {
  return rows.length >= 2 && rows.every((r) => r.outOfPlace?.maxError === 0 && (r.inPlace?.maxError ?? 0) >= 1);
}

function errorDeltaRows(run: PerfRun, nranks: number | null): Finding | null {
  type Bad = { row: PerfRow; maxError: number; perRank: number; tolerance: number };
  const bad: Bad[] = [];
  const sides = inPlaceUnchecked(run.rows) ? ["outOfPlace" as const] : (["outOfPlace", "inPlace"] as const);
  for (const row of run.rows) {
    const tol = errorTolerance(row.type, nranks ?? ANY_RUN_RANKS);
    if (!tol) continue;
    let worst: number | null = null;
    for (const p of sides.map((side) => row[side])) {
      const e = p?.maxError;
      if (typeof e === "number" && printedAtLeast(e) > tol.tolerance && (worst === null || e > worst)) worst = e;
    }
    if (worst !== null) bad.push({ row, maxError: worst, ...tol });
  }
  if (bad.length === 0) return null;
  let worst = bad[0]!;
  for (const b of bad) if (b.maxError > worst.maxError) worst = b;
  return makeFinding(F, "NCCL_TESTS_ERROR_DELTA", "run", {
    rows: bad.length,
    sizes: [...new Set(bad.map((b) => sizeText(b.row.bytes)))].slice(0, 6),
    worst: {
      bytes: worst.row.bytes,
      type: worst.row.type,
      maxError: Number.isFinite(worst.maxError) ? worst.maxError : null,
      printed: errorText(worst.maxError),
      perRank: worst.perRank,
      tolerance: worst.tolerance,
      nranks,
    },
  });
}

function correctness(run: PerfRun, nranks: number | null): Finding[] {
  const out: Finding[] = [];
  const wrongRows = run.rows.filter((r) => (r.outOfPlace?.wrong ?? 0) > 0 || (r.inPlace?.wrong ?? 0) > 0);
  if (wrongRows.length) {
    const total = wrongRows.reduce((s, r) => s + (r.outOfPlace?.wrong ?? 0) + (r.inPlace?.wrong ?? 0), 0);
    const sizes = [...new Set(wrongRows.map((r) => sizeText(r.bytes)))].slice(0, 6);
    out.push(makeFinding(F, "NCCL_TESTS_WRONG", "run", { rows: wrongRows.length, sizes, total }));
  }
  const delta = errorDeltaRows(run, nranks);
  if (delta) out.push(delta);
  if (run.outOfBounds && !run.outOfBounds.ok) {
    out.push(makeFinding(F, "NCCL_TESTS_OUT_OF_BOUNDS", "run", { count: run.outOfBounds.count }));
  }
  if (run.errors.length) out.push(makeFinding(F, "NCCL_TESTS_RUN_ERROR", "run", { errors: run.errors.slice(0, 3) }));
  const failed = runFailure(run);
  if (failed) out.push(failed);
  return out;
}

/** `Test NCCL failure …`, `MPI_ABORT was invoked …`: the run died, whatever its rows looked like until then. */
function runFailure(run: PerfRun): Finding | null {
  if (run.failures.length === 0) return null;
  // The ` .. host pid N: Test failure common.cu:401` lines only trace the first one back through the harness.
  const cause = run.failures.find((l) => !FOLLOW_ON_FAILURE.test(l)) ?? run.failures[0]!;
  return makeFinding(F, "NCCL_TESTS_RUN_FAILED", "run", {
    failure: cause.slice(0, 200),
    more: run.failures.length - 1,
    rows: run.rows.length,
  });
}

const FOLLOW_ON_FAILURE = /^\.\.\s.*\bTest failure\b/;

/** Recomputes busbw = algbw × factor; printed values are rounded (2 decimals), hence the tolerance. */
function busbwMismatch(rows: readonly PerfRow[], collective: string | null, nranks: number | null): Finding | null {
  if (!collective || !nranks) return null;
  const factor = busBwFactor(collective, nranks);
  if (factor === null) return null;
  let bad = 0;
  let example = "";
  for (const r of rows) {
    for (const p of [r.outOfPlace, r.inPlace]) {
      if (!p || p.algbw === null || p.busbw === null || p.algbw < 0.1) continue;
      const want = p.algbw * factor;
      if (Math.abs(want - p.busbw) > Math.max(0.06, 0.02 * want)) {
        bad++;
        if (!example)
          example = `${sizeText(r.bytes)}: algbw ${p.algbw} → busbw ${Math.round(want * 100) / 100}, printed ${p.busbw}`;
      }
    }
  }
  return bad
    ? makeFinding(F, "NCCL_TESTS_BUSBW_MISMATCH", "run", { rows: bad, factor, collective, nranks, example })
    : null;
}

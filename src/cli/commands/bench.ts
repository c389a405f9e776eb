import { DETECT_HEAD_BYTES } from "../../analyze/detect.js";
import { exitCodeFor, type Finding } from "../../core/finding.js";
import { type Problem, problem } from "../../core/result.js";
import { COLLECTIVES, ncclTestsCommand } from "../../nccl/bench-command.js";
import {
  DEFAULT_TOLERANCE,
  judgePairs,
  type PairMeasurement,
  pairFromFileName,
  pairRounds,
} from "../../nccl/pairs/index.js";
import type { NcclTestsData } from "../../nccl/perf-results/analyzer.js";
import { corruptionOf } from "../../nccl/perf-results/corruption.js";
import { busBwFactor, impossibleBandwidth } from "../../nccl/perf-results/types.js";
import { BENCH_JOB_REPORT, BENCH_JUDGE_REPORT, BENCH_PAIRS_REPORT } from "../../report/kinds/bench.js";
import { renderReport } from "../../report/registry.js";
import { readInput } from "../input.js";
import { REPORT_OUTPUT_OPTION } from "../shared-options.js";
import { type CommandSpec, type Io, num, type OptionValues, str, UsageError } from "../spec.js";

function positiveInt(value: number | undefined, flag: string, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) throw new UsageError(`${flag} expects a positive whole number; got ${v}.`);
  return v;
}

/** The nccl-tests command of `bench job`; bad sizes or collectives are usage errors. */
function testCommand(values: OptionValues, nodes: number): ReturnType<typeof ncclTestsCommand> {
  try {
    return ncclTestsCommand({
      nodes,
      gpusPerNode: positiveInt(num(values, "gpus"), "--gpus", 8),
      collective: str(values, "collective") ?? "all_reduce",
      minBytes: str(values, "min-bytes") ?? "8",
      maxBytes: str(values, "max-bytes") ?? "8G",
    });
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(`${err.message}.`);
    throw err;
  }
}

async function benchJob(values: OptionValues, io: Io): Promise<number> {
  const cmd = testCommand(values, positiveInt(num(values, "nodes"), "--nodes", 2));
  io.stdout(await renderReport(BENCH_JOB_REPORT, cmd, str(values, "output") ?? "text"));
  return 0;
}

async function benchPairs(values: OptionValues, names: string[], io: Io): Promise<number> {
  const nodes = names.flatMap((n) => n.split(",")).map((n) => n.trim());
  let rounds: ReturnType<typeof pairRounds>;
  try {
    rounds = pairRounds(nodes);
  } catch (err) {
    if (err instanceof RangeError) {
      throw new UsageError(
        `${err.message}.`,
        "Name the nodes to test: `kube-rdma bench pairs gpu-1 gpu-2 gpu-3 gpu-4`.",
      );
    }
    throw err;
  }
  const cmd = testCommand(values, 2);
  io.stdout(await renderReport(BENCH_PAIRS_REPORT, { rounds, cmd }, str(values, "output") ?? "text"));
  return 0;
}

/** A pair run and what NCCL's own lines in it said of slow NIC ports (NCCL_LOG_NIC_SLOW), if anything. */
type Measured = PairMeasurement & { slowNics?: Finding };

/** One file → the hosts and large-message bus bandwidth of its nccl-tests run, or why it gives none. */
async function measure(file: string, io: Io): Promise<Measured | Problem> {
  // Read and analysed as `analyze --kind nccl_tests FILE` does (streamed when large, read errors as problems).
  const input = await readInput(file, io, { largeBytes: 8 * 1024 * 1024, headBytes: DETECT_HEAD_BYTES });
  const { analyzeInput } = await import("./analyze.js"); // loaded here: `bench job` and `bench pairs` need no parsers
  const entry = await analyzeInput(input, { ctx: {}, kind: "nccl_tests", io });
  const data = entry.data as NcclTestsData | null;
  if (!data) {
    if (input.status === "unreadable") return input.problem;
    const why = (entry.problems ?? []).map((p) => p.message).join(" ");
    return problem("pairs.not_nccl_tests", `${file}: no nccl-tests result. ${why}`.trim(), {
      hint: "Pass the whole stdout of each 2-node run (all_reduce_perf …), one file per pair.",
    });
  }
  const named = pairFromFileName(file);
  const failure = entry.findings.find((f) => f.code === "NCCL_TESTS_RUN_FAILED");
  if (failure) {
    const e = failure.evidence as { failure?: unknown };
    return { source: file, hosts: named ?? data.hosts, busbw: null, failed: String(e.failure ?? failure.message) };
  }
  const corrupt = corruptionOf(entry.findings);
  if (corrupt) return { source: file, hosts: named ?? data.hosts, busbw: null, corrupt: corrupt.message };
  const lm = data.largeMessage;
  const impossible = lm ? impossibleReference(data, lm) : null;
  const slowNics = entry.findings.find((f) => f.code === "NCCL_LOG_NIC_SLOW");
  return {
    source: file,
    hosts: named ?? data.hosts,
    busbw: lm?.busbw ?? null,
    ...(impossible !== null ? { impossible } : {}),
    ...(slowNics ? { slowNics } : {}),
  };
}

/** Why the row the run's large-message bandwidth comes from cannot be, or null. */
function impossibleReference(data: NcclTestsData, lm: { bytes: number; busbw: number }): string | null {
  const factor = data.collective !== null && data.nranks !== null ? busBwFactor(data.collective, data.nranks) : null;
  for (const row of data.rows) {
    if (row.bytes !== lm.bytes) continue;
    for (const perf of [row.outOfPlace, row.inPlace]) {
      if (perf?.busbw !== lm.busbw) continue;
      const why = impossibleBandwidth(perf, row.bytes, factor);
      if (why) return `${why} (the ${row.bytes}-byte row)`;
    }
  }
  return Number.isFinite(lm.busbw) ? null : `busbw ${lm.busbw} GB/s is not a bandwidth`;
}

/**
 * The ports NCCL itself found slow in the pair runs (its `NET/IB: … speed=` lines): they name the rail behind a slow
 * pair or node. A node's slow port shows in every pair it ran: said once.
 */
function slowPortsOf(measurements: readonly Measured[]): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const m of measurements) {
    const f = m.slowNics;
    if (!f) continue;
    const key = JSON.stringify((f.evidence as { slow?: unknown }).slow ?? f.message);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ...f, evidence: { ...f.evidence, source: m.source } });
  }
  return out;
}

async function benchJudge(values: OptionValues, files: string[], io: Io): Promise<number> {
  if (files.length === 0) {
    throw new UsageError(
      "bench judge needs the output files of 2-node runs.",
      "kube-rdma bench judge gpu-1+gpu-2.txt gpu-3+gpu-4.txt …",
    );
  }
  const tolerance = num(values, "tolerance") ?? DEFAULT_TOLERANCE;
  if (!(tolerance > 0 && tolerance <= 1)) {
    throw new UsageError(`--tolerance expects a fraction in (0, 1], like 0.9; got ${tolerance}.`);
  }
  const expect = num(values, "expect");
  if (expect !== undefined && !(expect > 0)) throw new UsageError(`--expect expects GB/s above 0; got ${expect}.`);
  const results = await Promise.all(files.map((f) => measure(f, io)));
  const measurements = results.filter((r): r is Measured => "hosts" in r);
  const unread = results.filter((r): r is Problem => !("hosts" in r));
  const report = judgePairs(measurements, { tolerance, ...(expect !== undefined ? { expectGBps: expect } : {}) });
  const full = {
    ...report,
    findings: [...report.findings, ...slowPortsOf(measurements)],
    problems: [...unread, ...report.problems],
  };
  io.stdout(await renderReport(BENCH_JUDGE_REPORT, full, str(values, "output") ?? "text"));
  // Nothing could be judged, or some file gave no pair result (its pair may be the slow one): could not run fully.
  if (report.pairs.length === 0 || full.problems.length > 0) return 2;
  return exitCodeFor(report.findings);
}

export const command: CommandSpec = {
  name: "bench",
  summary: "nccl-tests helpers: the command for N nodes, pair rounds, and which node or link is slow",
  usage:
    "kube-rdma bench job --nodes N --gpus G [options] | bench pairs NODE… | bench judge FILE… [--tolerance 0.9] [--expect GBPS]",
  description:
    "`bench job` prints the nccl-tests command line that measures the RDMA fabric: mpirun with one rank per GPU " +
    "(-np nodes×gpus, -N gpus), NCCL_DEBUG=INFO so that `kube-rdma analyze run.log` can explain the result, and " +
    "`<collective>_perf -b 8 -e 8G -f 2 -g 1`. For 2 nodes it adds NCCL_ALGO=Ring: NCCL may otherwise pick Tree, " +
    "whose bus bandwidth is not comparable to the NICs' rate. `kube-rdma job` uses the same command for MPIJobs.\n\n" +
    "`bench pairs NODE…` finds the slow node or link of a fleet the way ClusterKit and SuperBench do: it prints " +
    "rounds of disjoint 2-node tests (n−1 rounds for n nodes) in which every node meets every other once.\n\n" +
    "`bench judge FILE…` reads those runs' outputs and compares every " +
    "pair's large-message bus bandwidth with the median pair's (robust to a fast outlier; the best pair's below 3 pairs; or --expect GBPS). A node slow with every partner, " +
    "whose partners are fast with others, is a bad node (error PAIR_BAD_NODE); a pair slow only together is a bad " +
    "link (PAIR_BAD_LINK); a slow node not yet tested against a fast one is a suspect, with the known-good node to " +
    "test it with next (PAIR_SUSPECT). A file named `<a>+<b>.txt` is the run of nodes a and b; any other file " +
    "names its pair in its rank lines (`on <host>`), which inside Kubernetes pods are pod names: save pod runs as " +
    "`<a>+<b>.txt`. Exit 1 when a node or link is at fault; 2 when a file gave no pair result (it is listed, never skipped).",
  options: [
    { name: "nodes", type: "number", valueName: "N", default: 2, description: "job: number of nodes" },
    { name: "gpus", type: "number", valueName: "G", default: 8, description: "GPUs per node (one rank each)" },
    {
      name: "collective",
      type: "string",
      valueName: "NAME",
      choices: COLLECTIVES,
      default: "all_reduce",
      description: "nccl-tests binary: <NAME>_perf",
    },
    { name: "min-bytes", short: "b", type: "string", valueName: "SIZE", default: "8", description: "Smallest message" },
    { name: "max-bytes", short: "e", type: "string", valueName: "SIZE", default: "8G", description: "Largest message" },
    {
      name: "tolerance",
      type: "number",
      valueName: "F",
      default: DEFAULT_TOLERANCE,
      description: "judge: a pair is slow below this fraction of the reference",
    },
    {
      name: "expect",
      type: "number",
      valueName: "GBPS",
      description: "judge: reference bus bandwidth in GB/s (default: the median pair's)",
    },
    REPORT_OUTPUT_OPTION,
  ],
  examples: [
    ["kube-rdma bench job --nodes 2 --gpus 8", "the 16-rank all_reduce_perf command, NCCL_ALGO=Ring"],
    ["kube-rdma bench job --nodes 4 --gpus 8 --collective alltoall", "alltoall across 4 nodes"],
    ["kube-rdma bench job -o json", "argv, np, env and notes as JSON (for scripts)"],
    ["kube-rdma bench pairs gpu-1 gpu-2 gpu-3 gpu-4", "3 rounds of 2 pairs: every node meets every other"],
    ["kube-rdma bench judge *+*.txt", "which node or link the pair results (saved as <a>+<b>.txt) point at"],
  ],
  async run({ values, positionals, io }) {
    const [sub, ...rest] = positionals;
    if (sub === "job" && rest.length > 0) {
      // `bench job 4` printed the 2-node command: the node count is --nodes.
      throw new UsageError(
        `bench job takes options only; got ${rest.map((w) => JSON.stringify(w)).join(", ")}.`,
        "Give the size with options: kube-rdma bench job --nodes 4 --gpus 8.",
      );
    }
    if (sub === "job") return benchJob(values, io);
    if (sub === "pairs") return benchPairs(values, rest, io);
    if (sub === "judge") return benchJudge(values, rest, io);
    throw new UsageError(
      sub === undefined ? "bench needs a subcommand." : `unknown bench subcommand "${sub}".`,
      "Available: `bench job --nodes N --gpus G`, `bench pairs NODE…`, `bench judge FILE…`.",
    );
  },
};

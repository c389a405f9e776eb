/**
 * What a bench job prints and how it is read back. A pair job's launcher prints one nccl-tests output; a rail job's
 * launcher runs one 2-rank test per HCA side by side (rank on GPU i with `NCCL_IB_HCA==<hca i>`) and prints each
 * output after a marker line naming its HCA. Both are read with the nccl-tests analyser. Pure.
 */
import { analyzeNcclTests } from "../../nccl/perf-results/analyzer.js";
import { corruptionOf } from "../../nccl/perf-results/corruption.js";
import { busFactor } from "../timing.js";
import type { BenchJob, JobResult, SizeResult, SweepSpec, TestResult } from "../types.js";

export const RAIL_MARKER = "# kube-rdma rail-test hca=";

const sizeArg = (bytes: number) =>
  bytes % 2 ** 30 === 0 ? `${bytes / 2 ** 30}G` : bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20}M` : String(bytes);

/** nccl-tests flags of a sweep: `-b 64M -e 4G -f 2 -g 1 -n 20 -w 5`. */
export function sweepArgs(s: SweepSpec): string[] {
  return [
    "-b",
    sizeArg(s.minBytes),
    "-e",
    sizeArg(s.maxBytes),
    "-f",
    "2",
    "-g",
    "1",
    "-n",
    String(s.iters),
    "-w",
    String(s.warmupIters),
  ];
}

/**
 * The rail job's launcher script: per HCA, `mpirun -np 2 -npernode 1` on GPU i with NCCL_IB_HCA==<hca>, all in
 * the background, then each output after its marker. `forward` are the job's NCCL variables (`-x NAME`); `rails`
 * (GPU indices) runs only those rails, the others idle (default: every rail).
 */
export function railTestScript(
  hcas: readonly string[],
  sweep: SweepSpec,
  forward: readonly string[],
  rails?: readonly number[],
): string {
  const x = forward.flatMap((n) => ["-x", n]).join(" ");
  const lines = ["out=$(mktemp -d)"];
  const run = hcas.map((hca, gpu) => [hca, gpu] as const).filter(([, gpu]) => !rails || rails.includes(gpu));
  run.forEach(([hca, gpu]) => {
    lines.push(
      `mpirun --allow-run-as-root -np 2 -npernode 1 -bind-to none ${x} -x CUDA_VISIBLE_DEVICES=${gpu} -x NCCL_IB_HCA==${hca} -x NCCL_ALGO=Ring all_reduce_perf ${sweepArgs(sweep).join(" ")} > "$out/${gpu}" 2>&1 &`,
    );
  });
  lines.push("wait");
  run.forEach(([hca, gpu]) => {
    lines.push(`echo '${RAIL_MARKER}${hca}'; cat "$out/${gpu}"`);
  });
  return lines.join("\n");
}

/** One nccl-tests output's rows, and what the run said of its own data (judged as `analyze` judges it). */
function resultOf(text: string): { rows: SizeResult[]; corrupt: string | null } {
  const { data, findings } = analyzeNcclTests(text);
  const rows = (data?.rows ?? [])
    .map((r) => ({ bytes: r.bytes, busbw: Math.max(r.outOfPlace?.busbw ?? 0, r.inPlace?.busbw ?? 0) }))
    .filter((r) => r.busbw > 0);
  return { rows, corrupt: corruptionOf(findings)?.message ?? null };
}

type ParsedLog = { ok: true; tests: TestResult[] } | { ok: false; reason: string; corrupt?: true };

/** A launcher's log → the job's tests, or why it gives none. */
export function parseJobLog(job: BenchJob, log: string): ParsedLog {
  if (job.kind === "pair") {
    const { rows, corrupt } = resultOf(log);
    // A run that computed wrong results fails, whatever its bandwidth: never a measurement.
    if (corrupt) return { ok: false, reason: `the test returned corrupted data: ${corrupt}`, corrupt: true };
    return rows.length
      ? { ok: true, tests: [{ hca: null, rows }] }
      : { ok: false, reason: "no nccl-tests result rows in the launcher's log" };
  }
  const sections = log.split("\n").reduce<{ hca: string; lines: string[] }[]>((acc, line) => {
    if (line.startsWith(RAIL_MARKER)) acc.push({ hca: line.slice(RAIL_MARKER.length).trim(), lines: [] });
    else acc.at(-1)?.lines.push(line);
    return acc;
  }, []);
  const results = sections.map((s) => ({ hca: s.hca, ...resultOf(s.lines.join("\n")) }));
  const corrupted = results.filter((r) => r.corrupt !== null);
  if (corrupted.length) {
    const what = corrupted.map((r) => `${r.hca}: ${r.corrupt}`).join("; ");
    return { ok: false, reason: `the rail test returned corrupted data (${what})`, corrupt: true };
  }
  if (results.length === 0)
    return { ok: false, reason: `no rail-test output (no "${RAIL_MARKER}…" line) in the launcher's log` };
  const empty = results.filter((r) => r.rows.length === 0).map((r) => r.hca);
  if (empty.length === results.length)
    return { ok: false, reason: `no nccl-tests result rows for ${empty.join(", ")}` };
  // Some rails ran and some did not: each rail that gave no rows failed on its own (a NIC that does not connect is
  // named from exactly this), with the last line its test printed as the reason.
  const tests = sections.map((sec, i): TestResult => {
    const r = results[i]!;
    if (r.rows.length) return { hca: r.hca, rows: r.rows };
    const last = sec.lines
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1);
    return { hca: r.hca, rows: [], failed: last ? last.slice(0, 300) : "no nccl-tests result rows" };
  });
  return { ok: true, tests };
}

/** nccl-tests text (2.14 layout) of one table, ranks spread over `hosts`. */
export function formatNcclTestsOutput(
  rows: readonly SizeResult[],
  hosts: readonly string[],
  ranksPerHost: number,
): string {
  const ranks = hosts.length * ranksPerHost;
  const f = busFactor(ranks);
  const lines = [
    "# nccl-tests version 2.14.1 nccl-headers=22305 nccl-library=22305",
    "# Collective test starting: all_reduce_perf",
    `# nThread 1 nGpus 1 minBytes ${rows[0]?.bytes ?? 0} maxBytes ${rows.at(-1)?.bytes ?? 0} step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0`,
    "#",
    "# Using devices",
  ];
  hosts.forEach((host, h) => {
    for (let d = 0; d < ranksPerHost; d++) {
      const rank = h * ranksPerHost + d;
      lines.push(
        `#  Rank ${String(rank).padStart(2)} Group  0 Pid ${50000 + rank} on ${host} device  ${d} [0000:${(0x18 + d * 16).toString(16)}:00] NVIDIA A100-SXM4-80GB`,
      );
    }
  });
  lines.push(
    "#",
    "#                                                              out-of-place                       in-place          ",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
  );
  let sum = 0;
  for (const r of rows) {
    const algbw = r.busbw / f;
    const timeUs = r.bytes / (algbw * 1e3);
    const perf = `${timeUs.toFixed(1).padStart(8)} ${algbw.toFixed(2).padStart(7)} ${r.busbw.toFixed(2).padStart(7)} ${"0".padStart(6)}`;
    lines.push(
      `${String(r.bytes).padStart(12)} ${String(r.bytes / 4).padStart(13)} ${"float".padStart(9)} ${"sum".padStart(7)} ${"-1".padStart(7)} ${perf} ${perf}`,
    );
    sum += r.busbw;
  }
  lines.push(
    "# Out of bounds values : 0 OK",
    `# Avg bus bandwidth    : ${(sum / Math.max(1, rows.length)).toFixed(4)} `,
    "#",
    "# Collective test concluded: all_reduce_perf",
    "",
  );
  return lines.join("\n");
}

/** The launcher log a job with these results prints (for simulated runs and their saved outputs). */
export function renderJobLog(result: Extract<JobResult, { ok: true }>, gpusPerNode: number): string {
  const hosts = result.job.nodes;
  if (result.job.kind === "pair") return formatNcclTestsOutput(result.tests[0]?.rows ?? [], hosts, gpusPerNode);
  return result.tests
    .map((t) =>
      t.failed
        ? // nccl-tests' NCCLCHECK line (src/common.h: "%s: Test NCCL failure %s:%d '%s / %s'").
          `${RAIL_MARKER}${t.hca}\n${hosts[0]}: Test NCCL failure common.cu:1146 'unhandled system error (run with NCCL_DEBUG=INFO for details) / ${t.failed}'\n`
        : `${RAIL_MARKER}${t.hca}\n${formatNcclTestsOutput(t.rows, hosts, 1)}`,
    )
    .join("");
}

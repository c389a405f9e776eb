/**
 * `analyze -` from a pipe against `analyze FILE` on the same input: `kubectl logs … | kube-rdma analyze -` is how most
 * users feed a job's log. For a 256 MB NCCL log (half in NCCL ≥ 2.9's shape, half in the older shape whose `comm`
 * lines lack nNodes) and a 50 MB nccl-tests output, runs the built CLI both ways (`cat FILE | kube-rdma analyze - -o
 * json` through a real shell pipe), and prints wall time, the ratio and the CLI's peak RSS.
 * Then a 600 MB NCCL log through the pipe alone, for its peak RSS.
 * Targets: pipe within 2× of the file path; peak RSS < 200 MB on the pipe.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { allReduceOutput } from "../test/support/nccl-tests-output.js";
import { generateNcclLog } from "./generate-nccl-log.js";

const RATIO_TARGET = 2;
const RSS_TARGET_MB = 200;
const LOG_BYTES = Number(process.env.STDIN_BENCH_LOG_BYTES ?? 256e6);
const TESTS_BYTES = Number(process.env.STDIN_BENCH_TESTS_BYTES ?? 50e6);
const BIG_LOG_BYTES = Number(process.env.STDIN_BENCH_BIG_BYTES ?? 600e6);

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, "..", "bin", "kube-rdma.js");
const rss = join(here, "rss-report.mjs");

type Measured = { seconds: number; rssMB: number; out: string };

function measure(command: string, env: Record<string, string>): Measured {
  const t0 = process.hrtime.bigint();
  const r = spawnSync("sh", ["-c", command], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const m = /KUBE_RDMA_MAXRSS_KB (\d+)/.exec(r.stderr);
  if (!m) throw new Error(`the CLI did not report its memory (exit ${r.status}): ${r.stderr.slice(0, 500)}`);
  return { seconds, rssMB: Number(m[1]) / 1024, out: r.stdout };
}

/** The two reports agree once the input's name (the file's path, or `-`) is taken out of every field. */
function sameReport(a: string, b: string, file: string): boolean {
  const named = JSON.stringify(file).slice(1, -1);
  return a.split(named).join("-") === b;
}

function compare(label: string, file: string): void {
  const env = { F: file, CLI: cli, RSS: rss };
  const node = `"${process.execPath}" --import "$RSS" "$CLI"`;
  spawnSync("cat", [file], { stdio: ["ignore", "ignore", "ignore"] }); // page cache warm for both
  const best = (cmd: string) => [measure(cmd, env), measure(cmd, env)].sort((x, y) => x.seconds - y.seconds)[0]!;
  const fromFile = best(`${node} analyze "$F" -o json`);
  const fromPipe = best(`cat "$F" | ${node} analyze - -o json`);
  const mb = statSync(file).size / 1e6;
  const ratio = fromPipe.seconds / fromFile.seconds;
  const same = sameReport(fromFile.out, fromPipe.out, file);
  process.stdout.write(
    [
      `${label} (${mb.toFixed(0)} MB):`,
      `  file:  ${fromFile.seconds.toFixed(2)} s, ${(mb / fromFile.seconds).toFixed(0)} MB/s, peak RSS ${fromFile.rssMB.toFixed(0)} MB`,
      `  pipe:  ${fromPipe.seconds.toFixed(2)} s, ${(mb / fromPipe.seconds).toFixed(0)} MB/s, peak RSS ${fromPipe.rssMB.toFixed(0)} MB (same report: ${same ? "yes" : "NO"})`,
      `  pipe/file: ${ratio.toFixed(2)} (target ≤ ${RATIO_TARGET}) ${ratio <= RATIO_TARGET ? "PASS" : "MISS"}`,
      `  pipe peak RSS: ${fromPipe.rssMB.toFixed(0)} MB (target < ${RSS_TARGET_MB} MB) ${fromPipe.rssMB < RSS_TARGET_MB ? "PASS" : "MISS"}`,
      "",
    ].join("\n"),
  );
}

const dir = join(here, "..", ".bench-tmp");
mkdirSync(dir, { recursive: true });
try {
  const log = join(dir, "stdin-nccl.log");
  const half = { ranks: 1024, gpusPerNode: 8, targetBytes: LOG_BYTES / 2 };
  generateNcclLog(log, half);
  const old = join(dir, "stdin-nccl-old.log");
  generateNcclLog(old, { ...half, old: true });
  appendFileSync(log, readFileSync(old));
  rmSync(old);
  compare("NCCL INFO log, 1024 ranks, NCCL 2.23 + 2.8 shapes", log);
  rmSync(log);

  // The hostile-input target: 600 MB through a pipe, memory only.
  const big = join(dir, "stdin-nccl-600.log");
  generateNcclLog(big, { ranks: 1024, gpusPerNode: 8, targetBytes: BIG_LOG_BYTES });
  const piped = measure(`cat "$F" | "${process.execPath}" --import "$RSS" "$CLI" analyze - -o json`, {
    F: big,
    CLI: cli,
    RSS: rss,
  });
  const bigMB = statSync(big).size / 1e6;
  process.stdout.write(
    `NCCL INFO log from a pipe (${bigMB.toFixed(0)} MB): ${piped.seconds.toFixed(2)} s, peak RSS ${piped.rssMB.toFixed(0)} MB (target < ${RSS_TARGET_MB} MB) ${piped.rssMB < RSS_TARGET_MB ? "PASS" : "MISS"}\n\n`,
  );
  rmSync(big);

  const tests = join(dir, "stdin-nccl-tests.txt");
  const hosts = Array.from({ length: 16 }, (_, i) => `gpu-node-${String(i).padStart(3, "0")}`);
  const run = allReduceOutput({ hosts, peakBusBw: 180 });
  writeFileSync(tests, run.repeat(Math.ceil(TESTS_BYTES / run.length)));
  compare("nccl-tests output, all_reduce_perf runs of 128 ranks back to back", tests);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * NCCL log analysis as a user runs it: generates a 256 MB NCCL_DEBUG=INFO log of 1,024 ranks (128 nodes × 8 GPUs,
 * interleaved, many communicators, the line mix of generate-nccl-log.ts: channel and connection lines, launcher tags
 * and time stamps on some ranks' lines) in .bench-tmp/, then times whole processes, in turn, median of several runs:
 *   `grep -c NCCL FILE` against `node bin/kube-rdma.js analyze FILE`, and
 *   `cat FILE | grep -c NCCL` against `cat FILE | node bin/kube-rdma.js analyze -`;
 * the same lines in a shuffled order (every rank's lines interleaved with every other's, not in the generator's
 * bursts) from a file; and, for where the time goes, `analyze` of a one-line log (the command's start-up) against a
 * bare `node -e ''`.
 * Prints each ratio (grep's time / the analyser's: the analyser's speed as a share of grep's) and the CLI's peak RSS.
 * Targets: ratio ≥ 1/3 for the file and for standard input; peak RSS < 200 MB.
 * NCCL_BENCH_BYTES sets the log's size, NCCL_BENCH_RUNS the runs per command, NCCL_BENCH_KEEP=1 keeps the files,
 * NCCL_BENCH_SHUFFLED=0 skips the shuffled log.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateNcclLog } from "./generate-nccl-log.js";
import { type Command, machineLine, paired, peakRssMB, shell } from "./measure.js";

const RANKS = 1024;
const GPUS = 8;
const TARGET_BYTES = Number(process.env.NCCL_BENCH_BYTES ?? 256e6);
const RUNS = Number(process.env.NCCL_BENCH_RUNS ?? 5);
const RSS_TARGET_MB = 200;
const RATIO_TARGET = 1 / 3;

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const cli = join(root, "bin", "kube-rdma.js");
const rssReport = join(here, "rss-report.mjs");
const node = process.execPath;

/**
 * Writes `from`'s lines to `to` in an order shuffled by a fixed seed (Fisher–Yates with a 32-bit LCG): no rank's
 * lines stay together, so nothing that pays off on bursts of one rank's lines is measured as if every log had them.
 */
function writeShuffled(from: string, to: string): void {
  const src = readFileSync(from);
  const starts: number[] = [];
  for (let i = 0; i < src.length; ) {
    starts.push(i);
    const nl = src.indexOf(10, i);
    i = nl < 0 ? src.length : nl + 1;
  }
  const order = Uint32Array.from(starts.keys());
  let seed = 0x2545f491;
  for (let i = order.length - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    const j = seed % (i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  const out = Buffer.allocUnsafe(src.length + 1);
  let at = 0;
  for (const k of order) {
    const end = starts[k + 1] ?? src.length;
    at += src.copy(out, at, starts[k]!, end);
    if (out[at - 1] !== 10) out[at++] = 10; // the last line, when the log ends without a newline
  }
  writeFileSync(to, out.subarray(0, at));
}

const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");
const ms = (x: number) => `${x.toFixed(0)} ms`;

/** One paired comparison: grep (the baseline) and the analyser; prints both and the ratio; returns the ratio. */
function compare(title: string, grep: Command, ours: Command, mb: number): number {
  const [g, a] = paired([grep, ours], RUNS) as [ReturnType<typeof paired>[0], ReturnType<typeof paired>[0]];
  const ratio = g.ms / a.ms;
  const cpuRatio = g.cpuMs / a.cpuMs;
  process.stdout.write(
    [
      `${title} (${mb.toFixed(0)} MB), whole process, median of ${RUNS}, in turn (wall; CPU = user + system):`,
      `  ${grep.label}: ${ms(g.ms)} (${(mb / (g.ms / 1000)).toFixed(0)} MB/s, ${g.out.trim()} lines), ${ms(g.cpuMs)} CPU`,
      `  ${ours.label}: ${ms(a.ms)} (${(mb / (a.ms / 1000)).toFixed(0)} MB/s), ${ms(a.cpuMs)} CPU`,
      `  analyser/grep speed: ${ratio.toFixed(2)} wall, ${cpuRatio.toFixed(2)} CPU (target ≥ ${RATIO_TARGET.toFixed(2)}) ${verdict(ratio >= RATIO_TARGET)}`,
      "",
    ].join("\n"),
  );
  return ratio;
}

if (!existsSync(join(root, "dist", "main.js"))) {
  process.stdout.write("dist/ missing: building (npm run build)…\n");
  execFileSync("npm", ["run", "build"], { stdio: "inherit", cwd: root });
}
const dir = join(root, ".bench-tmp");
mkdirSync(dir, { recursive: true });
const file = join(dir, "nccl-1024-ranks.log");
const tiny = join(dir, "nccl-one-line.log");
const shuffled = join(dir, "nccl-1024-ranks-shuffled.log");
const SHUFFLED = process.env.NCCL_BENCH_SHUFFLED !== "0";
try {
  const tg = Date.now();
  generateNcclLog(file, { ranks: RANKS, gpusPerNode: GPUS, targetBytes: TARGET_BYTES });
  const mb = statSync(file).size / 1e6;
  process.stdout.write(
    `${machineLine()}\ngenerated ${mb.toFixed(0)} MB, ${RANKS} ranks, in ${((Date.now() - tg) / 1000).toFixed(1)} s\n`,
  );
  execFileSync("cat", [file], { stdio: ["ignore", "ignore", "ignore"] }); // the page cache warm for all

  const fileRatio = compare(
    "NCCL INFO log, 1024 ranks, from a file",
    { label: "grep -c NCCL FILE", argv: ["grep", "-c", "NCCL", file] },
    { label: "kube-rdma analyze FILE", argv: [node, cli, "analyze", file] },
    mb,
  );
  const pipeRatio = compare(
    "the same log from standard input",
    shell("cat FILE | grep -c NCCL", 'cat "$1" | grep -c NCCL', [file]),
    shell("cat FILE | kube-rdma analyze -", 'cat "$1" | "$2" "$3" analyze -', [file, node, cli]),
    mb,
  );

  let shuffledRatio = Number.NaN;
  if (SHUFFLED) {
    writeShuffled(file, shuffled);
    execFileSync("cat", [shuffled], { stdio: ["ignore", "ignore", "ignore"] });
    shuffledRatio = compare(
      "the same lines shuffled (ranks interleaved line by line), from a file",
      { label: "grep -c NCCL SHUFFLED", argv: ["grep", "-c", "NCCL", shuffled] },
      { label: "kube-rdma analyze SHUFFLED", argv: [node, cli, "analyze", shuffled] },
      statSync(shuffled).size / 1e6,
    );
  }

  writeFileSync(tiny, "gpu-node-000:20000:20100 [0] NCCL INFO NCCL version 2.23.4+cuda12.6\n");
  const [bare, start] = paired(
    [
      { label: "node -e ''", argv: [node, "-e", ""] },
      { label: "kube-rdma analyze ONE-LINE-FILE", argv: [node, cli, "analyze", tiny] },
    ],
    RUNS * 3,
  ) as [ReturnType<typeof paired>[0], ReturnType<typeof paired>[0]];
  process.stdout.write(
    `start-up: analyze of a one-line log ${ms(start.ms)}, bare node ${ms(bare.ms)} (median of ${RUNS * 3}): ` +
      `the command's own start costs ${ms(start.ms - bare.ms)} of each run above\n`,
  );

  const rssFile = peakRssMB('"$1" "$2" analyze "$3"', [node, cli, file], rssReport);
  const rssPipe = peakRssMB('cat "$3" | "$1" "$2" analyze -', [node, cli, file], rssReport);
  const rss = Math.max(rssFile, rssPipe);
  process.stdout.write(
    `peak RSS: file ${rssFile.toFixed(0)} MB, standard input ${rssPipe.toFixed(0)} MB (target < ${RSS_TARGET_MB} MB) ${verdict(rss < RSS_TARGET_MB)}\n` +
      `summary: file ${fileRatio.toFixed(2)}× grep, standard input ${pipeRatio.toFixed(2)}× grep` +
      (SHUFFLED ? `, shuffled file ${shuffledRatio.toFixed(2)}× grep` : "") +
      ` (target ≥ ${RATIO_TARGET.toFixed(2)})\n`,
  );
} finally {
  if (!process.env.NCCL_BENCH_KEEP) {
    rmSync(file, { force: true });
    rmSync(tiny, { force: true });
    rmSync(shuffled, { force: true });
  }
}

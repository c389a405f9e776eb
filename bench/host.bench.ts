/**
 * Host reading speed:
 *  1. `node bin/kube-rdma.js gids --root DIR` as a whole process on an 18-HCA × 256-GID-slot tree (target < 300 ms),
 *     with the show_gids algorithm in bash (test/oracle/show_gids.sh) on the same tree as the baseline;
 *  2. parsing a 100-GPU `nvidia-smi -q -x` document (target < 50 ms);
 *  3. readInventory on the materialized A100 RoCE example tree (reported, no target).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { buildHost } from "../src/examples/builder.js";
import { findExample } from "../src/examples/index.js";
import { materializeSnapshot } from "../src/examples/materialize.js";
import { renderNvidiaSmiXml, type XmlGpuSpec } from "../src/examples/nvidia-smi-xml.js";
import { h100Spec } from "../src/examples/variations.js";
import { FsHostReader } from "../src/host/fs-reader.js";
import { readInventory } from "../src/inventory/index.js";
import { parseNvidiaSmiXml } from "../src/parse/nvidia-smi-xml.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const verdict = (ms: number, target: number) => (ms < target ? "PASS" : "MISS");
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

function scratch(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return mkdtempSync("/dev/shm/kube-rdma-bench-");
  } catch {
    return mkdtempSync(join(tmpdir(), "kube-rdma-bench-"));
  }
}

function timeProcess(cmd: string, args: string[], runs: number): { ms: number; cpuMs: number | null; out: string } {
  let out = "";
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr}`);
    out = r.stdout;
    const m = /KUBE_RDMA_CPU_US (\d+)/.exec(r.stderr);
    if (m) cpu.push(Number(m[1]) / 1000);
  }
  return { ms: median(times), cpuMs: cpu.length ? median(cpu) : null, out };
}

function benchGids(base: string): void {
  if (!existsSync("dist/main.js")) {
    process.stdout.write("dist/ missing: building (npm run build)…\n");
    execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  }
  const spec = h100Spec(256);
  const dir = join(base, "h100-18hca-256");
  materializeSnapshot(buildHost(spec).toSnapshot({ host: spec.hostname }), dir);
  const ours = timeProcess(
    process.execPath,
    ["--import", "./bench/cpu-report.mjs", "bin/kube-rdma.js", "gids", "--root", dir],
    7,
  );
  const oracle = timeProcess("bash", ["test/oracle/show_gids.sh", dir], 3);
  const rows = Number(/n_gids_found=(\d+)/.exec(ours.out)?.[1] ?? 0);
  const same = ours.out === oracle.out;
  process.stdout.write(
    `gids --root (18 HCAs × 256 GID slots, ${rows} rows), whole process, median of 7: ${fmt(ours.ms)} ` +
      `(target < 300 ms) ${verdict(ours.ms, 300)}; CPU time ${ours.cpuMs === null ? "?" : fmt(ours.cpuMs)}\n` +
      `  baseline: show_gids algorithm in bash, median of 3: ${fmt(oracle.ms)} → kube-rdma is ` +
      `${oracle.ms >= ours.ms ? `${(oracle.ms / ours.ms).toFixed(1)}× faster` : `${(ours.ms / oracle.ms).toFixed(1)}× slower (Node's start alone is most of it)`}; ` +
      `outputs identical: ${same ? "yes" : "NO"}\n`,
  );
}

function benchXml(): void {
  const gpus: XmlGpuSpec[] = Array.from({ length: 100 }, (_, i) => ({
    busId: `00000000:${(0x10 + i).toString(16).toUpperCase()}:00.0`,
    name: "NVIDIA H100 80GB HBM3",
    uuid: `GPU-${String(i).padStart(8, "0")}-0000-4000-8000-000000000000`,
    memoryTotalMiB: 81559,
    minorNumber: i,
  }));
  const xml = renderNvidiaSmiXml({ driverVersion: "535.161.08", cudaVersion: "12.2", gpus });
  for (let i = 0; i < 3; i++) parseNvidiaSmiXml(xml); // warm-up (JIT)
  const times: number[] = [];
  let parsed = 0;
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    const r = parseNvidiaSmiXml(xml);
    times.push(performance.now() - t0);
    parsed = r.ok ? r.value.gpus.length : 0;
  }
  const ms = median(times);
  process.stdout.write(
    `parse nvidia-smi -q -x, ${parsed} GPUs (${Math.round(xml.length / 1024)} KiB), median of 15: ${fmt(ms)} ` +
      `(target < 50 ms) ${verdict(ms, 50)}\n`,
  );
}

async function benchInventory(base: string): Promise<void> {
  const dir = join(base, "a100-8x-roce");
  materializeSnapshot(findExample("a100-8x-roce")!.snapshot(), dir);
  await readInventory(new FsHostReader(dir)); // warm-up
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    await readInventory(new FsHostReader(dir));
    times.push(performance.now() - t0);
  }
  process.stdout.write(
    `readInventory on the A100 RoCE example tree (9 HCAs × 255 slots, 8 GPUs), median of 7: ${fmt(median(times))}\n`,
  );
}

const base = scratch();
try {
  const load = loadavg()[0]!;
  process.stdout.write(
    `machine: ${cpus().length} cores, load ${load.toFixed(1)}` +
      (load > cpus().length ? " (oversubscribed: wall times are inflated; CPU time is the steadier figure)\n" : "\n"),
  );
  benchGids(base);
  benchXml();
  await benchInventory(base);
} finally {
  rmSync(base, { recursive: true, force: true });
}

/**
 * Whole processes timed as a user times them: each command runs to its end with its output read through a pipe (not
 * /dev/null, which GNU grep answers after the first match), the commands taking turns so that the baseline and the
 * measured command see the same machine, and each figure is the median of its runs. Each run also gives the CPU time
 * (user + system) of the command and every process it starts: on a machine shared with other work, wall times swell
 * while CPU times barely move, so the CPU ratio says what the command costs when the wall ratio is blurred by load.
 *
 * A run goes through bash: `$EPOCHREALTIME` before and after the command gives its wall time (bash's own start is not
 * counted), `times` the CPU time of its children; the output comes back through a pipe as before.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";

export type Command = { label: string; argv: readonly string[] };
export type Timed = {
  label: string;
  /** Median wall time. */
  ms: number;
  /** Median CPU time (user + system, the command and its children). */
  cpuMs: number;
  runs: number[];
  out: string;
};

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

// The command's output is read into a variable (through a pipe, as a user's shell would), then written out.
const WRAPPER =
  't0=$EPOCHREALTIME; out=$("$@"); s=$?; t1=$EPOCHREALTIME; printf "%s" "$out"; printf "\\n@wall %s %s\\n" "$t0" "$t1" >&2; times >&2; exit $s';

/** `0m1.250s` → 1250 (ms). */
const clockMs = (m: string, s: string) => (Number(m) * 60 + Number(s)) * 1000;

function runOnce(c: Command): { ms: number; cpuMs: number; out: string } {
  const r = spawnSync("bash", ["-c", WRAPPER, "bash", ...c.argv], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${c.label} exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  const wall = /@wall (\d+)[.,](\d+) (\d+)[.,](\d+)\n/.exec(r.stderr);
  // `times` prints the shell's own times, then its children's: the second line.
  const cpu = [...r.stderr.matchAll(/^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/gm)][1];
  if (!wall || !cpu) throw new Error(`${c.label}: no timing from bash (bash ≥ 5 is needed): ${r.stderr.slice(-300)}`);
  const at = (sec: string, frac: string) => Number(sec) * 1000 + Number(`0.${frac}`) * 1000;
  return {
    ms: at(wall[3]!, wall[4]!) - at(wall[1]!, wall[2]!),
    cpuMs: clockMs(cpu[1]!, cpu[2]!) + clockMs(cpu[3]!, cpu[4]!),
    out: r.stdout,
  };
}

/** Runs every command `runs` times, in turn (one warm-up round first, not counted); the median of each. */
export function paired(commands: readonly Command[], runs: number): Timed[] {
  for (const c of commands) runOnce(c);
  const times = commands.map(() => [] as number[]);
  const cpus = commands.map(() => [] as number[]);
  const outs = commands.map(() => "");
  for (let i = 0; i < runs; i++) {
    commands.forEach((c, j) => {
      const r = runOnce(c);
      times[j]!.push(r.ms);
      cpus[j]!.push(r.cpuMs);
      outs[j] = r.out;
    });
  }
  return commands.map((c, j) => ({
    label: c.label,
    ms: median(times[j]!),
    cpuMs: median(cpus[j]!),
    runs: times[j]!,
    out: outs[j]!,
  }));
}

/** `sh -c SCRIPT` with `$1`, `$2`, … bound to `args` (no quoting of paths needed). */
export function shell(label: string, script: string, args: readonly string[]): Command {
  return { label, argv: ["sh", "-c", script, "sh", ...args] };
}

/** One line on the machine's state: a loaded machine inflates every wall time, the baseline's too. */
export function machineLine(): string {
  const load = loadavg()[0]!;
  const n = cpus().length;
  return `machine: ${n} cores, load ${load.toFixed(1)}${load > n ? " (oversubscribed: every figure is inflated; the paired ratios less so)" : ""}`;
}

/** The peak RSS of one run of `node … ARGS` (rss-report.mjs preloaded), in MB. */
export function peakRssMB(script: string, args: readonly string[], rssReport: string): number {
  const r = spawnSync("sh", ["-c", script, "sh", ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${rssReport}`.trim() },
  });
  // A worker thread reports too (its exit comes first): the process's peak is the largest figure.
  const kb = [...r.stderr.matchAll(/KUBE_RDMA_MAXRSS_KB (\d+)/g)].map((m) => Number(m[1]));
  if (kb.length === 0) throw new Error(`no peak memory reported (exit ${r.status}): ${r.stderr.slice(0, 500)}`);
  return Math.max(...kb) / 1024;
}

/**
 * `kube-rdma fleet verify -o json` against a kubeconfig as its own process (the built CLI): its output, wall time
 * and peak RSS, as a user running it would see them; `startedAt` is its start on `performance.now()`'s clock.
 */
export async function fleetVerifyProcess(
  kubeconfig: string,
): Promise<{ out: string; err: string; wallS: number; rssMb: number; startedAt: number }> {
  const main = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
  const script = `import(${JSON.stringify(main)}).then((m) => m.main(process.argv.slice(1), undefined)).then((code) => { process.stderr.write("maxrss " + process.resourceUsage().maxRSS + " exit " + code + "\\n"); });`;
  const start = performance.now();
  const child = spawn(
    process.execPath,
    ["--input-type=module", "-e", script, "fleet", "verify", "--kubeconfig", kubeconfig, "-o", "json"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    err += d;
  });
  await new Promise((resolve) => child.on("close", resolve));
  const wallS = (performance.now() - start) / 1000;
  return { out, err, wallS, startedAt: start, rssMb: Number(/maxrss (\d+)/.exec(err)?.[1] ?? "NaN") / 1024 };
}

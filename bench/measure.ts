/**
 * Whole processes timed as a user times them: each command runs to its end with its output read through a pipe (not
 * /dev/null, which GNU grep answers after the first match), the commands taking turns so that the baseline and the
 * measured command see the same machine, and each figure is the median of its runs.
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";

export type Command = { label: string; argv: readonly string[] };
export type Timed = { label: string; ms: number; runs: number[]; out: string };

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function runOnce(c: Command): { ms: number; out: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(c.argv[0]!, c.argv.slice(1), { encoding: "utf8", maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) throw r.error;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${c.label} exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  return { ms, out: r.stdout };
}

/** Runs every command `runs` times, in turn (one warm-up round first, not counted); the median of each. */
export function paired(commands: readonly Command[], runs: number): Timed[] {
  for (const c of commands) runOnce(c);
  const times = commands.map(() => [] as number[]);
  const outs = commands.map(() => "");
  for (let i = 0; i < runs; i++) {
    commands.forEach((c, j) => {
      const r = runOnce(c);
      times[j]!.push(r.ms);
      outs[j] = r.out;
    });
  }
  return commands.map((c, j) => ({ label: c.label, ms: median(times[j]!), runs: times[j]!, out: outs[j]! }));
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

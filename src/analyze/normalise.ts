/**
 * One normalisation layer in front of every parser `analyze` uses: it removes the per-line wrappers that launchers,
 * log collectors and pastes put around otherwise normal output, and hands clean lines on. A wrapper is removed only
 * when the lines themselves prove it (it starts at least PROOF of the non-blank lines), so a capture whose own lines
 * merely look like one is left alone. What a wrapper says about the run (the rank from Open MPI's `[1,0]`, the task
 * from Slurm's `0:`) is kept as facts. Pure.
 */

/** A wrapper family: its name, the prefix it puts on a line, and the fact its capture group carries. */
type Wrapper = { name: WrapperName; prefix: RegExp; fact?: "rank" | "task" | "host" };

export type WrapperName =
  | "tag_output"
  | "srun_label"
  | "kubectl_prefix"
  | "kubectl_timestamp"
  | "bracket_datetime"
  | "pdsh_host"
  | "editor_line_number"
  | "ray_actor"
  | "comment_star"
  | "logger";

// Open MPI `mpirun --tag-output`: `[JOBID,RANK]<stdout>:` (https://docs.open-mpi.org/en/v5.0.x/man-openmpi/man1/mpirun.1.html).
// Slurm `srun --label`: `TASK: ` (https://slurm.schedmd.com/srun.html#OPT_label).
// `kubectl logs --prefix`: `[pod/NAME/CONTAINER] ` and `--timestamps`: an RFC 3339 time then a space
// (https://kubernetes.io/docs/reference/kubectl/generated/kubectl_logs/).
const WRAPPERS: readonly Wrapper[] = [
  { name: "tag_output", prefix: /^\[\d+,(\d+)\]<std(?:out|err)>:[ \t]?/, fact: "rank" },
  { name: "kubectl_prefix", prefix: /^\[pod\/[^\]/\s]+\/[^\]\s]+\] ?/ },
  { name: "kubectl_timestamp", prefix: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) / },
  { name: "bracket_datetime", prefix: /^\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?\] ?/ },
  { name: "srun_label", prefix: /^ {0,3}(\d{1,5}): /, fact: "task" },
  // An editor's or file viewer's gutter: `  12 | …`.
  { name: "editor_line_number", prefix: /^ *\d{1,7} ?\| ?/ },
  // Ray's actor prefix, nested ones too: `(RayWorkerWrapper pid=336, ip=10.1.2.3) `
  // (https://docs.ray.io/en/latest/ray-observability/user-guides/configure-logging.html).
  { name: "ray_actor", prefix: /^(?:\((?:[\w.-]+ )?pid=\d+(?:, ip=[\d.a-f:]+)?\) ?)+/ },
  // A capture pasted inside a C comment block: ` * mlx5_0 1 3 …`.
  { name: "comment_star", prefix: /^ ?\* ?/ },
  // A logger's own prefix: Python logging `2025-06-11 09:12:05,301 - name - INFO - `, glog `I0611 09:12:01.118220 140211 file.py:757] `.
  {
    name: "logger",
    prefix:
      /^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d+ - (?:[\w.-]+ - )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - |[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w./-]+:\d+\] )/,
  },
  // pdsh/clush: `HOST: ` (https://linux.die.net/man/1/pdsh). A host name has a digit, `-` or `.` in it, so that a
  // capture's own `Key: value` lines are never taken for one.
  { name: "pdsh_host", prefix: /^([A-Za-z][\w-]*[\d.-][\w.-]*): /, fact: "host" },
];

/** Share of non-blank lines a prefix must start for the layer to call it a wrapper. */
const PROOF = 0.8;

export type Normalised = {
  text: string;
  /** The wrappers removed, outermost first. */
  removed: WrapperName[];
  /** Open MPI ranks seen in `[JOB,RANK]` tags, sorted. */
  ranks?: number[];
  /** Slurm task numbers seen in `srun --label` prefixes, sorted. */
  tasks?: number[];
  /** Hosts seen in pdsh/clush `host: ` prefixes, sorted. */
  hosts?: string[];
};

// ANSI colour and cursor sequences (ECMA-48 CSI).
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

function proven(lines: readonly string[], prefix: RegExp): boolean {
  const filled = lines.filter((l) => l.trim() !== "");
  if (filled.length === 0) return false;
  return filled.filter((l) => prefix.test(l)).length >= Math.ceil(filled.length * PROOF);
}

function capturedBy(lines: readonly string[], prefix: RegExp): string[] {
  const seen = new Set<string>();
  for (const l of lines) {
    const m = prefix.exec(l);
    if (m?.[1] !== undefined) seen.add(m[1]);
  }
  return [...seen];
}

const numbersOf = (lines: readonly string[], prefix: RegExp) =>
  capturedBy(lines, prefix)
    .map(Number)
    .sort((a, b) => a - b);

// Markdown code fences around a pasted capture (```text … ```).
const FENCE = /^\s*```[\w-]*\s*$/;

/** Removes CRLF, ANSI colour and every proven per-line wrapper (stacked ones too, outermost first). */
export function normaliseCapture(text: string): Normalised {
  let lines = text
    .replace(/\r\n?/g, "\n")
    .replace(ANSI, "")
    .split("\n")
    .filter((l) => !FENCE.test(l));
  const out: Normalised = { text: "", removed: [] };
  // A wrapper may come back under another (a launcher's labels inside a collector's), or twice (a captured `srun -l`
  // output relayed by another `srun -l`): each pass removes the first proven one; the outermost one's facts are kept.
  for (let pass = 0; pass < 2 * WRAPPERS.length; pass++) {
    const w = WRAPPERS.find((x) => proven(lines, x.prefix));
    if (!w) break;
    if (w.fact === "rank") out.ranks ??= numbersOf(lines, w.prefix);
    if (w.fact === "task") out.tasks ??= numbersOf(lines, w.prefix);
    if (w.fact === "host") out.hosts ??= capturedBy(lines, w.prefix).sort();
    if (!out.removed.includes(w.name)) out.removed.push(w.name);
    // A fence can sit inside a wrapper (a launcher that printed a Markdown block): it goes before the next proof.
    lines = lines.map((l) => l.replace(w.prefix, "")).filter((l) => !FENCE.test(l));
  }
  out.text = lines.join("\n");
  return out;
}

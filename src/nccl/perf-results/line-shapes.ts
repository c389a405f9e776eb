/**
 * What a line of nccl-tests output looks like around its table as users paste it: rank tags a launcher put on each
 * write, two outputs pasted side by side, the launcher's command line. Pure.
 */
/** A table row begins with two whole numbers (a row cut after its first number is still a row, reported as cut). */
export const ROW_START = /^\d+(?:\s+\d|$)/;

// The launcher's process count, before the program: Open MPI/MPICH `-n N`, `-np N`, `--np N`, `-c N`; Slurm `-n N`,
// `--ntasks=N` (https://www.open-mpi.org/doc/current/man1/mpirun.1.php, https://slurm.schedmd.com/srun.html).
const LAUNCHER = /\b(?:mpirun|mpiexec|orterun|srun)\b.*?\s(?:-np?|--np|-c|--ntasks(?:=|\s+))\s*(\d+)(?=\s)/;
// After the program, nccl-tests' own `-t`/`--nthreads` and `-g`/`--ngpus` (its `-n` is the iteration count).
const THREADS = /\s(?:-t|--nthreads)(?:\s+|=)(\d+)\b/;
const GPUS = /\s(?:-g|--ngpus)(?:\s+|=)(\d+)\b/;

/**
 * A launcher that tags each write of a rank with `[N]` tags every piece of a row nccl-tests printed in several
 * writes: `[0]      524288 … sum      -1[0]   104.45 …       0[0]   109.85 …` (shape seen at
 * https://github.com/NVIDIA/nccl/issues/1453). A line that starts with `[N]` loses that tag wherever it recurs; the
 * pieces keep a space between them. Other lines are returned as they are.
 */
export function withoutRankTags(raw: string): string {
  if (raw.charCodeAt(0) !== 91) return raw;
  const tag = /^\[\d{1,6}\]/.exec(raw);
  return tag ? raw.slice(tag[0].length).split(tag[0]).join(" ") : raw;
}

/** What runs a test binary directly: environment assignments and the binary's path (`NCCL_ALGO=RING ./build/`). */
const DIRECT = /^(?:\S+=\S+\s+)*(?:\S*\/)?$/;

/**
 * Ranks a `mpirun -n P … X_perf -t T -g G` command line asks for: P × T × G. A binary typed with no launcher
 * (`./build/sendrecv_perf -g 8`) is one process: T × G. Null when a launcher names no count (or something else runs
 * the binary).
 */
export function commandRanks(line: string, programAt: number, programLength: number): number | null {
  const before = line.slice(0, programAt);
  const launcher = LAUNCHER.exec(before);
  const processes = launcher ? Number(launcher[1]) : DIRECT.test(before) ? 1 : null;
  if (processes === null) return null;
  const args = ` ${line.slice(programAt + programLength)}`;
  const threads = Number(THREADS.exec(args)?.[1] ?? 1);
  const gpus = Number(GPUS.exec(args)?.[1] ?? 1);
  const n = processes * threads * gpus;
  return n >= 1 ? n : null;
}

/**
 * A line holding two lines of nccl-tests output side by side (a comparison pasted as `left  |  right`, as at
 * https://github.com/ROCm/rccl/pull/1352): both halves a `#` header line or a result row. Null for any other line
 * (a `docker compose logs` prefix `name  | …` has no output line on its left).
 */
export function sideBySide(line: string): [string, string] | null {
  const bar = line.indexOf("  |  ");
  if (bar < 0) return null;
  const left = line.slice(0, bar).trim();
  const right = line.slice(bar + 5).trim();
  const part = (t: string) => t.startsWith("#") || ROW_START.test(t);
  return part(left) && part(right) && !right.includes("  |  ") ? [left, right] : null;
}

/**
 * A collective's name in words, as people write it (`all_gather`, `allgather`, `All-Gather`, `AlltoAll`, `all_to_all`,
 * `scatter`), with or without `_perf`: never a part of a longer word (`reduce_scatter` names no scatter).
 */
const COLLECTIVE_WORD =
  /(?<![A-Za-z0-9_-])(all[_-]?reduce|all[_-]?gather|reduce[_-]?scatter|all[_-]?to[_-]?all|broadcast|reduce|gather|scatter|send[_-]?recv|hypercube)(?:_perf)?(?![A-Za-z0-9_-])/gi;

/** The collectives a line names in words, in nccl-tests' spelling (`all_gather`, `alltoall`, `sendrecv`). */
export function collectivesNamedIn(line: string): string[] {
  const out = new Set<string>();
  for (const m of line.matchAll(COLLECTIVE_WORD)) {
    const w = m[1]!.toLowerCase().replace(/-/g, "_");
    const name = /^all_?to_?all$/.test(w)
      ? "alltoall"
      : /^send_?recv$/.test(w)
        ? "sendrecv"
        : w.replace(/^(all|reduce)_?(reduce|gather|scatter)$/, "$1_$2");
    out.add(name);
  }
  return [...out];
}

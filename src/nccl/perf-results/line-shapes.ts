import { SIGNAL_HANDLER } from "../../core/crash-lines.js";
/**
 * What a line of nccl-tests output looks like around its table as users paste it: rank tags a launcher put on each
 * write, two outputs pasted side by side, the launcher's command line. Pure.
 */
/** A table row begins with two whole numbers (a row cut after its first number is still a row, reported as cut). */
export const ROW_START = /^\d+(?:\s+\d|$)/;

// The launcher's process count, before the program, in each launcher's own words: Open MPI/MPICH `-n N`, `-np N`,
// `--np N`, `-c N` (https://www.open-mpi.org/doc/current/man1/mpirun.1.php); Slurm `-n N`, `--ntasks=N`, where `-c` is
// the CPUs of each task (`srun -c 64 … -n 8`: 8 processes; https://slurm.schedmd.com/srun.html).
/** The launchers that run a test program on other processes, by name. */
export const LAUNCHER_NAMES = "mpirun|mpiexec|orterun|srun";
const MPI_LAUNCHER = /\b(?:mpirun|mpiexec|orterun)\b.*?\s(?:-np?|--np|-c)\s*(\d+)(?=\s)/;
const SRUN = /\bsrun\b.*?\s(?:-n|--ntasks(?:=|\s+))\s*(\d+)(?=\s)/;
// After the program, nccl-tests' own `-t`/`--nthreads` and `-g`/`--ngpus` (its `-n` is the iteration count).
const THREADS = /\s(?:-t|--nthreads)(?:\s+|=)(\d+)\b/;
const GPUS = /\s(?:-g|--ngpus)(?:\s+|=)(\d+)\b/;

/**
 * The `*_perf` program's own death: Open MPI's signal handler, or an assertion it failed (`all_reduce_perf:
 * file.c:177: func: Assertion … failed.`, glibc's __assert_fail).
 */
export const PROGRAM_CRASH = new RegExp(
  `${SIGNAL_HANDLER.source}|[a-z][a-z_]*_perf(?:_mpi)?: .*\\bAssertion .* failed`,
);

const MPI_TAG = /\[\d+,\d+\]<std(?:out|err)>:/g;

/**
 * A launcher that tags each write of a rank with `[N]` tags every piece of a row nccl-tests printed in several
 * writes: `[0]      524288 … sum      -1[0]   104.45 …       0[0]   109.85 …` (shape seen at
 * https://github.com/NVIDIA/nccl/issues/1453). A line that starts with `[N]` loses that tag wherever it recurs; the
 * pieces keep a space between them. Other lines are returned as they are.
 */
export function withoutRankTags(raw: string): string {
  if (raw.includes("(), ")) raw = withoutSourceLocations(raw);
  // Open MPI's `--tag-output` does the same: `[1,0]<stdout>:` before each write, so inside a row as well (shape seen in
  // an EKS MPIJob log committed at https://github.com/KeitaW/p5-nccl-test-2024-07-19). The line's own first tag is taken
  // off before this (the normalisation layer); the ones inside come off here.
  if (raw.indexOf("]<std", 1) > 0) raw = raw.replace(MPI_TAG, (tag, at: number) => (at === 0 ? tag : " "));
  if (raw.charCodeAt(0) !== 91) return raw;
  const tag = /^\[\d{1,6}\]/.exec(raw);
  return tag ? raw.slice(tag[0].length).split(tag[0]).join(" ") : raw;
}

/**
 * A build that prints where each write came from, `function(), file.cu:123, ` before it (a test harness instrumented
 * for debugging: `run(), common.cu:1175, # Avg bus bandwidth …`, and a row written in three writes,
 * `TimeTest(), common.cu:610,  1024  256  float  sum  -1BenchTime(), common.cu:561,  45.2 …`; shape seen in logs
 * committed to https://github.com/ssbandjl/nccl-tests, log/). Each mark comes off: at the line's start with nothing
 * left, inside it with a space between the pieces.
 */
const SOURCE_LOCATION = /[A-Za-z_]\w*\(\), [\w./-]+\.(?:cu|cc|cpp|c|h|hpp):\d+, ?/g;

export function withoutSourceLocations(line: string): string {
  return line.replace(SOURCE_LOCATION, (_, at: number) => (at === 0 ? "" : " "));
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
  const launcher = MPI_LAUNCHER.exec(before) ?? SRUN.exec(before);
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

/**
 * A line that tells a command in prose: plain words before the launcher or the test binary (`I launch it with `srun
 * …``), not a prompt, an environment assignment or `sudo` (shape seen in https://github.com/NVIDIA/pyxis/issues/116).
 */
export function toldInProse(line: string): boolean {
  const start = line.search(/\b(?:mpirun|mpiexec|srun|[a-z][a-z_]*_perf)\b|\S*\/[a-z][a-z_]*_perf\b/);
  const before = start < 0 ? "" : line.slice(0, start);
  return /(?:^|\s)(?!sudo\b|time\b|nohup\b|exec\b|env\b)[A-Za-z][a-z]+[,:]?(?=\s)/.test(before);
}

/**
 * The index in `rest` (a row's tokens after its type) where its figures start — after a redop and a root, either of
 * which a collective may leave blank — when exactly one of the places 0–2 reads as a time and an algbw that agree:
 * algbw (GB/s) = size / time (µs) / 1000, both printed to two decimals or so. Null when none or several do (a tiny
 * size whose algbw prints as 0.00 fits anywhere).
 */
export function figuresStart(bytes: number, rest: readonly string[], group: number): number | null {
  let found: number | null = null;
  for (let m = 0; m <= 2 && rest.length - m >= group; m++) {
    const time = Number(rest[m]);
    const algbw = Number(rest[m + 1]);
    if (!(time > 0) || !Number.isFinite(algbw) || algbw < 0.1) continue;
    const expected = bytes / time / 1000;
    if (Math.abs(algbw - expected) > Math.max(0.011, 0.02 * algbw)) continue;
    if (found !== null) return null;
    found = m;
  }
  return found;
}

/** A numbered list's marker before an item's text (`1. `, `2) `). */
export const NUMBERED_ITEM = /^\d{1,3}[.)]\s+(?=\S)/;

/** A row whose out-of-place figures were left blank (a wide gap after the redop and root): in-place figures only. */
export const BLANK_SIDE = /\S\s{20,}\S/;

/** A failure the harness or launcher printed (the rows before it still count). */
const FAILURE = new RegExp(
  `Test (?:NCCL|CUDA) failure|Test failure |MPI_ABORT was invoked|invalid usage|unhandled (?:cuda|system) error|${PROGRAM_CRASH.source}`,
);

export function failureLine(line: string): boolean {
  return (
    (line.includes("failure") ||
      line.includes("MPI_ABORT") ||
      line.includes(" error") ||
      line.includes("***") ||
      line.includes("Assertion")) &&
    FAILURE.test(line)
  );
}

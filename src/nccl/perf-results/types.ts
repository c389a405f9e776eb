/** nccl-tests results (tech-spec §5). Bandwidths in GB/s (10^9 B/s) as printed; times in µs. */

export type Perf = {
  timeUs: number | null;
  algbw: number | null;
  busbw: number | null;
  /** `#wrong` (nccl-tests ≥ 2.13): count of wrong elements; null for N/A and for the older `error` column. */
  wrong: number | null;
  /**
   * `error` (nccl-tests < 2.13): the largest absolute deviation of any element from the expected result, printed
   * with one significant digit (`5e-07`); `inf` is kept as Infinity (JSON output writes null). Null for N/A and for
   * the `#wrong` column.
   */
  maxError: number | null;
};

export type PerfRow = {
  bytes: number;
  count: number;
  type: string;
  redop: string | null;
  root: number | null;
  outOfPlace: Perf | null;
  inPlace: Perf | null;
  /** 1-based line in the input (0 for JSON). */
  line: number;
};

export type RankInfo = { rank: number; host: string; pid: number | null; device: number; busId: string; gpu: string };

export type PerfRun = {
  /** `all_reduce_perf` as printed in `# Collective test starting:` or the JSON args. */
  program: string | null;
  /**
   * What named the program: the banner (`# Collective test starting:`, what ran), the -J file's args, or a command line
   * pasted above the output (what was asked). A command line never overrides the banner.
   */
  programSource: "banner" | "json" | "command_line" | null;
  /** Read from stdout text or from the -J JSON file. */
  format: "text" | "json";
  testsVersion: string | null;
  nThread: number | null;
  nGpus: number | null;
  validation: boolean | null;
  ranks: RankInfo[];
  /** Rank lines seen again for a rank already listed (non-MPI builds launched by mpirun). */
  duplicateRanks: number;
  duplicateHeaders: number;
  rows: PerfRow[];
  avgBusBw: number | null;
  outOfBounds: { count: number; ok: boolean } | null;
  errors: string[];
  /** Whether the column header had a redop column (null: no header seen). nccl-tests 2.0 all_gather had none. */
  redopColumn: boolean | null;
  /** Failure lines printed by the test harness or the launcher (`Test NCCL failure …`, `MPI_ABORT was invoked …`). */
  failures: string[];
  /** Rows were printed but the footer never came: the run crashed or the paste was cut. */
  incomplete: boolean;
  /**
   * Ranks the pasted command line asks for: the launcher's process count (`mpirun -n 256`, `-np`, `srun --ntasks`)
   * × the test's `-t` threads × `-g` GPUs per process (each GPU of each thread is one rank). Null without one.
   */
  commandRanks: number | null;
  /**
   * Processes the launcher reported starting, where it lists each: Slurm's `--cpu-bind=verbose` prints one
   * `cpu-bind=MASK - <host>, task <global> <local> [<pid>]: mask 0x… set` line per task (slurm_chkaffinity, in
   * src/plugins/task/affinity/ of https://github.com/SchedMD/slurm). Counted only when the task numbers run 0…n−1
   * with none missing (a cut list says nothing). Null without such lines.
   */
  launcherTasks: number | null;
  /**
   * Collectives the text around the output names in words (`I ran scatter on one node`, a title `all_gather on 2
   * nodes`), sorted: evidence weaker than the table's layout, read only to choose between the collectives it leaves.
   */
  namedInText: string[];
  /** Those of namedInText named before the run's first row (the words that introduce it), sorted. */
  namedBeforeRows: string[];
};

export function emptyRun(): PerfRun {
  return {
    program: null,
    programSource: null,
    format: "text",
    testsVersion: null,
    nThread: null,
    nGpus: null,
    validation: null,
    ranks: [],
    duplicateRanks: 0,
    duplicateHeaders: 0,
    rows: [],
    avgBusBw: null,
    outOfBounds: null,
    errors: [],
    redopColumn: null,
    failures: [],
    incomplete: false,
    commandRanks: null,
    launcherTasks: null,
    namedInText: [],
    namedBeforeRows: [],
  };
}

/** busbw = algbw × factor (tech-spec §5.2, nccl-tests doc/PERFORMANCE.md). */
export function busBwFactor(collective: string, nranks: number): number | null {
  if (nranks < 1) return null;
  const n = nranks;
  switch (collective) {
    case "all_reduce":
      return (2 * (n - 1)) / n;
    case "reduce_scatter":
    case "all_gather":
    case "alltoall":
    case "alltoallv":
    case "gather":
    case "scatter":
      return (n - 1) / n;
    // hypercube_perf counts the n − 1 chunks each rank exchanges in algbw already: busbw = algbw
    // (HyperCubeGetBw, https://github.com/NVIDIA/nccl-tests/blob/master/src/hypercube.cu).
    case "hypercube":
    case "broadcast":
    case "reduce":
    case "sendrecv":
      return 1;
    default:
      return null;
  }
}

/**
 * Why a row's printed bandwidths cannot be (busbw is not algbw × the collective's factor for its rank count, or algbw
 * is not bytes / time), or null when they agree within the printing's rounding. Pure.
 */
export function impossibleBandwidth(p: Perf, bytes: number, factor: number | null): string | null {
  const { busbw, algbw, timeUs } = p;
  if (busbw === null) return null;
  if (!Number.isFinite(busbw) || busbw < 0) return `busbw ${busbw} GB/s is not a bandwidth`;
  if (algbw !== null && (!Number.isFinite(algbw) || algbw < 0)) return `algbw ${algbw} GB/s is not a bandwidth`;
  // Printed with 2 decimals: allow that rounding, times the factor, plus 1%.
  const near = (a: number, b: number) => Math.abs(a - b) <= 0.02 + Math.abs(b) * 0.01;
  if (algbw !== null && factor !== null && !near(busbw, algbw * factor)) {
    return `busbw ${busbw} GB/s, while algbw ${algbw} GB/s × ${round3(factor)} (the bus factor for its collective and rank count) is ${round3(algbw * factor)} GB/s`;
  }
  if (algbw !== null && timeUs !== null && timeUs > 0 && bytes > 0) {
    const fromTime = bytes / (timeUs * 1e3);
    if (!near(algbw, fromTime)) {
      return `algbw ${algbw} GB/s, while ${bytes} bytes in ${timeUs} µs is ${round3(fromTime)} GB/s`;
    }
  }
  return null;
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

const MSCCLPP_NAMES: Record<string, string> = {
  allreduce: "all_reduce",
  allgather: "all_gather",
  reducescatter: "reduce_scatter",
};

/** `./build/all_reduce_perf_mpi` → `all_reduce`; MSCCL++'s `allgather_test_perf` → `all_gather`. */
export function collectiveOf(program: string | null): string | null {
  if (!program) return null;
  const base = program.split("/").pop() ?? program;
  const m = /^([a-z_]+?)_perf(?:_\w+)?$/.exec(base);
  if (!m) return null;
  // MSCCL++'s test binaries (`allreduce_test_perf`, `allgather_test_perf`, microsoft/mscclpp
  // test/mscclpp-test/CMakeLists.txt) name the same collectives without the underscore.
  const name = m[1]!.replace(/_test$/, "");
  return MSCCLPP_NAMES[name] ?? name;
}

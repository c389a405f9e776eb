/**
 * mpirun command lines for the MPI launchers. Ranks are started over ssh (mpi-operator v2, Volcano's ssh plugin),
 * so they see neither the worker pod's env nor anything a platform injects into PID 1. Two paths bring the NCCL
 * variables to them:
 * - every variable the job knows is set on the launcher and forwarded with `-x NAME`;
 * - what the RDMA device plugin injects at run time lands in the *workers* (they hold rdma/hca, the launcher does
 *   not): each worker saves its NCCL_* variables to a file before it becomes sshd, and each rank sources its own
 *   worker's file before the program starts. The launcher requesting rdma/hca instead would give the ranks the
 *   launcher node's values (another node, and in exclusive mode an HCA taken from a GPU pod).
 */

/** Where a worker saves the NCCL variables its PID 1 got (the job's and the device plugin's) for the ranks. */
export const WORKER_NCCL_ENV_FILE = "/tmp/kube-rdma-nccl.env";

/** The worker's shell script: save NCCL_* (bash %q quoting) for the ranks, then become sshd. */
export function workerSshdScript(): string {
  return [
    `for v in \${!NCCL_@}; do printf 'export %s=%q\\n' "$v" "\${!v}"; done > ${WORKER_NCCL_ENV_FILE}`,
    "mkdir -p /var/run/sshd",
    "exec /usr/sbin/sshd -D -e",
  ].join("; ");
}

/** Words before a rank's program: source the worker's saved NCCL variables, then exec the program. */
export const RANK_ENV_WRAPPER = ["/bin/bash", "-c", `. ${WORKER_NCCL_ENV_FILE} && exec "$0" "$@"`];

/** Inserts RANK_ENV_WRAPPER before the program word at `programAt` of an mpirun argv. */
export function withRankEnv(argv: readonly string[], programAt: number): string[] {
  return [...argv.slice(0, programAt), ...RANK_ENV_WRAPPER, ...argv.slice(programAt)];
}

const FORWARD_ALWAYS = ["PATH", "LD_LIBRARY_PATH"];

/** `-x NAME` for each variable (sorted), plus PATH and LD_LIBRARY_PATH. */
export function forwardFlags(env: Record<string, string>): string[] {
  return [...Object.keys(env).sort(), ...FORWARD_ALWAYS].flatMap((k) => ["-x", k]);
}

/** Adds `-x NAME` for variables an existing mpirun argv does not forward yet (right after `mpirun`). */
export function withForwardedEnv(argv: readonly string[], env: Record<string, string>): string[] {
  const forwarded = new Set<string>();
  argv.forEach((a, i) => {
    if (a === "-x" && argv[i + 1]) forwarded.add(argv[i + 1]!.split("=")[0]!);
  });
  const missing = forwardFlags(env).filter((_, i, all) => i % 2 === 1 && !forwarded.has(all[i]!));
  const [first, ...rest] = argv;
  return [first ?? "mpirun", ...missing.flatMap((k) => ["-x", k]), ...rest];
}

export type MpirunOptions = {
  np: number;
  /** Processes per node, for `-npernode` (one rank per GPU). */
  perNode: number;
  env: Record<string, string>;
  program: string[];
  /** Extra mpirun options (e.g. `--host $MPI_HOST`). */
  extra?: string[];
};

export function mpirunArgv(o: MpirunOptions): string[] {
  return [
    "mpirun",
    "--allow-run-as-root",
    "-np",
    String(o.np),
    "-npernode",
    String(o.perNode),
    "-bind-to",
    "none",
    "-map-by",
    "slot",
    ...(o.extra ?? []),
    ...forwardFlags(o.env),
    ...RANK_ENV_WRAPPER,
    ...o.program,
  ];
}

/** Quotes one word for a POSIX shell, only when needed. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./${}-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

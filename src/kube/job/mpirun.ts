/**
 * mpirun command lines for the MPI launchers. Ranks are started over ssh (mpi-operator v2, Volcano's ssh plugin),
 * so they see neither the worker pod's env nor anything a platform injects into PID 1: every NCCL variable is set
 * on the launcher and forwarded with `-x NAME`.
 */

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
    ...o.program,
  ];
}

/** Quotes one word for a POSIX shell, only when needed. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./${}-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

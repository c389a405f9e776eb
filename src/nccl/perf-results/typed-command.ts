import { commandRanks, LAUNCHER_NAMES } from "./line-shapes.js";

/**
 * A test program named in a typed command (`./build/all_gather_perf`, `all_reduce_perf_mpi`): one of nccl-tests' and
 * rccl-tests' programs by name (src/*.cu), or any `*_perf` binary typed as a path (a fork's own). Not any word that
 * ends in `_perf`: libfabric registers a provider named `ofi_hook_perf` (shape seen in a Slurm job's output committed to
 * a public repository, https://github.com/sparticlesteve/podman-nccl-testing).
 */
const COMMAND =
  /(?:^|[\s/=`])((?:all_reduce|all_gather|alltoallv?|broadcast|reduce|reduce_scatter|sendrecv|scatter|gather|hypercube)_perf(?:_mpi)?|(?<=\/)[a-z][a-z_]*_perf(?:_mpi)?)(?:\s|$)/;
/** A launcher named in a typed command (`mpirun`, `srun`): what runs the program on other processes. */
const LAUNCHER_WORD = new RegExp(`\\b(?:${LAUNCHER_NAMES})\\s`);
/** The longest command read across a quoted string's lines: a stray quote in prose joins no more than this. */
const QUOTED_COMMAND_MAX = 2048;
/** An odd number of unescaped double quotes: a string still open at the line's end. */
const unclosedQuote = (s: string): boolean => ((s.match(/(?<!\\)"/g)?.length ?? 0) & 1) === 1;

/**
 * A command typed over several lines, each but the last ending in `\` (POSIX shell line continuation,
 * https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_02_01), read as one line. A
 * launcher's command also goes on inside a double-quoted string it opened (`srun … sh -c "` then the program on the
 * lines after it, the quote closed on a later line), up to QUOTED_COMMAND_MAX characters.
 */
export class TypedCommand {
  private continued: string | null = null;

  /** The command typed so far with `line` as its last line (the line itself where none goes on). */
  next(line: string): string {
    const typed = this.continued === null ? line : `${this.continued} ${line}`;
    this.continued = line.endsWith("\\")
      ? typed.slice(0, -1).trimEnd()
      : typed.length < QUOTED_COMMAND_MAX && LAUNCHER_WORD.test(typed) && unclosedQuote(typed)
        ? typed
        : null;
    return typed;
  }
}

/**
 * The test program a typed command runs and the ranks it asks for (line-shapes.ts commandRanks), or null. A command
 * quoted inline in prose (`quoted`) with no launcher in the quote asks for no count: the launcher may be outside it.
 */
export function programTyped(typed: string, quoted = false): { program: string; ranks: number | null } | null {
  const cmd = COMMAND.exec(typed);
  if (!cmd) return null;
  const program = cmd[1]!;
  const ranks =
    quoted && !LAUNCHER_WORD.test(typed)
      ? null
      : commandRanks(typed, cmd.index + cmd[0].indexOf(program), program.length);
  return { program, ranks };
}

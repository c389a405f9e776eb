import type { StdinSource } from "./stdin.js";

/** Commands and options are declared once, as data; parsing and help are generated from them. */

export type OptionType = "string" | "boolean" | "number" | "strings";

export type OptionSpec = {
  /** Long name without dashes: `output` for `--output`. */
  name: string;
  short?: string;
  type: OptionType;
  description: string;
  /** Shown in help as `--output FORMAT`. */
  valueName?: string;
  choices?: readonly string[];
  default?: string | boolean | number | string[];
};

export type Io = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** True when stdout is a terminal (progress bars, colours). */
  isTTY: boolean;
  /** The terminal's width when stdout is one (text reports wrap to it; 80 otherwise). */
  columns?: number;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Reads all of standard input (for `-` file arguments). */
  readStdin: () => Promise<string>;
  /**
   * Standard input as a stream of chunks, for inputs too large to hold (`kubectl logs … | kube-rdma analyze -`);
   * without it, commands fall back to `readStdin`.
   */
  openStdin?: () => StdinSource;
};

export type OptionValues = Record<string, string | boolean | number | string[] | undefined>;

export type CommandContext = {
  values: OptionValues;
  positionals: string[];
  io: Io;
};

export type CommandSpec = {
  name: string;
  summary: string;
  /** `kube-rdma verify [options]` */
  usage: string;
  /** Paragraphs that teach: what it checks, what the output means. */
  description?: string;
  options: readonly OptionSpec[];
  /** Example invocations with a comment each: [`kube-rdma verify --example a100-8x-roce`, `check the A100 RoCE example node`]. */
  examples: readonly (readonly [string, string])[];
  /** Returns the exit code: 0 ok, 1 errors found, 2 could not run. */
  run: (ctx: CommandContext) => Promise<number>;
  /**
   * The command takes options only: a stray word (`kube-rdma verify node-17`, meant as "verify node-17") is refused
   * with this hint instead of being ignored while the command checks something else.
   */
  noArguments?: { hint: string };
  /**
   * Subcommands with a help of their own (`fleet verify --help`): their usage, summary, description and examples,
   * and which of the command's options they take.
   */
  subcommands?: Readonly<Record<string, SubcommandHelp>>;
};

export type SubcommandHelp = {
  usage: string;
  summary: string;
  description: string;
  /** Names of the command's options this subcommand takes. */
  options: readonly string[];
  /**
   * How this subcommand reads a shared option, where it differs (`fleet topology -o` writes YAML or JSON, not the
   * report formats): shown in its help instead of the command's text.
   */
  optionHelp?: Readonly<Record<string, Pick<OptionSpec, "description" | "choices" | "default">>>;
  examples: readonly (readonly [string, string])[];
};

/**
 * Bad usage or unreadable input (exit 2, never a stack trace): what went wrong and what to do. A message or hint of several lines is given
 * as its lines: each is printed on a line of its own, and a line break inside one (a path, a value a file held) is
 * shown escaped, so no value can start a line the tool never wrote (usageErrorText).
 */
export class UsageError extends Error {
  readonly lines: readonly string[];
  readonly hintLines: readonly string[];
  readonly hint?: string;
  constructor(message: string | readonly string[], hint?: string | readonly string[]) {
    const lines = typeof message === "string" ? [message] : message;
    super(lines.join("\n"));
    this.name = "UsageError";
    this.lines = lines;
    this.hintLines = hint === undefined ? [] : typeof hint === "string" ? [hint] : hint;
    if (this.hintLines.length > 0) this.hint = this.hintLines.join("\n");
  }
}

export function str(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

export function bool(values: OptionValues, name: string): boolean {
  return values[name] === true;
}

export function num(values: OptionValues, name: string): number | undefined {
  const v = values[name];
  return typeof v === "number" ? v : undefined;
}

export function strs(values: OptionValues, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

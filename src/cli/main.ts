// Only what every command needs is imported here; help, suggestions, error text and standard input load when used
// (each module is a file Node reads, resolves and compiles at start: `kube-rdma gids` counts them).
import { COMMANDS } from "./commands/index.js";
import { parseCommandArgs } from "./parse-args.js";
import { type Io, UsageError } from "./spec.js";
import type { StdinSource } from "./stdin.js";
import { VERSION } from "./version.js";

let pipeGuarded = false;

/**
 * A reader that stops early (`kube-rdma verify | head`) closes the pipe: stop quietly, as Unix tools do, with the
 * exit code the command had (0 if none yet). Any other output error is said in one line, exit 2 — never a trace.
 */
function guardOutputPipes(): void {
  if (pipeGuarded) return;
  pipeGuarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
      if (stream !== process.stderr)
        process.stderr.write(`kube-rdma: cannot write the output: ${err.code ?? err.message}\n`);
      process.exit(2);
    });
  }
}

/**
 * Standard input that Ctrl-C ends like an end of input while it is being read: `kubectl logs -f … | kube-rdma analyze
 * -` then reports on what arrived. The handler is removed once the reading stops, so a later Ctrl-C exits as usual.
 */
function interruptibleStdin(): StdinSource {
  const abort = new AbortController();
  const onInterrupt = () => abort.abort();
  process.once("SIGINT", onInterrupt);
  return {
    chunks: (async function* () {
      try {
        const { streamSource } = await import("./stdin.js");
        yield* streamSource(process.stdin, abort.signal).chunks;
      } finally {
        process.off("SIGINT", onInterrupt);
      }
    })(),
    interrupted: () => abort.signal.aborted,
  };
}

function defaultIo(): Io {
  guardOutputPipes();
  return {
    stdout: (t) => {
      process.stdout.write(t);
    },
    stderr: (t) => {
      process.stderr.write(t);
    },
    isTTY: Boolean(process.stdout.isTTY),
    ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
    env: process.env,
    cwd: process.cwd(),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    openStdin: interruptibleStdin,
  };
}

export function renderTopHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  const lines = [
    "kube-rdma — verify, configure and prove RDMA-backed distributed GPU training on Kubernetes",
    "",
    "Usage: kube-rdma <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    "",
    "Every command takes --help. Reports take -o text|json|yaml (verify, analyze, bench judge and fleet verify",
    "also -o html: one page to open in a browser). Exit codes: 0 no errors, 1 errors found,",
    "2 could not run (bad usage or unreadable input).",
    "",
    "Start here:",
    "  kube-rdma verify --example a100-8x-roce    # the A100 RoCE example node",
    "  kube-rdma verify                                 # this host",
    "",
  ];
  return lines.join("\n");
}

/** The older guess for a command: the names sharing its first two letters. */
function prefixGuess(typed: string, names: readonly string[]): string {
  const near = names.filter((n) => n.startsWith(typed.slice(0, 2)));
  return near.length ? ` Did you mean ${near.join(" or ")}?` : "";
}

/** Runs one CLI invocation; returns the exit code. Never throws for expected failures. */
export async function main(argv: readonly string[], io: Io = defaultIo()): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    if (first === "help" && rest[0]) return main([rest[0], "--help"], io);
    io.stdout(renderTopHelp());
    return first === undefined ? 2 : 0;
  }
  if (first === "--version" || first === "-V") {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  if (first === "--list-examples") return main(["examples", ...rest], io);
  const entry = COMMANDS.find((c) => c.name === first);
  if (!entry) {
    const names = COMMANDS.map((c) => c.name);
    const { didYouMean } = await import("./suggest.js");
    const near = didYouMean(first, names) || prefixGuess(first, names);
    io.stderr(`kube-rdma: unknown command "${first}".${near}\n` + "Run `kube-rdma --help` to list the commands.\n");
    return 2;
  }
  const { command } = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    const sub = rest[0] !== undefined ? command.subcommands?.[rest[0]] : undefined;
    const { renderCommandHelp } = await import("./help.js");
    io.stdout(
      renderCommandHelp(
        sub
          ? {
              ...command,
              ...sub,
              options: command.options
                .filter((o) => sub.options.includes(o.name))
                .map((o) => ({ ...o, ...sub.optionHelp?.[o.name] })),
            }
          : command,
      ),
    );
    return 0;
  }
  try {
    const { values, positionals } = parseCommandArgs(rest, command.options);
    if (values["list-examples"] === true) return main(["examples"], io);
    if (command.noArguments && positionals.length > 0) {
      throw new UsageError(
        `takes options only; got ${positionals.map((p) => JSON.stringify(p)).join(", ")}.`,
        command.noArguments.hint,
      );
    }
    return await command.run({ values, positionals, io });
  } catch (err) {
    if (err instanceof UsageError) {
      // A message may quote what a server or file said: no control sequence from it reaches the terminal.
      const { usageErrorText } = await import("./usage-error-text.js");
      io.stderr(usageErrorText(command.name, err));
      return 2;
    }
    throw err;
  }
}

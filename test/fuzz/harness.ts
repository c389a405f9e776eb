/**
 * What every hostile-input fuzz suite counts and how one input is run: a tally of what a user must never see (a
 * crash, a hang, and the suite's own kinds: silent passes, leaks, …), the first notes, and a CLI run that turns an
 * exit code outside 0/1/2 or a stack trace on stderr into a crash.
 */
import { main } from "../../src/cli/main.js";
import { captureIo } from "../support/io.js";

export function fuzzHarness<K extends string>(kinds: readonly K[], hangMs: number) {
  type Kind = "crashes" | "hangs" | K;
  const tally = Object.fromEntries(["inputs", "crashes", "hangs", ...kinds].map((k) => [k, 0])) as Record<
    "inputs" | Kind,
    number
  >;
  const notes: string[] = [];
  const note = (kind: Kind, what: string) => {
    tally[kind]++;
    if (notes.length < 20) notes.push(`${kind}: ${what}`);
  };

  /** Runs one input, counting a throw as a crash and a slow answer as a hang. */
  async function attempt<T>(what: string, run: () => Promise<T>, limitMs = hangMs): Promise<T | undefined> {
    tally.inputs++;
    const started = performance.now();
    try {
      return await run();
    } catch (err) {
      note("crashes", `${what}: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    } finally {
      const took = performance.now() - started;
      if (took > limitMs) note("hangs", `${what}: ${Math.round(took)} ms`);
    }
  }

  /** One CLI run; an exit code outside 0/1/2 or a stack trace on stderr is thrown (a crash). */
  async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
    const io = captureIo();
    const code = await main(args, io);
    if (![0, 1, 2].includes(code)) throw new Error(`exit ${code} for ${args.join(" ")}`);
    if (/\n\s+at .+:\d+:\d+\)?\n/.test(io.err)) throw new Error(`stack trace on stderr for ${args.join(" ")}`);
    return { code, out: io.out, err: io.err };
  }

  return { tally, notes, note, attempt, cli };
}

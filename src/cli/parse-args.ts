import { parseArgs } from "node:util";
import { type OptionSpec, type OptionValues, UsageError } from "./spec.js";
import { didYouMean } from "./suggest.js";

/** Parses argv against declared options; converts numbers and checks choices. Throws UsageError on bad input. */
export function parseCommandArgs(
  argv: readonly string[],
  specs: readonly OptionSpec[],
): { values: OptionValues; positionals: string[] } {
  const options: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {};
  for (const s of specs) {
    options[s.name] = {
      type: s.type === "boolean" ? "boolean" : "string",
      ...(s.short ? { short: s.short } : {}),
      ...(s.type === "strings" ? { multiple: true } : {}),
    };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: joinNegativeNumbers(argv, specs),
      options,
      allowPositionals: true,
      strict: true,
      allowNegative: true,
      tokens: true,
    });
  } catch (err) {
    throw new UsageError(cleanParseError(err) + suggestionFor(err, specs), "Run with --help to see the options.");
  }
  refuseConflictingRepeats(parsed.tokens ?? [], specs);
  const values: OptionValues = {};
  for (const s of specs) {
    const raw = (parsed.values as Record<string, unknown>)[s.name];
    if (raw === undefined) {
      if (s.default !== undefined) values[s.name] = s.default;
      continue;
    }
    if (s.type === "number") {
      const n = Number(raw);
      if (typeof raw !== "string" || raw.trim() === "" || !Number.isFinite(n)) {
        throw new UsageError(`--${s.name} expects a number, got "${String(raw)}".`);
      }
      values[s.name] = n;
    } else if (s.type === "strings") {
      const items = (raw as string[]).flatMap((v) => v.split(",")).filter((v) => v !== "");
      if (items.length === 0) {
        // `--node "$NODE"` with NODE unset must not quietly mean "no --node" (every node, every HCA).
        throw new UsageError(
          `--${s.name} was given an empty value; expected ${s.valueName ?? "a value"} (repeatable or comma-separated).`,
          `Leave --${s.name} out for the default, or check the variable that was meant to fill it.`,
        );
      }
      values[s.name] = items;
    } else {
      values[s.name] = raw as string | boolean;
    }
    if (s.choices && typeof values[s.name] === "string" && !s.choices.includes(values[s.name] as string)) {
      throw new UsageError(
        `--${s.name} must be one of ${s.choices.join(", ")}; got "${String(values[s.name])}".`,
        "Run with --help to see the options.",
      );
    }
  }
  return { values, positionals: parsed.positionals };
}

/**
 * `--nodes -3`: node's parser takes `-3` for an option and answers "argument is ambiguous", which says nothing about
 * the number. A number option followed by a negative number is read as `--nodes=-3`, so that the command's own check
 * says what the number must be.
 */
function joinNegativeNumbers(argv: readonly string[], specs: readonly OptionSpec[]): string[] {
  const numeric = new Set<string>();
  for (const s of specs) {
    if (s.type !== "number") continue;
    numeric.add(`--${s.name}`);
    if (s.short) numeric.add(`-${s.short}`);
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const next = argv[i + 1];
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    if (numeric.has(a) && next !== undefined && /^-(?:\d|\.\d)/.test(next)) {
      out.push(a.startsWith("--") ? `${a}=${next}` : `${a}${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * `--example a --example b` would silently check b only (the last one wins): a single-value option given twice
 * with different values is refused, naming both. Repeating the same value is harmless.
 */
function refuseConflictingRepeats(
  tokens: NonNullable<ReturnType<typeof parseArgs>["tokens"]>,
  specs: readonly OptionSpec[],
): void {
  const single = new Set(specs.filter((s) => s.type !== "strings" && s.type !== "boolean").map((s) => s.name));
  const seen = new Map<string, string>();
  for (const t of tokens) {
    if (t.kind !== "option" || !single.has(t.name) || t.value === undefined) continue;
    const before = seen.get(t.name);
    if (before !== undefined && before !== t.value) {
      throw new UsageError(
        `--${t.name} is given twice (${JSON.stringify(before)}, then ${JSON.stringify(t.value)}); only one would be used.`,
        `Give --${t.name} once; to check several, run the command once per value.`,
      );
    }
    seen.set(t.name, t.value);
  }
}

function cleanParseError(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  // node:util messages mention "parseArgs"; keep only the user-facing part.
  return msg.replace(/\. To specify a positional argument.*$/s, ".").replace(/^TypeError \[[A-Z_]+\]: /, "");
}

/** ` Did you mean --snapshot?` for an unknown long option near a declared one; "" otherwise. */
function suggestionFor(err: unknown, specs: readonly OptionSpec[]): string {
  if ((err as { code?: string }).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return "";
  const typed = /'--([^'=\s]+)/.exec(err instanceof Error ? err.message : "")?.[1];
  if (!typed) return "";
  return didYouMean(
    typed,
    specs.map((s) => s.name),
    "--",
  );
}

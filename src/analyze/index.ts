import { type Problem, problem } from "../core/result.js";
import { splitLines } from "../core/text.js";
import { DETECT_HEAD_BYTES, DETECT_THRESHOLD, detectKind, unknownKindMessage } from "./detect.js";
import { inlineQuotesOf } from "./inline-quotes.js";
import { type Normalised, normaliseCapture } from "./normalise.js";
import { ANALYZERS } from "./registry.js";
import { soleCommand, soleCommandKind, splitTranscript } from "./transcript.js";
import type { AnalyzeContext, AnalyzeEntry, AnalyzeKindName, AnalyzerKind, AnalyzeStream } from "./types.js";

export { ANALYZERS } from "./registry.js";
export type { AnalyzeContext, AnalyzeEntry, AnalyzeKindName, AnalyzerKind } from "./types.js";

/** An analysed input with the one-line summary the text report prints. */
export type AnalyzedInput = AnalyzeEntry & { summary?: string };

export function findAnalyzer(kind: string, analyzers: readonly AnalyzerKind[] = ANALYZERS): AnalyzerKind | undefined {
  return analyzers.find((a) => a.kind === kind);
}

/** An input that was not analysed, with the problem that says why (`analyze` reports FAIL for it and exits 2). */
function notAnalysed(file: string, why: Problem): AnalyzedInput {
  return { file, kind: "unknown", data: null, findings: [], problems: [why] };
}

/** The input's name in a sentence: its path, or "Standard input" for `-`. */
const inputName = (file: string) => (file === "-" ? "Standard input" : file);

export function unknownEntry(file: string, analyzers: readonly AnalyzerKind[] = ANALYZERS): AnalyzedInput {
  const { message, hint } = unknownKindMessage(analyzers);
  return notAnalysed(file, problem("analyze.unknown_kind", message, { path: file, hint }));
}

/**
 * Text saved as UTF-16 (Windows PowerShell's `>` and `Out-File` write it) reads as UTF-8 with a NUL after every
 * ASCII character: no detector can match it, and "not a format we recognise" would send the user looking for the
 * wrong command. Null when the head does not look like that.
 */
export function utf16Entry(file: string, head: string): AnalyzedInput | null {
  const sample = head.slice(0, 400);
  let nul = 0;
  for (let i = 0; i < sample.length; i++) if (sample.charCodeAt(i) === 0) nul++;
  if (sample.length < 8 || nul < sample.length * 0.3) return null;
  return notAnalysed(
    file,
    problem(
      "analyze.utf16",
      `${inputName(file)} is UTF-16 text (a NUL byte beside every character), not the UTF-8 kube-rdma reads: it was not analysed.`,
      {
        path: file,
        hint: `Convert it (\`iconv -f UTF-16 -t UTF-8 ${file === "-" ? "FILE" : file} > capture.txt\`), or capture with \`| Out-File -Encoding utf8\` in PowerShell, then analyse that.`,
      },
    ),
  );
}

/**
 * An input with nothing in it: the capture that should have filled it failed, or the command before the pipe printed
 * nothing. Said as such, not as an unknown format.
 */
export function emptyEntry(file: string): AnalyzedInput {
  return notAnalysed(
    file,
    problem("analyze.empty", `${inputName(file)} is empty: there is nothing to analyse.`, {
      path: file,
      hint:
        file === "-"
          ? "The command before the pipe printed nothing: check that it ran (`kubectl logs` of a pod that has not started prints nothing; add --previous for a restarted one)."
          : "The capture that wrote it printed nothing or failed: run it again and check its exit status.",
    }),
  );
}

/** Picks the analyser for an input: forced by `--kind`, else detected on its first 64 KiB. */
export function chooseAnalyzer(
  head: string,
  forced: string | undefined,
  analyzers: readonly AnalyzerKind[] = ANALYZERS,
): AnalyzerKind | null {
  if (forced !== undefined) return findAnalyzer(forced, analyzers) ?? null;
  return detectKind(head.slice(0, DETECT_HEAD_BYTES), analyzers).analyzer;
}

export function entryOf(
  file: string,
  kind: AnalyzeKindName,
  outcome: ReturnType<AnalyzerKind["analyze"]>,
): AnalyzedInput {
  const entry: AnalyzedInput = { file, kind, data: outcome.data, findings: outcome.findings };
  if (outcome.problems.length > 0) entry.problems = outcome.problems.map((p) => ({ path: file, ...p }));
  if (outcome.summary !== undefined) entry.summary = outcome.summary;
  if (outcome.unread && outcome.unread.length > 0) entry.unread = [...outcome.unread];
  return entry;
}

/** How sure a detector must be of what a text quotes inline (a text that is no capture as a whole). */
const QUOTED_PROOF = 0.7;

/** Quotes a question makes (a weaker reading is enough among so few); a manual makes many more. */
const FEW_QUOTES = 8;

/** Analyses one whole input (pure: text in, entry out). */
export function analyzeText(
  file: string,
  text: string,
  ctx: AnalyzeContext = {},
  opts: { kind?: string; analyzers?: readonly AnalyzerKind[] } = {},
): AnalyzedInput {
  const analyzers = opts.analyzers ?? ANALYZERS;
  if (opts.kind === undefined && text.trim() === "") return emptyEntry(file);
  const utf16 = utf16Entry(file, text);
  if (utf16) return utf16;
  // Parsers never see a wrapper: the normalisation layer hands them clean lines.
  const clean = normaliseCapture(text, { recognised: recognisedBy(analyzers) });
  const analyzer = chooseAnalyzer(clean.text, opts.kind, analyzers);
  if (!analyzer) {
    // No capture in the text as a whole: what it quotes inline may be one (a question's `NCCL INFO …`).
    const quoted = opts.kind === undefined ? quotedReading(clean.text, analyzers) : null;
    if (quoted) {
      const spans: Normalised = { ...clean, removed: [...clean.removed, "inline_quotes"] };
      const read = { ...ctx, inlineQuotes: true };
      return withWrappers(entryOf(file, quoted.analyzer.kind, quoted.analyzer.analyze(quoted.text, read)), spans);
    }
    return withWrappers(unknownEntry(file, analyzers), clean);
  }
  // A launcher's hosts name the records that kept none of their own (`gpu-7: NCCL INFO …`, the prefix removed).
  const read = clean.hosts && HOSTLESS_RECORD.test(clean.text) ? { ...ctx, launcherHosts: clean.hosts } : ctx;
  return withWrappers(entryOf(file, analyzer.kind, analyzer.analyze(clean.text, read)), clean);
}

/** An NCCL record with no `host:pid:tid [dev]` before its level, at a line's start. */
const HOSTLESS_RECORD = /^NCCL (?:INFO|WARN) /m;

/**
 * The capture a text quotes inline, and its kind, or null. Only a strong reading of the quotes counts, or any among a
 * question's few quotes: a page that quotes many names and commands (a reference manual) holds a record's shape among
 * them by chance. The lines of the quoted kind that the question pasted bare beside its quotes (a banner) are read
 * with them.
 */
function quotedReading(
  text: string,
  analyzers: readonly AnalyzerKind[],
): { analyzer: AnalyzerKind; text: string } | null {
  const spans = inlineQuotesOf(text);
  if (spans === null) return null;
  const spanKind = detectKind(spans.slice(0, DETECT_HEAD_BYTES), analyzers).analyzer;
  if (!spanKind) return null;
  const quoted = inlineQuotesOf(text, (l) => spanKind.detect(l) > 0) ?? spans;
  const inQuotes = detectKind(quoted.slice(0, DETECT_HEAD_BYTES), analyzers);
  const analyzer = inQuotes.analyzer;
  const score = analyzer ? (inQuotes.scores[analyzer.kind] ?? 0) : 0;
  const few = quoted.split("\n").length <= FEW_QUOTES;
  return analyzer && (score >= QUOTED_PROOF || few) ? { analyzer, text: quoted } : null;
}

/** The kind of the analyzers' records a text reads as, or null (for the prefixes only a record proves). */
const recognisedBy =
  (analyzers: readonly AnalyzerKind[]) =>
  (text: string): string | null => {
    const chosen = chooseAnalyzer(text, undefined, analyzers);
    if (chosen) return chosen.kind;
    // A tool's failure under its one typed command is a record too (its kind comes from the command).
    const sole = soleCommandKind(text);
    if (sole !== null && findAnalyzer(sole, analyzers) !== undefined) return sole;
    // So is a record a question quotes inline (a launcher's prefix before every line of it comes off the same way).
    return quotedReading(text, analyzers)?.analyzer.kind ?? null;
  };

/** Keeps what the normalisation layer removed as facts on the entry (only when it removed something). */
function withWrappers(entry: AnalyzedInput, clean: Normalised): AnalyzedInput {
  if (clean.removed.length === 0) return entry;
  const wrappers: NonNullable<AnalyzedInput["wrappers"]> = { removed: clean.removed };
  if (clean.ranks) wrappers.ranks = clean.ranks;
  if (clean.tasks) wrappers.tasks = clean.tasks;
  if (clean.hosts) wrappers.hosts = clean.hosts;
  return { ...entry, wrappers };
}

/** Finishes a streamed input (`createStream` path for big logs). */
export function finishStream(file: string, analyzer: AnalyzerKind, stream: AnalyzeStream): AnalyzedInput {
  return entryOf(file, analyzer.kind, stream.end());
}

/**
 * The kinds one file holds when it is both an nccl-tests output and an NCCL log (NCCL INFO lines between the test's
 * rows, as `NCCL_DEBUG=INFO all_reduce_perf …` prints): the test results and the NCCL verdict are each reported.
 * Empty for a file of one kind.
 */
export function mixedKinds(clean: string, analyzers: readonly AnalyzerKind[] = ANALYZERS): string[] {
  const { scores } = detectKind(clean.slice(0, DETECT_HEAD_BYTES), analyzers);
  const both: AnalyzeKindName[] = ["nccl_tests", "nccl_log"];
  return both.every((k) => (scores[k] ?? 0) >= DETECT_THRESHOLD) ? both : [];
}

/** A detector's score for a kind whose own lines fill the text's head (a strong reading, not a weak hint). */
const STRONG = 0.9;

/**
 * The kinds of a paste that holds two captures side by side with no command typed between them, or a command the
 * transcript does not know (a typo: `ibdev_info`): a host tool's output and the NCCL lines of the run (`ibstatus`, then
 * NCCL's, shape seen at https://github.com/NVIDIA/nccl/issues/451), `ofed_info -s`'s line and `ibv_devinfo`'s blocks.
 * Both kinds, in the registry's order, when exactly two read strongly (nccl-tests aside: its NCCL lines are
 * mixedKinds'); else empty.
 */
export function besideEachOther(clean: string, analyzers: readonly AnalyzerKind[] = ANALYZERS): string[] {
  const { scores } = detectKind(clean.slice(0, DETECT_HEAD_BYTES), analyzers);
  const strong = analyzers.map((a) => a.kind).filter((k) => k !== "nccl_tests" && (scores[k] ?? 0) >= STRONG);
  return strong.length === 2 ? strong : [];
}

/** How many nccl-tests result rows an entry holds (0 for any other kind). */
function resultRows(entry: AnalyzedInput): number {
  const rows = (entry.data as { rows?: unknown } | null)?.rows;
  return Array.isArray(rows) ? rows.length : 0;
}

/**
 * Analyses one input that may be a pasted session of several commands (`ofed_info -s`, `nvidia-smi`, `show_gids`):
 * one entry per command, named `file:LINE (command)`; a single capture gives one entry named after the file.
 */
export function analyzeTranscript(
  file: string,
  text: string,
  ctx: AnalyzeContext = {},
  opts: { kind?: string; analyzers?: readonly AnalyzerKind[] } = {},
): AnalyzedInput[] {
  const analyzers = opts.analyzers ?? ANALYZERS;
  const clean = opts.kind === undefined ? normaliseCapture(text, { recognised: recognisedBy(analyzers) }).text : null;
  const segments = clean === null ? null : splitTranscript(clean);
  if (segments === null) {
    const split = clean === null ? null : aboveAndBelow(file, clean, ctx, analyzers);
    if (split) return split;
    const kinds = clean === null ? [] : mixedKinds(clean, analyzers);
    const beside = clean !== null && kinds.length < 2 ? besideEachOther(clean, analyzers) : [];
    if (beside.length === 2) return beside.map((kind) => analyzeText(file, text, ctx, { analyzers, kind }));
    if (kinds.length < 2) {
      // Output no format recognises under the one capture command typed above it: that command's kind, whose
      // analyser says what it could not read.
      const typed =
        clean !== null && chooseAnalyzer(clean, undefined, analyzers) === null ? soleCommandKind(clean) : null;
      const kind = typed !== null && findAnalyzer(typed, analyzers) ? typed : undefined;
      return [analyzeText(file, text, ctx, kind ? { ...opts, kind } : opts)];
    }
    const tests = analyzeText(file, text, ctx, { analyzers, kind: "nccl_tests" });
    // The test's result rows prove a communicator ran: the NCCL lines beside them are judged with that.
    const ran = resultRows(tests) > 0 ? { ...ctx, communicatorRan: "nccl_tests_rows" as const } : ctx;
    return kinds.map((kind) => (kind === "nccl_tests" ? tests : analyzeText(file, text, ran, { analyzers, kind })));
  }
  return segments.map((s) => {
    const name = `${file}:${s.line} (${s.command})`;
    const detected = chooseAnalyzer(s.text, undefined, analyzers);
    // The command says what it printed when the output alone does not (the reference setup's `MLNX_OFED_LINUX-*.*-…:` placeholder).
    const kind = detected?.kind ?? (findAnalyzer(s.kind, analyzers) ? s.kind : undefined);
    return analyzeText(name, s.text, ctx, { analyzers, ...(kind ? { kind } : {}) });
  });
}

/**
 * A capture pasted above the one command typed in a text, and that command's output below it (a page quotes NCCL's
 * `NET/IB : Using …` line, then shows `$ ibstat | grep mlx5` and its lines): two captures, each read on its own, when
 * the text above reads as a kind of its own and the command prints another. Null otherwise.
 */
function aboveAndBelow(
  file: string,
  clean: string,
  ctx: AnalyzeContext,
  analyzers: readonly AnalyzerKind[],
): AnalyzedInput[] | null {
  const sole = soleCommand(clean, true);
  if (sole === null || sole.index === 0) return null;
  const lines = splitLines(clean);
  const aboveText = lines.slice(0, sole.index).join("\n");
  const above = chooseAnalyzer(aboveText, undefined, analyzers);
  if (above === null || above.kind === sole.kind || !findAnalyzer(sole.kind, analyzers)) return null;
  const below = lines.slice(sole.index + 1).join("\n");
  if ((chooseAnalyzer(below, undefined, analyzers)?.kind ?? sole.kind) !== sole.kind) return null;
  return [
    analyzeText(file, aboveText, ctx, { analyzers, kind: above.kind }),
    analyzeText(`${file}:${sole.index + 1} (${sole.command})`, below, ctx, { analyzers, kind: sole.kind }),
  ];
}

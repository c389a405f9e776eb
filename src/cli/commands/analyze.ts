import { captureHintLines, DETECT_HEAD_BYTES } from "../../analyze/detect.js";
import { uncheckedExpectations } from "../../analyze/expectations.js";
import {
  ANALYZERS,
  type AnalyzedInput,
  analyzeText,
  analyzeTranscript,
  chooseAnalyzer,
  entryOf,
  finishStream,
  mixedKinds,
  unknownEntry,
  utf16Entry,
} from "../../analyze/index.js";
import { normaliseCapture } from "../../analyze/normalise.js";
import { notRead as entryNotRead, readInPart } from "../../analyze/render.js";
import type { AnalyzeContext, AnalyzeKindName, AnalyzerKind, AnalyzeStream } from "../../analyze/types.js";
import { exitCodeFor } from "../../core/finding.js";
import { problem } from "../../core/result.js";
import { textWidth } from "../../report/findings-text.js";
import { ANALYZE_REPORT } from "../../report/kinds/analyze.js";
import { renderReport } from "../../report/registry.js";
import { type Input, readInput, readProblem, readWhole } from "../input.js";
import { REPORT_OUTPUT_OPTION, SOURCE_OPTIONS, STRICT_OPTION } from "../shared-options.js";
import { inventoryFromFlags } from "../source.js";
import { type CommandSpec, type Io, num, type OptionValues, str, UsageError } from "../spec.js";

/** Inputs above this size go through the analyser's line stream when it has one. */
const LARGE_BYTES = 8 * 1024 * 1024;
/**
 * Without a stream, a large input is read whole up to this size. Real captures of these kinds are kilobytes (a
 * 16-HCA show_gids is ~0.4 MiB); parsing holds a few times the text, so the cap keeps memory bounded.
 */
const WHOLE_CAP_BYTES = 16 * 1024 * 1024;

type InputOptions = { ctx: AnalyzeContext; kind: string | undefined; io: Io; analyzers?: readonly AnalyzerKind[] };

/** Analyses one read input: a pasted session is cut into one entry per command (`analyzeTranscript`). */
export async function analyzeInputs(input: Input, opts: InputOptions): Promise<AnalyzedInput[]> {
  if (input.status === "large" && opts.kind === undefined) {
    const kinds = mixedKinds(normaliseCapture(input.head).text, opts.analyzers ?? ANALYZERS);
    if (kinds.length > 1) return analyzeLargeMixed(input, opts);
  }
  if (input.status !== "whole") return [await analyzeInput(input, opts)];
  const analyzers = opts.analyzers ?? ANALYZERS;
  const entries = analyzeTranscript(input.file, input.text, opts.ctx, {
    analyzers,
    ...(opts.kind ? { kind: opts.kind } : {}),
  });
  return entries.map((e, i) => (i === entries.length - 1 ? noteInterruption(input, e) : e));
}

/**
 * A large file that is both an nccl-tests output and an NCCL log gives the same two entries the same content small
 * gives (`analyzeTranscript`): the test's results, then the NCCL verdict judged with the rows as proof that a
 * communicator ran. A file can be read twice; standard input cannot, so a stream stays one entry.
 */
async function analyzeLargeMixed(
  input: Extract<Input, { status: "large" }>,
  opts: InputOptions,
): Promise<AnalyzedInput[]> {
  const tests = await analyzeInput(input, { ...opts, kind: "nccl_tests" });
  const rows = (tests.data as { rows?: unknown } | null)?.rows;
  const ran = Array.isArray(rows) && rows.length > 0;
  const ctx: AnalyzeContext = ran ? { ...opts.ctx, communicatorRan: "nccl_tests_rows" } : opts.ctx;
  return [tests, await analyzeInput(input, { ...opts, ctx, kind: "nccl_log" })];
}

/** Analyses one read input: whole text, or a large file or stream through the kind's stream when it has one. */
export async function analyzeInput(input: Input, opts: InputOptions): Promise<AnalyzedInput> {
  return noteInterruption(input, await analyzeRead(input, opts));
}

/** An input whose reading Ctrl-C stopped says so: its report covers only what had arrived. */
function noteInterruption(input: Input, entry: AnalyzedInput): AnalyzedInput {
  const interrupted = input.status === "whole" || input.status === "stream" ? input.interrupted?.() : false;
  if (!interrupted) return entry;
  const note = problem(
    "analyze.interrupted",
    `Reading ${input.file} was stopped (Ctrl-C): the report covers what had arrived.`,
    { path: input.file },
  );
  return { ...entry, problems: [...(entry.problems ?? []), note] };
}

async function analyzeRead(input: Input, opts: InputOptions): Promise<AnalyzedInput> {
  const { ctx, kind } = opts;
  const analyzers = opts.analyzers ?? ANALYZERS;
  if (input.status === "unreadable") {
    return { file: input.file, kind: "unknown", data: null, findings: [], problems: [input.problem] };
  }
  if (input.status === "whole") {
    return analyzeText(input.file, input.text, ctx, { analyzers, ...(kind ? { kind } : {}) });
  }
  const utf16 = utf16Entry(input.file, input.head);
  if (utf16) return utf16;
  const analyzer = chooseAnalyzer(input.head, kind, analyzers);
  if (!analyzer) return unknownEntry(input.file, analyzers);
  try {
    if (analyzer.analyzeFile && input.status === "large") {
      return entryOf(input.file, analyzer.kind, await analyzer.analyzeFile(input.path, ctx));
    }
    if (analyzer.analyzeChunks && input.status === "stream") {
      return entryOf(input.file, analyzer.kind, await analyzer.analyzeChunks(input.bytes(), ctx));
    }
    if (analyzer.createStream) {
      const stream = analyzer.createStream(ctx);
      const skipped = await feedStream(stream, input.chunks());
      const entry = finishStream(input.file, analyzer, stream);
      return skipped === 0
        ? entry
        : { ...entry, problems: [longLines(input.file, skipped), ...(entry.problems ?? [])] };
    }
    const text = await readCapped(input, opts.io);
    if (text === null) return tooLarge(input.file, analyzer.kind);
    return analyzeText(input.file, text, ctx, { kind: analyzer.kind, analyzers });
  } catch (err) {
    // The file changed or vanished while it was read (a log being rotated, a disk error): say so, as for any read.
    return {
      file: input.file,
      kind: analyzer.kind,
      data: null,
      findings: [],
      problems: [readProblem(input.file, err)],
    };
  }
}

/**
 * Longest line a line stream is handed (1 Mi characters). No capture or log line comes near it; a file without
 * newlines (a binary, a 100 MB blob) is skipped line by line instead of being joined into one ever-longer string.
 */
export const MAX_STREAM_LINE = 1 << 20;

/**
 * Feeds text chunks to a stream: raw when it splits lines itself, else line by line (a cut last line included).
 * Each line is pieced together from the chunks it spans and only joined once, so time stays linear in the input;
 * a line over MAX_STREAM_LINE is dropped while it is read. Returns how many lines were dropped.
 */
async function feedStream(stream: AnalyzeStream, chunks: AsyncIterable<string>): Promise<number> {
  if (stream.write) {
    for await (const chunk of chunks) stream.write(chunk);
    return 0;
  }
  let pieces: string[] = [];
  let length = 0;
  let skipping = false;
  let skipped = 0;
  const emit = (last: string) => {
    if (!skipping) stream.push(pieces.length === 0 ? last : pieces.join("") + last);
    pieces = [];
    length = 0;
    skipping = false;
  };
  for await (const chunk of chunks) {
    let from = 0;
    for (let nl = chunk.indexOf("\n"); nl !== -1; nl = chunk.indexOf("\n", from)) {
      if (!skipping && length + nl - from > MAX_STREAM_LINE) {
        skipping = true;
        skipped++;
      }
      emit(skipping ? "" : chunk.slice(from, nl));
      from = nl + 1;
    }
    if (skipping || from === chunk.length) continue;
    length += chunk.length - from;
    if (length > MAX_STREAM_LINE) {
      skipping = true;
      skipped++;
      pieces = [];
    } else pieces.push(from === 0 ? chunk : chunk.slice(from));
  }
  if (pieces.length > 0) emit("");
  return skipped;
}

/** The problem of lines dropped for their length: such a file is not the text output it was taken for. */
function longLines(file: string, count: number) {
  return problem(
    "analyze.line_too_long",
    `${count} line(s) longer than ${MAX_STREAM_LINE / 2 ** 20} MiB skipped; command output and logs have no such lines (a binary file, or text without newlines?).`,
    {
      path: file,
      hint: "Pass the text the command printed (its stdout saved to a file), not a binary or a joined blob.",
    },
  );
}

/** A large input of a kind that has no stream, read whole when it is within the cap; null when it is not. */
async function readCapped(input: Extract<Input, { status: "large" | "stream" }>, io: Io): Promise<string | null> {
  if (input.status === "large") return input.size > WHOLE_CAP_BYTES ? null : readWhole(io, input.file);
  const parts: string[] = [];
  let length = 0;
  for await (const chunk of input.chunks()) {
    length += chunk.length;
    if (length > WHOLE_CAP_BYTES) return null; // leaving the loop stops reading standard input
    parts.push(chunk);
  }
  return parts.join("");
}

function tooLarge(file: string, kind: AnalyzeKindName): AnalyzedInput {
  const mib = WHOLE_CAP_BYTES / 1024 / 1024;
  return {
    file,
    kind,
    data: null,
    findings: [],
    problems: [
      problem("analyze.too_large", `${file} is over ${mib} MiB; ${kind} captures are read whole up to ${mib} MiB.`, {
        path: file,
        hint: "Cut the capture to the part that matters (e.g. with head or grep) and analyse that.",
      }),
    ],
  };
}

/**
 * An input with an entry that parsed nothing (unreadable, of no known kind, or not the kind --kind forced), or that
 * was read in part (facts of its kind missing from the capture): not all checked.
 */
function notRead(entries: readonly AnalyzedInput[]): boolean {
  return entries.some((e) => entryNotRead(e) || readInPart(e));
}

/**
 * 2 when some input, or one part of a pasted session, could not be read or recognised (its problem says why: a CI step must not pass on a missing or
 * wrong file); else 1 on any error finding (or warning with --strict); else 0.
 */
function exitCode(inputs: readonly AnalyzedInput[][], strict: boolean): number {
  if (inputs.some(notRead)) return 2;
  return exitCodeFor(
    inputs.flatMap((entries) => entries.flatMap((e) => e.findings)),
    strict,
  );
}

/** The node model named by --example/--root/--snapshot (only when one is given: never the live host by default). */
async function contextOf(values: OptionValues): Promise<AnalyzeContext> {
  const ctx: AnalyzeContext = {};
  if (["example", "root", "snapshot"].some((k) => str(values, k) !== undefined)) {
    ctx.inventory = await inventoryFromFlags(values);
  }
  const expect = num(values, "expect");
  const gpus = num(values, "expect-gpus");
  if (expect !== undefined) {
    // 0 or -5 GB/s is met by any run: the judgement would be a PASS that judged nothing.
    if (!(expect > 0))
      throw new UsageError(`--expect expects GB/s above 0 (e.g. 180 for 8×A100 + 8×HDR), got ${expect}.`);
    ctx.expectGBps = expect;
  }
  if (gpus !== undefined) {
    if (!Number.isInteger(gpus) || gpus < 0) throw new UsageError(`--expect-gpus expects a whole number, got ${gpus}.`);
    ctx.expectGpus = gpus;
  }
  const lineRate = num(values, "line-rate");
  if (lineRate !== undefined) {
    if (!(lineRate > 0 && lineRate <= 3200))
      throw new UsageError(`--line-rate expects the NICs' port rate in Gb/s (e.g. 200 or 400), got ${lineRate}.`);
    ctx.lineRateGbps = lineRate;
  }
  return ctx;
}

export const command: CommandSpec = {
  name: "analyze",
  summary: "Recognise pasted/captured outputs (show_gids, ibv_devinfo, nvidia-smi, …) and diagnose them",
  usage:
    "kube-rdma analyze FILE… [--kind K] [--expect GBps] [--expect-gpus N] [--line-rate Gbps] [-o text|json|yaml|html]",
  description:
    "Each FILE (or - for standard input) is recognised from its first 64 KiB and parsed: show_gids, ibv_devinfo " +
    "[-v], ibstat/ibstatus, ibdev2netdev [-v], nvidia-smi, nvidia-smi topo -m, and the other kinds listed under " +
    "--kind. Captures may be indented, have tabs expanded to spaces, start with a shell prompt line or be cut off: " +
    "what can be read is read and the rest is reported as a problem. Findings name the device and the fix: a RoCE " +
    "HCA without a RoCE v2 GID, a RoCE v2 IPv4 GID at a different index than on the other HCAs (one " +
    "NCCL_IB_GID_INDEX cannot work), ports not ACTIVE or at a lower rate, GPUs with no NIC at PIX/PXB (GPUDirect " +
    "RDMA off by NCCL's default), ERR! cells and uncorrectable ECC errors.\n\n" +
    "Exit code: 0 no error finding, 1 an error finding (or a warning with --strict), 2 when an input, or one " +
    "command's part of a pasted session, could not be read or recognised (also as the kind --kind names). Inputs over 8 MiB are never held whole when the kind can stream: an NCCL log file is read in " +
    "64 KiB chunks, from 64 MiB on in one part per core, in parallel (the report is the same as one pass).\n\n" +
    "A pasted session with several commands (`$ ofed_info -s`, `nvidia-smi`, `show_gids` with notes " +
    "between them) is cut at each command line and gives one entry per command, named FILE:LINE (command).\n\n" +
    "With --example, --root or --snapshot the captures are judged against that node's model: its management " +
    "HCA is named instead of guessed, and NCCL logs are checked against its HCAs.\n\n" +
    `How to capture each kind:\n${captureHintLines().join("\n")}`,
  options: [
    REPORT_OUTPUT_OPTION,
    STRICT_OPTION,
    {
      name: "kind",
      type: "string",
      valueName: "K",
      choices: ANALYZERS.map((a) => a.kind),
      description: "Parse every input as this kind instead of detecting it",
    },
    { name: "expect", type: "number", valueName: "GBps", description: "Expected nccl-tests bus bandwidth (GB/s)" },
    { name: "expect-gpus", type: "number", valueName: "N", description: "Expected GPUs in an nvidia-smi capture" },
    {
      name: "line-rate",
      type: "number",
      valueName: "Gbps",
      description: "The NICs' port rate for perftest bandwidth runs (ib_write_bw …)",
    },
    ...SOURCE_OPTIONS,
  ],
  examples: [
    ["kube-rdma analyze gids.txt", "diagnose a pasted show_gids table"],
    ["show_gids | kube-rdma analyze -", "read standard input"],
    ["kube-rdma analyze nvidia-smi.txt --expect-gpus 8", "check that all 8 GPUs are there and healthy"],
    ["kube-rdma analyze write-bw-*.txt --line-rate 200", "each NIC's ib_write_bw against its 200 Gb/s line rate"],
    ["kube-rdma analyze topo.txt devinfo.txt -o json", "several captures, JSON for other tools"],
    [
      "kube-rdma analyze gids.txt --snapshot node1.json",
      "judge against the node's model (its management NIC is left out of the GID index and rate comparisons)",
    ],
  ],
  async run({ values, positionals, io }) {
    if (positionals.length === 0) {
      throw new UsageError("no input given.", "Pass one or more capture files, or - for standard input.");
    }
    if (str(values, "snapshot") === "-" && positionals.includes("-")) {
      throw new UsageError(
        "standard input cannot be both the capture (-) and the snapshot (--snapshot -).",
        "Save one of them to a file: e.g. kube-rdma analyze job.log --snapshot - < node.json",
      );
    }
    const ctx = await contextOf(values);
    const kind = str(values, "kind");
    const inputs: AnalyzedInput[][] = [];
    const files = positionals.filter((f, i) => f !== "-" || positionals.indexOf("-") === i);
    for (const file of files) {
      const input = await readInput(file, io, { largeBytes: LARGE_BYTES, headBytes: DETECT_HEAD_BYTES });
      inputs.push(await analyzeInputs(input, { ctx, kind, io }));
    }
    const entries = inputs.flat();
    // Said in the first entry, so that text, JSON and the exit code all carry it.
    if (entries[0]) entries[0].findings.push(...uncheckedExpectations(entries, ctx));
    io.stdout(await renderReport(ANALYZE_REPORT, entries, str(values, "output") ?? "text", { width: textWidth(io) }));
    // One part of a pasted session that could not be analysed is not analysed: named, and exit 2, like a whole file.
    const unread = entries.filter(entryNotRead).map((e) => e.file);
    if (unread.length > 0) {
      io.stderr(
        `kube-rdma analyze: could not read or recognise ${unread.join(", ")} (see the problem above); exit 2.\n`,
      );
    }
    const part = entries.filter(readInPart).map((e) => `${e.file} (${(e.unread ?? []).join(", ")} not in it)`);
    if (part.length > 0) io.stderr(`kube-rdma analyze: read in part: ${part.join(", ")}; exit 2.\n`);
    return exitCode(inputs, values.strict === true);
  },
};

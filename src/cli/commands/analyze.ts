import { DETECT_HEAD_BYTES } from "../../analyze/detect.js";
import {
  ANALYZERS,
  type AnalyzedInput,
  analyzeText,
  analyzeTranscript,
  chooseAnalyzer,
  entryOf,
  finishStream,
  unknownEntry,
} from "../../analyze/index.js";
import { renderAnalyzeText, structuredEntries } from "../../analyze/render.js";
import type { AnalyzeContext, AnalyzerKind } from "../../analyze/types.js";
import { exitCodeFor } from "../../core/finding.js";
import { problem } from "../../core/result.js";
import { textWidth } from "../../report/findings-text.js";
import { renderStructured } from "../../report/structured.js";
import { type Input, readInput, readProblem, readWhole } from "../input.js";
import { OUTPUT_OPTION, SOURCE_OPTIONS, STRICT_OPTION } from "../shared-options.js";
import { inventoryFromFlags } from "../source.js";
import { type CommandSpec, type Io, num, type OptionValues, str, UsageError } from "../spec.js";

/** Inputs above this size go through the analyser's line stream when it has one. */
const LARGE_BYTES = 8 * 1024 * 1024;
/** Without a stream, a large input is read whole up to this size. */
const WHOLE_CAP_BYTES = 256 * 1024 * 1024;

type InputOptions = { ctx: AnalyzeContext; kind: string | undefined; io: Io; analyzers?: readonly AnalyzerKind[] };

/** Analyses one read input: a pasted session is cut into one entry per command (`analyzeTranscript`). */
export async function analyzeInputs(input: Input, opts: InputOptions): Promise<AnalyzedInput[]> {
  if (input.status !== "whole") return [await analyzeInput(input, opts)];
  const analyzers = opts.analyzers ?? ANALYZERS;
  return analyzeTranscript(input.file, input.text, opts.ctx, { analyzers, ...(opts.kind ? { kind: opts.kind } : {}) });
}

/** Analyses one read input: whole text, or a large file through the kind's line stream when it has one. */
export async function analyzeInput(input: Input, opts: InputOptions): Promise<AnalyzedInput> {
  const { ctx, kind, io } = opts;
  const analyzers = opts.analyzers ?? ANALYZERS;
  if (input.status === "unreadable") {
    return { file: input.file, kind: "unknown", data: null, findings: [], problems: [input.problem] };
  }
  if (input.status === "whole") {
    return analyzeText(input.file, input.text, ctx, { analyzers, ...(kind ? { kind } : {}) });
  }
  const analyzer = chooseAnalyzer(input.head, kind, analyzers);
  if (!analyzer) return unknownEntry(input.file, analyzers);
  try {
    if (analyzer.analyzeFile) return entryOf(input.file, analyzer.kind, await analyzer.analyzeFile(input.path, ctx));
    if (analyzer.createStream) {
      const stream = analyzer.createStream(ctx);
      if (stream.write) for await (const chunk of input.chunks()) stream.write(chunk);
      else for await (const line of input.lines()) stream.push(line);
      return finishStream(input.file, analyzer, stream);
    }
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
  if (input.size > WHOLE_CAP_BYTES) {
    const mib = Math.round(input.size / 1024 / 1024);
    return {
      file: input.file,
      kind: analyzer.kind,
      data: null,
      findings: [],
      problems: [
        problem(
          "analyze.too_large",
          `${input.file} is ${mib} MiB; ${analyzer.kind} captures are read whole up to 256 MiB.`,
          {
            path: input.file,
            hint: "Cut the capture to the part that matters (e.g. with head or grep) and analyse that.",
          },
        ),
      ],
    };
  }
  return analyzeText(input.file, await readWhole(io, input.file), ctx, { kind: analyzer.kind, analyzers });
}

/** An input whose every entry parsed nothing: unreadable, of no known kind, or not the kind --kind forced. */
function notRead(entries: readonly AnalyzedInput[]): boolean {
  return entries.every((e) => e.data === null);
}

/**
 * 2 when some input could not be read or recognised (its problem says why: a CI step must not pass on a missing or
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
  if (expect !== undefined) ctx.expectGBps = expect;
  if (gpus !== undefined) {
    if (!Number.isInteger(gpus) || gpus < 0) throw new UsageError(`--expect-gpus expects a whole number, got ${gpus}.`);
    ctx.expectGpus = gpus;
  }
  return ctx;
}

export const command: CommandSpec = {
  name: "analyze",
  summary: "Recognise pasted/captured outputs (show_gids, ibv_devinfo, nvidia-smi, …) and diagnose them",
  usage: "kube-rdma analyze FILE… [--kind K] [--expect GBps] [--expect-gpus N] [-o text|json|yaml]",
  description:
    "Each FILE (or - for standard input) is recognised from its first 64 KiB and parsed: show_gids, ibv_devinfo " +
    "[-v], ibstat/ibstatus, ibdev2netdev [-v], nvidia-smi, nvidia-smi topo -m, and the other kinds listed under " +
    "--kind. Captures may be indented, have tabs expanded to spaces, start with a shell prompt line or be cut off: " +
    "what can be read is read and the rest is reported as a problem. Findings name the device and the fix: a RoCE " +
    "HCA without a RoCE v2 GID, a RoCE v2 IPv4 GID at a different index than on the other HCAs (one " +
    "NCCL_IB_GID_INDEX cannot work), ports not ACTIVE or at a lower rate, GPUs with no NIC at PIX/PXB (GPUDirect " +
    "RDMA off by NCCL's default), ERR! cells and uncorrectable ECC errors.\n\n" +
    "Exit code: 0 no error finding, 1 an error finding (or a warning with --strict), 2 when an input could not be " +
    "read or recognised (also as the kind --kind names). Inputs over 8 MiB are never held whole when the kind can stream: an NCCL log file is read in " +
    "64 KiB chunks, from 64 MiB on in one part per core, in parallel (the report is the same as one pass).\n\n" +
    "A pasted session with several commands (`$ ofed_info -s`, `nvidia-smi`, `show_gids` with notes " +
    "between them) is cut at each command line and gives one entry per command, named FILE:LINE (command).\n\n" +
    "With --example, --root or --snapshot the captures are judged against that node's model: its management " +
    "HCA is named instead of guessed, and NCCL logs are checked against its HCAs.",
  options: [
    OUTPUT_OPTION,
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
    ...SOURCE_OPTIONS,
  ],
  examples: [
    ["kube-rdma analyze gids.txt", "diagnose a pasted show_gids table"],
    ["show_gids | kube-rdma analyze -", "read standard input"],
    ["kube-rdma analyze nvidia-smi.txt --expect-gpus 8", "check that all 8 GPUs are there and healthy"],
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
    const ctx = await contextOf(values);
    const kind = str(values, "kind");
    const inputs: AnalyzedInput[][] = [];
    const files = positionals.filter((f, i) => f !== "-" || positionals.indexOf("-") === i);
    for (const file of files) {
      const input = await readInput(file, io, { largeBytes: LARGE_BYTES, headBytes: DETECT_HEAD_BYTES });
      inputs.push(await analyzeInputs(input, { ctx, kind, io }));
    }
    const entries = inputs.flat();
    const format = str(values, "output") ?? "text";
    io.stdout(
      format === "text"
        ? renderAnalyzeText(entries, textWidth(io))
        : renderStructured(format, structuredEntries(entries)),
    );
    const unread = inputs.filter(notRead).map((e) => e[0]?.file ?? "?");
    if (unread.length > 0) {
      io.stderr(
        `kube-rdma analyze: could not read or recognise ${unread.join(", ")} (see the problem above); exit 2.\n`,
      );
    }
    return exitCode(inputs, values.strict === true);
  },
};

import type { AnalyzeContext, AnalyzeOutcome, AnalyzerKind } from "../../analyze/types.js";
import { type Finding, makeFinding, withConfidence } from "../../core/finding.js";
import { type Problem, problem } from "../../core/result.js";
import { createNcclLogStream } from "../log/analyzer.js";
import type { NcclLogData, NcclLogVerdict } from "../log/report.js";
import { keep, skipPrefixes } from "../log/scan.js";
import { NCCL_TESTS_FINDINGS as F } from "./catalogue.js";
import { TYPE_BYTES } from "./infer.js";
import { judgeRun, type RunSummary, rankLinesCount } from "./judge.js";
import { PROGRAM_CRASH, withoutRankTags, withoutSourceLocations } from "./line-shapes.js";
import { parsePerfJson } from "./parse-json.js";
import { PerfTextParser } from "./parse-text.js";
import type { PerfRow, PerfRun } from "./types.js";

/** `analyze` data for kind `nccl_tests` (design.md contract: the judged run's fields at the top, every run in `runs`). */
export type NcclTestsData = RunSummary & {
  runs: RunSummary[];
  /** The NCCL log verdict when the same input held NCCL INFO lines (a run.log). */
  log: Pick<NcclLogData, "verdict" | "ncclVersions" | "network" | "connections" | "evidence"> | null;
};

/** The context may carry the verdict of an NCCL log analysed alongside (`analyze run.log`). */
export type NcclTestsContext = AnalyzeContext & { logVerdict?: NcclLogVerdict };

const MAX_JSON_BYTES = 64 * 2 ** 20;

type Judged = ReturnType<typeof judgeRun>;

/**
 * Runs listed with their rows. Later runs of a long soak (thousands of all_reduce_perf runs back to back) are judged
 * as soon as they end and listed without their rows (`rowsOmitted`), so memory stays bounded whatever the input size.
 */
/**
 * nccl-tests result rows as common.cu and util.cu print them: size, count, a type, then a redop and a root when the
 * collective has them (`sum -1`, `none 0`), then time, algbw, busbw and #wrong (or the old error value, or `N/A`
 * without validation) for out-of-place and again for in-place (https://github.com/NVIDIA/nccl-tests src/common.cu).
 */
const TABLE_ROW =
  /^\s*\d+\s+\d+\s+(?:u?int(?:8|32|64)|half|float(?:16|32|64)?|bfloat16|double|char|int|f8e[45]m[23])\s+(?:(?:sum|prod|max|min|avg|premulsum|mulsum|none|all)\s+)?(?:-?\d+\s+)?(?:[\d.e+-]+|N\/A)(?:\s+(?:[\d.e+-]+|N\/A)){3,}\s*$/;

/** A line without the launcher's rank tags before and inside it (Open MPI's `[1,0]<stdout>:`, `[0]`). */
const untagged = (line: string): string => withoutRankTags(line).replace(/^\[\d+,\d+\]<std(?:out|err)>:/, "");

/** How many lines of `head` are nccl-tests result rows (a launcher's tag or indentation before them allowed). */
function tableRows(head: string): number {
  let n = 0;
  for (const line of head.split("\n")) if (TABLE_ROW.test(untagged(line))) n++;
  return n;
}

/** A row's type word between its count and its figures, anywhere in a text. */
const ROW_TYPE =
  /\d\s+(?:u?int(?:8|32|64)|half|float(?:16|32|64)?|bfloat16|double|char|int|f8e[45]m[23])\s+(?:[a-z]+\s+)?-?\d/;

/** The numbers of a row: size, count, type, redop and root when present, then out-of-place time (µs), algbw, busbw. */
const ROW_NUMBERS =
  /^\s*(\d+)\s+(\d+)\s+([a-z][a-z0-9]*)\s+(?:[a-z]+\s+)?(?:-?\d+\s+)?(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+\d+(?:\.\d+)?(?:\s|$)/;

/**
 * Rows (a launcher's tag or indentation before them allowed) whose own numbers obey nccl-tests' arithmetic
 * (src/common.cu): the size is a whole multiple of count × the type's size (1, or the rank count for the gathering
 * collectives), and algbw is the size over the time — bytes / µs / 1e3 in GB/s, to the printed rounding. Only a row
 * with a measurable algbw (≥ 0.1 GB/s) counts: zeros agree with anything. No other tool's line holds numbers that
 * agree this way by chance.
 */
export function arithmeticRows(head: string): number {
  // Most texts hold no row at all: one search for a row's type between numbers spares the line-by-line reading.
  if (!ROW_TYPE.test(head)) return 0;
  let n = 0;
  for (const raw of head.split("\n")) {
    const line = untagged(raw.slice(skipPrefixes(raw, 0, raw.length)));
    const m = TABLE_ROW.test(line) ? ROW_NUMBERS.exec(line) : null;
    if (m === null) continue;
    const [bytes, count, typeSize, time, algbw] = [+m[1]!, +m[2]!, TYPE_BYTES[m[3]!], +m[4]!, +m[5]!];
    if (typeSize === undefined || count === 0 || time === 0 || algbw < 0.1) continue;
    if (bytes % (count * typeSize) !== 0) continue;
    if (Math.abs(bytes / time / 1e3 - algbw) <= 0.01 + 0.01 * algbw) n++;
  }
  return n;
}

export const MAX_RUNS_WITH_ROWS = 64;

function judgeContext(ctx: NcclTestsContext, logVerdict: NcclLogVerdict | undefined, log?: NcclLogData | null) {
  return {
    ...(ctx.inventory ? { inventory: ctx.inventory } : {}),
    ...(ctx.expectGBps !== undefined ? { expectGBps: ctx.expectGBps } : {}),
    ...(logVerdict ? { logVerdict } : {}),
    ...(log?.nics ? { logNics: log.nics } : {}),
  };
}

function noRows(problems: Problem[]): AnalyzeOutcome & { data: null } {
  problems.push(
    problem(
      "nccl_tests.no_rows",
      "No result rows: expected nccl-tests output (`#  size  count  type …` then one row per size).",
      {
        hint: "Capture the whole stdout of all_reduce_perf (or another *_perf binary), or its -J JSON file.",
      },
    ),
  );
  return { data: null, findings: [], problems };
}

/**
 * nccl-tests printed its header — the thread line and one `#  Rank N … on HOST device D` line per rank — and no
 * result row: the classic hang or early death (NCCL init blocked on a peer, a rank that died). What the header says
 * (ranks, hosts, devices) is kept; the next look is the NCCL log of the same run.
 */
function headerOnlyFinding(run: PerfRun, log: NcclLogData | null): Finding {
  const hosts = [...new Set(run.ranks.map((r) => r.host).filter((h) => h !== ""))];
  const gpus = [...new Set(run.ranks.map((r) => r.gpu).filter(Boolean))];
  return makeFinding(F, "NCCL_TESTS_NO_RESULTS", "run", {
    program: run.program,
    ranks: rankLinesCount(run) || (run.nThread && run.nGpus ? run.nThread * run.nGpus : null),
    hosts,
    gpus,
    log: log && log.verdict !== "unknown" ? log.verdict : null,
  });
}

/** Runs that end while the input is still read: the first ones held for the end, later ones judged at once. */
class RunCollector {
  readonly held: PerfRun[] = [];
  readonly early: Judged[] = [];
  /** The early run with the most ranks (the latest of equals), kept with its rows for the top of the report. */
  earlyMain: Judged | null = null;
  omittedRows = 0;

  constructor(private readonly ctx: NcclTestsContext) {}

  /** The last run that printed its header (ranks, thread line) and no result row: a hang or an early death. */
  headerOnly: PerfRun | null = null;

  add(run: PerfRun): void {
    if (run.rows.length === 0 && run.avgBusBw === null) {
      // The header (banner, thread line, rank lines) and no row: a run that produced no results. (A footer and no row
      // is a run whose rows were left out, footers grepped from several logs: its figure is a run's.)
      this.headerOnly = run;
      return;
    }
    if (this.held.length < MAX_RUNS_WITH_ROWS) {
      this.held.push(run);
      return;
    }
    const j = judgeRun(run, judgeContext(this.ctx, this.ctx.logVerdict));
    if (!this.earlyMain || (j.summary.nranks ?? 0) >= (this.earlyMain.summary.nranks ?? 0)) this.earlyMain = j;
    this.omittedRows += j.summary.rows.length;
    // Host and GPU names are slices of the input's lines: copies, shared between runs, let those lines go.
    const summary = {
      ...j.summary,
      hosts: j.summary.hosts.map((h) => this.intern(h)),
      gpus: j.summary.gpus.map((g) => this.intern(g)),
      rows: [],
      rowsOmitted: j.summary.rows.length,
    };
    this.early.push({ ...j, summary });
  }

  private readonly names = new Map<string, string>();

  private intern(name: string): string {
    let copy = this.names.get(name);
    if (copy === undefined) {
      copy = keep(name);
      if (this.names.size < 100_000) this.names.set(copy, copy);
    }
    return copy;
  }
}

function outcome(
  collected: RunCollector,
  problems: Problem[],
  ctx: NcclTestsContext,
  log: NcclLogData | null,
  logFindings: Finding[] = [],
): AnalyzeOutcome & { data: NcclTestsData | null } {
  // A header and no row: judged like any run (its ranks, hosts and GPUs are the data), with the hang said first.
  const headerOnly = collected.held.length === 0 && collected.early.length === 0 ? collected.headerOnly : null;
  if (headerOnly) collected.held.push(headerOnly);
  if (collected.held.length === 0) return noRows(problems);
  const logVerdict = ctx.logVerdict ?? (log && log.verdict !== "unknown" ? log.verdict : undefined);
  const judged = [
    ...copiesFilled(collected.held).map((r) => {
      const j = judgeRun(r, judgeContext(ctx, logVerdict, log));
      return { ...j, findings: withConfidence(j.findings, partialityOf(r, j.summary)) };
    }),
    ...collected.early,
  ];
  // The run judged at the top: of the runs that printed rows (where any did; a footer alone is another run's average,
  // quoted), the latest that no other is known to outnumber in ranks (a run whose count the output does not say is not
  // one with fewer: a report's tables of several tests, the last one's count unstated).
  const measured = judged.filter((j) => j.summary.rows.length > 0 || (j.summary.rowsOmitted ?? 0) > 0);
  const candidates = measured.length > 0 ? measured : judged;
  const most = Math.max(0, ...candidates.map((j) => j.summary.nranks ?? 0));
  let main = candidates[0]!;
  for (const j of candidates) if (j.summary.nranks === null || j.summary.nranks >= most) main = j;
  if (main.summary.rowsOmitted !== undefined && collected.earlyMain) main = collected.earlyMain;
  const findings: Finding[] = [
    // A run that printed no header at all (its failure lines are all there is) is said by its failure alone.
    ...(headerOnly && (headerOnly.nThread !== null || headerOnly.ranks.length > 0 || headerOnly.failures.length === 0)
      ? [headerOnlyFinding(headerOnly, log)]
      : []),
    ...(judged.length === 1
      ? main.findings
      : judged.flatMap((j, i) => j.findings.map((f) => ({ ...f, subject: `run ${i + 1}` })))),
  ];
  if (collected.early.length > 0) {
    problems.push(
      problem(
        "nccl_tests.rows_omitted",
        `${judged.length} runs: rows are listed for the first ${MAX_RUNS_WITH_ROWS}; the other ${collected.early.length} were judged as they ended and are listed without their ${collected.omittedRows} rows.`,
      ),
    );
  }
  const { rowsOmitted: _omitted, ...top } = main.summary;
  const data: NcclTestsData = {
    ...top,
    runs: judged.map((j) => j.summary),
    log:
      log && log.lines > 0 && log.verdict !== "unknown"
        ? {
            verdict: log.verdict,
            ncclVersions: log.ncclVersions,
            network: log.network,
            connections: log.connections,
            evidence: log.evidence,
          }
        : null,
  };
  // The NCCL lines of a run.log say why: their findings (cause and fix of each WARN, the verdict) come along; without
  // a verdict the WARNs still come, as the warnings they are.
  const warns = logFindings.filter((f) => f.code.startsWith("NCCL_WARN_"));
  return { data, findings: [...findings, ...(data.log ? logFindings : warns)], problems };
}

/** Whether two runs printed the same rows: one output shown twice, not two runs that measured alike to the digit. */
function sameRows(a: readonly PerfRow[], b: readonly PerfRow[]): boolean {
  const key = (r: PerfRow) =>
    `${r.bytes} ${r.outOfPlace?.timeUs} ${r.outOfPlace?.busbw} ${r.inPlace?.timeUs} ${r.inPlace?.busbw}`;
  return a.length > 0 && a.length === b.length && a.every((r, i) => key(r) === key(b[i]!));
}

/**
 * A run printed twice (a page that shows one code block twice, its seam cutting the copy's header): the copy is the
 * run before it, so what its own lines do not say (the program, the rank lines) is that run's.
 */
function copiesFilled(runs: readonly PerfRun[]): PerfRun[] {
  return runs.map((r, i) => {
    const prev = runs[i - 1];
    if (!prev || !sameRows(prev.rows, r.rows)) return r;
    return {
      ...r,
      program: r.program ?? prev.program,
      programSource: r.program ? r.programSource : prev.programSource,
      ranks: r.ranks.length > 0 ? r.ranks : prev.ranks,
      nThread: r.nThread ?? prev.nThread,
      nGpus: r.nGpus ?? prev.nGpus,
      commandRanks: r.commandRanks ?? prev.commandRanks,
    };
  });
}

/** Why a run's findings are less than certain: the run stopped early, or facts came from the table, not the header. */
function partialityOf(run: PerfRun, s: RunSummary): string[] {
  const why: string[] = [];
  if (run.incomplete) why.push("the run stopped before its footer (crashed or cut): only the rows printed count");
  if (s.collectiveSource === "ratio") why.push("the collective was inferred from the table (no command line)");
  if (s.collectiveSource === "ratio_and_text")
    why.push("the collective was inferred from the table and the words around it (no command line)");
  if (s.collectiveSource === "text") why.push("the collective was taken from the words around the output (no row)");
  if (s.nranksSource === "table") why.push("the rank count was inferred from the table (no rank lines)");
  return why;
}

/** Streaming nccl-tests analyser; NCCL INFO lines in the same input feed the log analyser for the explanation. */
export function createNcclTestsStream(ctx: NcclTestsContext = {}) {
  const collected = new RunCollector(ctx);
  const parser = new PerfTextParser({ onRun: (run) => collected.add(run), quoted: ctx.inlineQuotes === true });
  const log = createNcclLogStream(ctx);
  let json: string[] | null = null;
  let jsonBytes = 0;
  let first = true;
  return {
    push(line: string) {
      if (first && line.trim() !== "") {
        first = false;
        if (line.trimStart().startsWith("{")) json = [];
      }
      if (json) {
        jsonBytes += line.length + 1;
        if (jsonBytes <= MAX_JSON_BYTES) json.push(line);
        return;
      }
      if (!parser.push(line)) log.push(line);
    },
    end(): AnalyzeOutcome & { data: NcclTestsData | null } {
      if (json) {
        if (jsonBytes > MAX_JSON_BYTES) {
          return {
            data: null,
            findings: [],
            problems: [
              problem("nccl_tests.too_large", `JSON over ${MAX_JSON_BYTES} bytes: not an nccl-tests -J report.`),
            ],
          };
        }
        const r = parsePerfJson(json.join("\n"));
        const fromJson = new RunCollector(ctx);
        for (const run of r.runs) fromJson.add(run);
        return outcome(fromJson, r.problems, ctx, null);
      }
      parser.end();
      // Result rows are collectives that ran: their communicator was built, whatever the WARNs beside them say.
      const ran = collected.held.some((r) => r.rows.length > 0) || collected.early.length > 0;
      const logResult = log.end(ran ? "nccl_tests_rows" : undefined);
      return outcome(collected, [...parser.problems], ctx, logResult.data, logResult.findings);
    },
  };
}

export function analyzeNcclTests(
  text: string,
  ctx: NcclTestsContext = {},
): AnalyzeOutcome & { data: NcclTestsData | null } {
  const s = createNcclTestsStream(ctx);
  const lines = text.split("\n");
  for (const l of lines) s.push(l);
  return s.end();
}

/**
 * nccl-tests' own failure and set-up lines, as its src/common.h and src/common.cu print them
 * (https://github.com/NVIDIA/nccl-tests/blob/master/src/common.h: `HOST: Test NCCL failure common.cu:LINE '…'`,
 * `Test CUDA failure …`; src/common.cu: `Reducing maxBytes to N due to memory limitation`). Before 2019 the harness
 * printed `NCCL failure common.cu:908 'unhandled cuda error'.` without `Test ` (shape seen at
 * https://github.com/NVIDIA/nccl-tests/issues/6). A run that failed before its header holds nothing else; two such
 * lines (several ranks agree) name nccl-tests, one alone does not — one beside the `*_perf` command line that ran does.
 * So does the line each function on the failed call's way out prints, ` .. host pid N: Test failure common.cu:937`
 * (TESTCHECK in src/common.h).
 */
const FAILURE_VOCABULARY = new RegExp(
  `^(?:\\S+: )?(?:Test )?(?:NCCL|CUDA) failure [\\w./-]+\\.(?:cu|h|cc):\\d+ '|^\\.\\. \\S+ pid \\d+: Test failure [\\w./-]+\\.(?:cu|h|cc):\\d+|^(?:#\\s*)?Reducing maxBytes to \\d+ due to memory limitation|^(?:\\[[\\w.-]+:\\d+\\] )?(?:${PROGRAM_CRASH.source})`,
);

/** An nccl-tests binary as typed, behind a prompt or a launcher (`$ mpirun -np 2 ./build/all_reduce_perf -b 8 …`). */
const PERF_COMMAND =
  /^(?:.{0,80}?[$#>]\s*)?(?:\S+=\S+\s+)*(?:(?:mpirun|mpiexec|srun)\s.*?\s)?(?:\S*\/)?[a-z][a-z_]*_perf(?:_mpi)?(?:\s|$)/;

/**
 * nccl-tests' own failure lines, or the crash of the `*_perf` program typed above them: Open MPI's signal handler
 * (`[host:pid] *** Process received signal ***`, opal/util/stacktrace.c in https://github.com/open-mpi/ompi) or an
 * assertion the program died on (`all_reduce_perf: file.c:177: func: Assertion … failed.`, glibc's __assert_fail).
 */
function failureVocabularyScore(head: string): number {
  let n = 0;
  let command = false;
  for (const line of head.split("\n")) {
    const l = line.trim();
    if (PERF_COMMAND.test(l)) command = true;
    else if (FAILURE_VOCABULARY.test(l) && (++n >= 2 || command || HARNESS_FAILURE.test(l))) return 0.5;
  }
  return 0;
}

/**
 * The harness's own words for a failed check, `<host>: Test CUDA failure common.cu:422 'uncorrectable ECC error
 * encountered'` (TESTCHECK's CUDACHECK and NCCLCHECK in src/common.h of https://github.com/NVIDIA/nccl-tests print
 * `Test` before the failure since 2019): no other program prints them, so one such line names nccl-tests by itself
 * (shape seen in a cluster to-do list committed to a public repository, index-file 60661718270, the one line quoted).
 */
const HARNESS_FAILURE = /^(?:\S+: )?Test (?:NCCL|CUDA) failure [\w./-]+\.(?:cu|h|cc):\d+ '/;

/** nccl-tests' programs by name (`./build/all_reduce_perf`, `all_gather_perf_mpi`). */
const TEST_PROGRAM =
  /\b(?:all_reduce|all_gather|alltoall|broadcast|reduce|reduce_scatter|sendrecv|scatter|gather|hypercube)_perf(?:_mpi)?\b/;

export const ncclTestsAnalyzer: AnalyzerKind = {
  kind: "nccl_tests",
  detect(raw: string): number {
    // An instrumented build's `function(), file.cu:123, ` marks (line-shapes.ts) come off every line first.
    const head = raw.includes("(), ") ? raw.split("\n").map(withoutSourceLocations).join("\n") : raw;
    if (/^\s*\{/.test(head))
      return /"results"\s*:|"nccl_version"\s*:|"alg_bw"|"nccl-tests structured output"/.test(head) ? 0.95 : 0;
    // Line-anchored and `#`-optional: Markdown eats the leading `#` of pasted headers.
    let score = 0;
    if (/^(?:.{0,40}?[:\]>])?\s*(?:#\s*)?nThreads?:? \d+ nGpus:? \d+/m.test(head)) score += 0.5;
    // The banner alone (a run that printed nothing else, or a paste cut after it) names nccl-tests by itself, or
    // rccl-tests (`# rccl-tests version 2.18.3-HEAD:418cd5f rccl-headers=23004 …`, ROCm/rccl-tests src/common.cu); so
    // does the closing line of the same releases (`# Collective test concluded: all_reduce_perf`, a log's tail).
    if (
      /^(?:.{0,40}?[:\]>])?\s*(?:#\s*)?(?:[nr]ccl-tests version \S+ [nr]ccl-headers=|Collective test (?:starting|concluded): \w+_perf)/m.test(
        head,
      )
    )
      score += 0.6;
    if (/^(?:.{0,40}?[:\]>])?\s*(?:#\s*)?(?:size\s+count|bytes\s+N)\s+type/m.test(head)) {
      score += 0.3;
      // The column header under the command that ran one of nccl-tests' programs (src/*.cu of
      // https://github.com/NVIDIA/nccl-tests; rccl-tests builds the same names): a run that printed no row yet.
      if (TEST_PROGRAM.test(head)) score += 0.2;
    }
    // MSCCL++'s test header (microsoft/mscclpp test/mscclpp-test/common.cc): no type column, its own layout; or a
    // table trimmed to `size time algbw busbw`.
    if (/^(?:.{0,40}?[:\]>])?\s*#\s*size\s+(?:count\s+)?time\s+algbw\s+busbw\b/m.test(head)) score += 0.5;
    if (/Avg bus bandwidth|Collective test starting|out-of-place/.test(head)) score += 0.15;
    // Footers alone, several (grepped from one log per host): nccl-tests' own line, `# Avg bus bandwidth    : %g`
    // (src/common.cu, https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu).
    // Or one, under the command that ran one of its programs (a post that kept only the footer of its run, shape seen
    // in a blog draft committed to a public repository, index-file 49242434181).
    const footers = head.match(/^(?:.{0,60}?[:\]>])?\s*(?:#\s*)?Avg bus bandwidth\s*:\s*\d/gm)?.length ?? 0;
    if (footers >= 2 || (footers === 1 && TEST_PROGRAM.test(head))) score += 0.4;
    // The one-line JSON report a JSON-output build prints in place of its table names itself.
    if (/^\{"identifier":\s*"nccl-tests structured output"/m.test(head)) score += 0.6;
    if (/^(?:.{0,40}?[:\]>])?\s*(?:#\s*)?Rank\s+\d+\s.*\b(?:on\s+\S+\s+device|uses device)\s+\d+/m.test(head)) {
      score += 0.2;
      // `#  Rank  0 Group  0 Pid  71 on gpu-a device  0 [0000:1b:00] …`, nccl-tests' own rank line (src/common.cu),
      // under the command that ran one of its programs: a run that hung after its banner (shape seen at
      // https://github.com/NVIDIA/nccl/issues/2385, the rank lines quoted with NCCL's lines of the hang beside them).
      if (/^\s*(?:#\s*)?Rank\s+\d+\s+Group\s+\d+\s+Pid\s+\d+\s+on\s/m.test(head) && TEST_PROGRAM.test(head))
        score += 0.4;
    }
    if (/^\s*\d+\s+\d+\s+[a-z][a-z0-9]*\s+(?:\S+\s+){4,}\S+\s*$/m.test(head)) score += 0.2;
    // Rows with no header at all (a paste of the table's body): three rows in nccl-tests' own layout say it.
    if (tableRows(head) >= 3) score += 0.4;
    // Two rows whose numbers obey the table's own arithmetic say it too, behind any prefix (two tail rows kept from
    // a launcher-tagged log, shape seen at https://github.com/skypilot-org/skypilot/pull/8019).
    else if (arithmeticRows(head) >= 2) score += 0.5;
    score += failureVocabularyScore(head);
    return Math.min(score, 0.95);
  },
  analyze: (text, ctx) => analyzeNcclTests(text, ctx),
  createStream: (ctx) => createNcclTestsStream(ctx),
};

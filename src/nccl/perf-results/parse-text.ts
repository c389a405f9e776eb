import type { Problem } from "../../core/result.js";
import { skipPrefixes } from "../log/scan.js";
import { commentedRow, commentLine, strippedHeader } from "./comment-lines.js";
import { lanesOf, splitInterleaved } from "./interleaved.js";
import {
  collectivesNamedIn,
  failureLine,
  NUMBERED_ITEM,
  ROW_START,
  sideBySide,
  toldInProse,
  withoutRankTags,
} from "./line-shapes.js";
import { structuredRows } from "./parse-json.js";
import { badRowProblem, badRowsProblem, unfinishedProblem } from "./parse-problems.js";
import { DEFAULT_LAYOUT, layoutOf, type RowLayout, RowPieces, typedRow, untypedRow } from "./rows.js";
import { programTyped, TypedCommand } from "./typed-command.js";
import { emptyRun, type PerfRow, type PerfRun } from "./types.js";

/** Slurm's `--cpu-bind=verbose` line for one task: its global task number (types.ts PerfRun.launcherTasks). */
const SLURM_TASK_BINDING = /^cpu[-_]bind(?:_\w+)?=\S+ - \S+, task +(\d+) +\d+ \[\d+\]: mask /;

/** The task count when the numbers run 0…n−1 with none missing, else null. */
function wholeTaskList(tasks: ReadonlySet<number>): number | null {
  let top = -1;
  for (const t of tasks) if (t > top) top = t;
  return top + 1 === tasks.size ? tasks.size : null;
}

/** Line-at-a-time parser of `*_perf` stdout; several runs, duplicated headers and launcher prefixes allowed. */
export class PerfTextParser {
  readonly runs: PerfRun[] = [];
  readonly problems: Problem[] = [];
  private run: PerfRun = emptyRun();
  private lastHeader = new Map<string, string>();
  /** Every `# Avg bus bandwidth` of the run, in order (processes that ran alone each print their own). */
  private avgs: number[] = [];
  /** What the last column header said of the rows under it (rows.ts). */
  private layout: Readonly<RowLayout> = DEFAULT_LAYOUT;
  /** Whether a column header said what the columns are (rows pasted without one are read by their values). */
  private columnsSeen = false;
  /** NCCL 1.x's own tests print no footer: a run of theirs without one is whole. */
  private legacy = false;
  /** The command typed so far when the line before ended in `\` (a continuation), else null. */
  private readonly command = new TypedCommand();
  private lineNo = 0;
  /** A row NCCL's own lines broke into pieces (splitRowPiece). */
  private readonly pieces = new RowPieces();
  private seenRanks = new Set<number>();
  private badRows = 0;
  /** Task numbers the launcher's binding lines named since the last run began (SLURM_TASK_BINDING). */
  private tasks = new Set<number>();
  tableLines = 0;

  /**
   * With `onRun`, each complete run is handed over as soon as the next one starts (and at `end`) instead of being
   * kept in `runs`: a log of thousands of runs back to back is then never held whole.
   */
  /** `quoted`: the lines are a page's inline quotes, where a command shows no launcher even where one ran it. */
  constructor(private readonly opts: { onRun?: (run: PerfRun) => void; quoted?: boolean } = {}) {}

  /** Right halves of side-by-side lines with their line numbers, read as the next run once the pairs end. */
  private right: [number, string][] = [];

  /** Returns true when the line belonged to nccl-tests output (others may be NCCL log lines). */
  push(input: string): boolean {
    const pair = sideBySide(input);
    if (!pair) {
      this.replayRight();
      return this.pushOne(input);
    }
    this.right.push([this.lineNo + 1, pair[1]]);
    return this.pushOne(pair[0]);
  }

  /** Two outputs pasted side by side (`before | after`) are two runs: the left one, then the right one. */
  private replayRight(): void {
    if (this.right.length === 0) return;
    const pending = this.right;
    this.right = [];
    const lineNo = this.lineNo;
    this.newRun();
    for (const [n, text] of pending) {
      this.lineNo = n - 1;
      this.pushOne(text);
    }
    this.lineNo = lineNo;
  }

  /**
   * Collectives the words named since the last line of output: text typed after a run that printed nothing more (a
   * hang after its header) introduces the next run as much as it follows the last (`run_nccl_tests.sh -t all_gather`,
   * a wrapper script's own flag, typed before the next attempt).
   */
  private namedSinceOutput: string[] = [];

  private pushOne(input: string): boolean {
    const own = this.pushLine(input);
    if (own) this.namedSinceOutput = [];
    return own;
  }

  private pushLine(input: string): boolean {
    this.lineNo++;
    // Columns a copy turned into tabs (an editor's or terminal's runs of spaces as one tab) are columns all the same.
    const raw = withoutRankTags(input.includes("\t") ? input.replace(/\t/g, " ") : input);
    const end = raw.endsWith("\r") ? raw.length - 1 : raw.length;
    const p = skipPrefixes(raw, 0, end);
    const line = raw.slice(p, end).trim();
    if (line === "") return false;
    if (line.startsWith("#")) {
      this.pieces.reset();
      // A row commented out with the rest of the output (a Makefile or script that keeps a run under `#`): nccl-tests
      // prints no `#` line that starts with two whole numbers (src/common.cu), so such a line is a row.
      const body = line.replace(/^#\s*/, "");
      const d = body.charCodeAt(0);
      if (d >= 48 && d <= 57 && commentedRow(body)) return this.row(body);
      return this.comment(line);
    }
    const c = line.charCodeAt(0);
    // A row starts with two whole numbers (size, count); `1st MCA variable: …` or `7 more processes have sent help
    // message …` from the MPI launcher start with a digit too and are not nccl-tests output.
    if (c >= 48 && c <= 57) {
      const piece = this.layout.untyped ? null : this.splitRowPiece(line);
      if (piece !== null) return piece;
      this.pieces.reset();
      if (ROW_START.test(line)) return this.row(line);
      // A numbered list's item (`1. mpirun -np 16 ./all_reduce_perf …`, attempts told one by one) is its text.
      const item = NUMBERED_ITEM.exec(line);
      if (!item) return false;
      return this.pushText(line.slice(item[0].length));
    }
    return this.pushText(line);
  }

  /** Words of the page (no output line) since the last footer. */
  private wordsSinceFooter = false;

  /** A line of the paste that is no row and no `#` line: a stripped header, a command, a failure, or prose. */
  private pushText(line: string): boolean {
    if (strippedHeader(line)) return this.comment(`# ${line}`);
    const task = SLURM_TASK_BINDING.exec(line);
    if (task) {
      this.tasks.add(Number(task[1]));
      this.run.launcherTasks = wholeTaskList(this.tasks);
      return false;
    }
    if (line.trim() !== "") this.wordsSinceFooter = true;
    if (line.charCodeAt(0) === 123 && line.includes('"nccl-tests structured output"')) return this.structured(line);
    const typed = this.command.next(line);
    if (line.includes("_perf")) {
      // The command line (`mpirun … ./build/all_gather_perf -b 8 …`): before nccl-tests 2.14 the only place that
      // names the program.
      const cmd = programTyped(typed, this.opts.quoted);
      // A command told in prose after a run's rows (`I launch it with `srun … all_reduce_perf -g 1``): it names the
      // run above when no output of its own follows, else the run it introduces.
      if (cmd && this.run.rows.length > 0 && this.run.program === null && toldInProse(typed)) {
        this.told = cmd;
        return false;
      }
      if (cmd) {
        // A run that printed rows or failed is over: a command typed after it starts the next run (a second attempt
        // after a failed one) and names what follows it, never the run above it. A shell trace of another rank
        // written after a banner (`set -x`) belongs to the run still starting.
        // A run that printed its banner and nothing after it (a hang) is over too when the command is typed, not a
        // shell's trace (`+ ./all_reduce_perf …`): another attempt.
        const traced = /^\++ /.test(typed);
        if (this.run.rows.length > 0 || this.run.failures.length > 0 || (this.run.nThread !== null && !traced))
          this.newRun();
        // The banner says what ran; a command line pasted beside it (what was asked) never overrides it.
        if (this.run.programSource !== "banner") {
          this.run.program = cmd.program;
          this.run.programSource = "command_line";
        }
        // Before the banner, the last command typed is the one that ran (an earlier one printed nothing); after it, a
        // command is another rank's shell trace and names nothing new.
        const asked = cmd.ranks;
        if (this.run.nThread === null) this.run.commandRanks = asked ?? this.run.commandRanks;
        else this.run.commandRanks ??= asked;
        return false;
      }
    }
    this.noteNamedCollectives(line);
    if (failureLine(line) && this.run.failures.length < 5)
      this.run.failures.push(line.length > 200 ? `${line.slice(0, 200)}…` : line);
    return false;
  }

  /** Collectives a line of text names in words (not a row, not a `#` line of the output), kept on the run. */
  private noteNamedCollectives(line: string): void {
    for (const name of collectivesNamedIn(line)) {
      if (!this.run.namedInText.includes(name)) this.run.namedInText = [...this.run.namedInText, name].sort();
      if (this.run.rows.length === 0 && !this.run.namedBeforeRows.includes(name))
        this.run.namedBeforeRows = [...this.run.namedBeforeRows, name].sort();
      if (!this.namedSinceOutput.includes(name)) this.namedSinceOutput.push(name);
    }
  }

  /** The one-line JSON report some builds print in place of the table: its rows join the current run. */
  private structured(line: string): boolean {
    let doc: unknown;
    try {
      doc = JSON.parse(line);
    } catch {
      return false;
    }
    const rows = structuredRows(doc);
    if (!rows) return false;
    if (this.run.rows.length > 0) this.newRun();
    for (const r of rows) this.run.rows.push({ ...r, line: this.lineNo });
    return true;
  }

  /** A command told in prose after a run's rows, until it is known which run it names (see pushOne). */
  private told: { program: string; ranks: number | null } | null = null;

  /** The run a told command names takes it as its command line. */
  private takeTold(run: PerfRun): void {
    if (!this.told) return;
    if (run.program === null) {
      run.program = this.told.program;
      run.programSource = "command_line";
    }
    run.commandRanks ??= this.told.ranks;
    this.told = null;
  }

  private newRun(): void {
    this.flush();
    this.run = emptyRun();
    this.tasks = new Set();
    this.run.namedInText = [...this.namedSinceOutput].sort();
    this.run.namedBeforeRows = [...this.run.namedInText];
    this.takeTold(this.run);
    this.avgs = [];
    this.lastHeader = new Map();
    this.seenRanks = new Set();
  }

  private handedOver: PerfRun | null = null;

  private lastFlushed: PerfRun | null = null;

  private flush(): void {
    const r = this.run;
    // Failure lines alone are a run only where nothing else in the paste is one (the harness's lone failure line,
    // quoted: what failed is the finding); after another run they are that paste's noise.
    const failedAlone = r.failures.length > 0 && this.runs.length === 0 && this.lastFlushed === null;
    if (!hasContent(r) && !failedAlone) return;
    this.lastFlushed = r;
    if (r === this.handedOver || this.runs.includes(r)) return;
    this.handedOver = r;
    for (const run of splitInterleaved(r, this.avgs)) {
      if (this.opts.onRun) this.opts.onRun(run);
      else this.runs.push(run);
    }
  }

  /** A header line (`nccl-tests version`, `Collective test starting`, `nThread`): starts a run, or is a duplicate. */
  private header(kind: string, body: string): boolean {
    if (this.run.rows.length === 0 && this.lastHeader.get(kind) === body) {
      this.run.duplicateHeaders++;
      return false;
    }
    if (this.run.rows.length > 0 || this.lastHeader.has(kind)) {
      // Another attempt's header before this run's footer: the run did not finish.
      this.unfinished(this.run);
      this.newRun();
    }
    this.lastHeader.set(kind, body);
    return true;
  }

  private comment(line: string): boolean {
    const c = commentLine(line);
    if (c === null) return false;
    const run = this.run;
    switch (c.kind) {
      case "version":
        if (this.header("version", c.body)) this.run.testsVersion = c.version;
        break;
      case "program":
        if (this.header("program", c.body)) {
          this.run.program = c.program;
          this.run.programSource = "banner";
        }
        break;
      case "threads":
        if (!this.header("nThread", c.body)) break;
        if (c.nThread !== null && c.nGpus !== null) {
          this.run.nThread = c.nThread;
          this.run.nGpus = c.nGpus;
        }
        if (c.validation !== null) this.run.validation = c.validation;
        break;
      case "rank":
        if (this.seenRanks.has(c.rank.rank)) run.duplicateRanks++;
        else {
          this.seenRanks.add(c.rank.rank);
          run.ranks.push(c.rank);
        }
        break;
      case "columns":
        this.columns(c.columns);
        break;
      case "out_of_bounds":
        run.outOfBounds = { count: c.count, ok: c.ok };
        break;
      case "avg_busbw":
        // A footer after a footer with no row between them closes the run before it (footers grepped from several
        // logs, one run each). After a run's rows and footer and then a page's words, a footer is another run's average
        // the page quotes (`64 nodes:` then `Avg bus bandwidth : 24.3`): not this run's, and no run of its own.
        if (run.avgBusBw !== null && run.rows.length > 0 && this.wordsSinceFooter) break;
        if (run.avgBusBw !== null && run.rows.length === 0) this.newRun();
        this.wordsSinceFooter = false;
        this.run.avgBusBw = c.value;
        if (c.value !== null) this.avgs.push(c.value);
        break;
      case "error":
        run.errors.push(c.text);
        break;
      case "known":
        break;
    }
    return true;
  }

  private columns(cols: string[]): void {
    // nccl-tests prints its column header once per invocation, before every size, type and op of it: a header after
    // rows is the next invocation's table (two runs pasted under prose, each without banner or footer). No command
    // typed between them, the last one typed is still the launcher's: its rank count carries (its program may not: a
    // script runs other tests under one launcher).
    if (this.run.rows.length > 0) {
      const asked = this.run.commandRanks;
      this.newRun();
      this.run.commandRanks ??= asked;
    }
    this.columnsSeen = true;
    this.layout = layoutOf(cols);
    // NCCL 1.x's own tests print no footer. nccl-tests printed this header too until 2019 (the resync with NCCL 2.4),
    // and its ` Avg bus bandwidth` footer from its first commit (src/common.cu b188a15 prints `nThread %d nGpus %d …`
    // first and ` Avg bus bandwidth    : %g` last, https://github.com/NVIDIA/nccl-tests): with that banner the footer is
    // due, and a run without it was cut.
    this.legacy = cols[0] === "bytes" && this.run.nThread === null;
    this.run.redopColumn = cols.includes("redop") || cols.includes("op");
    this.tableLines++;
  }

  private row(line: string): boolean {
    if (this.layout.untyped) {
      const fields = untypedRow(line, this.layout);
      if (fields === null) return this.badRow(line);
      this.run.rows.push({ ...fields, line: this.lineNo });
      return true;
    }
    const read = typedRow(line, this.layout, !this.columnsSeen);
    if (read === null) return this.badRow(line);
    if (read.errorColumn && !this.layout.errorColumn) this.layout = { ...this.layout, errorColumn: true };
    const row: PerfRow = { ...read.row, line: this.lineNo };
    const { bytes, type, redop, root } = row;
    // nccl-tests prints one row per size, sizes rising, for each type and op in turn: a row of the same type, op and
    // root smaller than the one before is the next invocation's sweep (tables pasted one after another, headers cut).
    // After the run's own `# Avg bus bandwidth` footer a sweep is over: a row of the same size starts the next one
    // (one-size runs pasted one after another, each with its footer).
    // A row whose count still rises is the same sweep whatever its size cell says: the count falls with the size at
    // a new sweep (both come from the same loop in src/common.cu), so a smaller size under a larger count is a cell
    // the paste mangled, not a restart.
    const prev = this.run.rows.at(-1);
    const over = this.run.avgBusBw !== null;
    const countRises = prev !== undefined && row.count > prev.count;
    const again = prev !== undefined && !countRises && (bytes < prev.bytes || (over && bytes === prev.bytes));
    if (prev && again && prev.type === type && prev.redop === redop && prev.root === root) {
      // Unless processes that each ran the test alone (their rank lines repeat) share the stream: their rows
      // interleave, and a smaller size continues another process's sweep.
      if (lanesOf([...this.run.rows, row]).length > this.run.duplicateRanks + 1) this.newRun();
    }
    this.run.rows.push(row);
    return true;
  }

  /** A piece of a row NCCL's own lines broke apart (rows.ts RowPieces): true or false as taken, null: no piece. */
  private splitRowPiece(line: string): boolean | null {
    const piece = this.pieces.push(line, this.layout.metricCols);
    if (piece === null || typeof piece === "boolean") return piece;
    return this.row(piece.row);
  }

  private badRow(line: string): boolean {
    this.badRows++;
    if (this.badRows <= 5) this.problems.push(badRowProblem(line, this.lineNo));
    return false;
  }

  /** A run with rows and no footer is said to be unfinished (once): it crashed, hung, or the paste was cut. */
  private unfinished(run: PerfRun): void {
    if (run.incomplete || run.rows.length === 0 || run.avgBusBw !== null || this.legacy) return;
    run.incomplete = true;
    this.problems.push(unfinishedProblem(run));
  }

  end(): PerfRun[] {
    this.replayRight();
    // No output followed the command told in prose: it named the run above it.
    this.takeTold(hasContent(this.run) ? this.run : (this.lastFlushed ?? this.run));
    // Judged before it is handed over (a consumer may judge it at once): the last run is the current one when it
    // has anything, else the one flushed before it.
    const last = hasContent(this.run) ? this.run : this.lastFlushed;
    if (last) this.unfinished(last);
    this.flush();
    if (this.badRows > 5) this.problems.push(badRowsProblem(this.badRows));
    return this.runs;
  }
}

/** A run with anything of its own: rows, a footer, a thread line, a program name or rank lines. */
function hasContent(r: PerfRun): boolean {
  return (
    r.rows.length > 0 ||
    r.avgBusBw !== null ||
    r.nThread !== null ||
    r.program !== null ||
    r.ranks.length > 0 ||
    r.testsVersion !== null
  );
}

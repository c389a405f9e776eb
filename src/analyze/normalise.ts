/**
 * One normalisation layer in front of every parser `analyze` uses: it removes the per-line wrappers that launchers,
 * log collectors and pastes put around otherwise normal output, and hands clean lines on. A wrapper is removed only
 * when the lines themselves prove it (it starts at least PROOF of the non-blank lines), so a capture whose own lines
 * merely look like one is left alone. What a wrapper says about the run (the rank from Open MPI's `[1,0]`, the task
 * from Slurm's `0:`) is kept as facts. Pure. The families themselves are read by the one line reader
 * (src/core/line-prefixes.ts) that the NCCL log's scanner uses too.
 */
import { PREFIX_FAMILIES, type PrefixFamily, type WrapperName } from "../core/line-prefixes.js";
import { dedent } from "../core/text.js";
import { flattenedLinesOff } from "./flattened-lines.js";
import {
  doubleSpacingOff,
  flattenedTablesOff,
  gutterLinesOff,
  markdownTablesOff,
  numberedViewOff,
  pageBulletsOff,
  viewerCellsOff,
  viewerLineNumbersOff,
} from "./page-wrappers.js";
import { prefixRunsOff, runsRead } from "./prefix-runs.js";
import { type KindOf, recordPrefixOff } from "./record-prefixes.js";
import { rstRolesOff } from "./rst-roles.js";
import { terminalWrapOff } from "./terminal-wrap.js";
import { webCharactersOff } from "./web-characters.js";

export type { WrapperName };

/**
 * What a web page wraps around each line of a capture pasted into it (read here only, on a whole paste): a Markdown
 * list item's `- ` (a paste turned into a bulleted list, every line one item), and a file viewer's two empty table
 * cells ` | |` after the text (a gist or blob page copied with its line-number and code columns); and those read in
 * page-wrappers.ts: a rendered list's `• `, a source view's lone `|` gutter lines, a viewer's line numbers counting up
 * (glued or with a space), a Markdown table.
 */
export type PageWrapperName =
  | "markdown_list"
  | "viewer_cells"
  | "page_bullets"
  | "viewer_gutter_lines"
  | "viewer_line_numbers"
  | "markdown_table"
  | "flattened_table"
  | "flattened_lines"
  | "stern"
  | "parallel_tag"
  | "web_characters"
  | "double_spacing"
  | "diff_added"
  | "inline_quotes"
  | "numbered_view"
  | "shell_comment"
  | "line_comment"
  | "string_literal"
  | "rst_roles"
  | "line_block"
  | "terminal_wrap"
  | "annotation_arrow";

/** Share of non-blank lines a prefix must start for the layer to call it a wrapper. */
const PROOF = 0.8;

export type Normalised = {
  text: string;
  /** The wrappers removed, outermost first. */
  removed: (WrapperName | PageWrapperName)[];
  /** Open MPI ranks seen in `[JOB,RANK]` tags, sorted. */
  ranks?: number[];
  /** Slurm task numbers seen in `srun --label` prefixes, sorted. */
  tasks?: number[];
  /** Hosts seen in pdsh/clush `host: ` prefixes, sorted. */
  hosts?: string[];
};

// ANSI colour and cursor sequences (ECMA-48 CSI).
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * SGR colour codes whose ESC a copy dropped (`[4mGPU0 … GPU NUMA ID[0m`, nvidia-smi's underlined header pasted from a
 * terminal; shape seen at https://github.com/sgl-project/sglang/issues/26039): taken off only where the text holds a
 * reset (`[0m`) and another code, glued to the text around them, as colour left them.
 */
const BARE_SGR = /\[(?:\d{1,3}(?:;\d{1,3})*)?m(?=\S|$)/gm;
const BARE_RESET = /\S\[0?m(?:\s|$)/m;

function bareSgrOff(text: string): string {
  if (!BARE_RESET.test(text)) return text;
  const codes = text.match(BARE_SGR) ?? [];
  return codes.length >= 2 ? text.replace(BARE_SGR, "") : text;
}

/** Where the family's prefix ends on `l`, or -1. */
const prefixEnd = (l: string, w: PrefixFamily): number => w.at(l, 0, l.length);

/**
 * The family the lines prove: of those that most lines carry (PROOF), the one that explains the most lines, the
 * earlier in PREFIX_FAMILIES on a tie. Two families can read one prefix (`2:        transport:` is Slurm's `2: ` and
 * grep's `2:`): the one that also reads the lines the other cannot (`1:hca_id: …`) is the wrapper.
 */
function provenFamily(lines: readonly string[]): { w: PrefixFamily; n: number } | undefined {
  const filled = lines.filter((l) => l.trim() !== "");
  if (filled.length === 0) return undefined;
  let best: PrefixFamily | undefined;
  let most = 0;
  for (const w of PREFIX_FAMILIES) {
    // A prefix followed by nothing (a wrapped blank line, or text padded after `word: `) proves nothing either way:
    // such lines are left out of the count and of the lines it is weighed against.
    let n = 0;
    let bare = 0;
    for (const l of filled) {
      const at = prefixEnd(l, w);
      if (at < 0) continue;
      if (l.slice(at).trim() === "") bare++;
      else n++;
    }
    if (n > 0 && n >= Math.ceil((filled.length - bare) * PROOF) && n + bare > most && countsUp(filled, w)) {
      best = w;
      most = n + bare;
    }
  }
  return best ? { w: best, n: most } : undefined;
}

/**
 * cat -n numbers the lines one by one: its prefix is proven only where the numbers count up by one (most steps), so
 * a tab-separated table whose first column is a number (`1048576<TAB>16384<TAB>float …`) is no cat -n output.
 */
function countsUp(lines: readonly string[], w: PrefixFamily): boolean {
  if (w.name !== "cat_number") return true;
  const numbers = lines.filter((l) => prefixEnd(l, w) >= 0).map((l) => Number.parseInt(l.trim(), 10));
  let steps = 0;
  for (let i = 1; i < numbers.length; i++) if (numbers[i] === numbers[i - 1]! + 1) steps++;
  return numbers.length < 2 || steps >= Math.ceil((numbers.length - 1) * PROOF);
}

/**
 * Where the proven family's prefix ends on a line: its whole form, or its lean one (PrefixFamily.lean) where fewer than
 * PROOF of the lines carrying it carry the longer form (grep -H's lines of which a few start with a number of their own).
 */
function removalEnd(lines: readonly string[], w: PrefixFamily): (l: string) => number {
  const whole = (l: string) => prefixEnd(l, w);
  const lean = w.lean;
  if (!lean) return whole;
  let carried = 0;
  let longer = 0;
  for (const l of lines) {
    const at = whole(l);
    if (at < 0) continue;
    carried++;
    if (at > lean(l, 0, l.length)) longer++;
  }
  return longer >= Math.ceil(carried * PROOF) ? whole : (l) => (whole(l) >= 0 ? lean(l, 0, l.length) : -1);
}

function capturedBy(lines: readonly string[], w: PrefixFamily): string[] {
  const seen = new Set<string>();
  if (!w.fact) return [];
  for (const l of lines) if (prefixEnd(l, w) >= 0) seen.add(w.fact.of(l, 0));
  return [...seen];
}

const numbersOf = (lines: readonly string[], w: PrefixFamily) =>
  capturedBy(lines, w)
    .map(Number)
    .sort((a, b) => a - b);

// A word a Markdown renderer turned into a link to itself (`[net_ib.cc:101](http://net_ib.cc:101/)`, file names and IP
// addresses in an issue's quoted log): the word is what was printed.
const AUTOLINK = /\[([^\]\s()]+)\]\(https?:\/\/\1\/?\)/g;

/** A backslash before a line's `#` (Markdown's escape, https://spec.commonmark.org/0.31.2/#backslash-escapes). */
const ESCAPED_HASH = /^([ \t]*)\\#/;

// Markdown code fences around a pasted capture (```text … ```).
const FENCE = /^\s*```[\w-]*\s*$/;
/** A line that holds only a bar: a source view's gutter (page-wrappers.ts). */
const LONE_BAR = /^[ \t]*\|[ \t]*$/;

/**
 * The text without its code fences: one between lines of text becomes a blank line, so that the block it set apart
 * stays apart from the prose around it (a quote of a tool's lines is told by its block); one before the first line of
 * text or after the last goes.
 */
function fencesOff(lines: readonly string[]): string[] {
  // A source view's lone `|` gutter lines (page-wrappers.ts) are no text of the capture: a fence after its last line
  // closes it, however many bars follow.
  const text = (l: string) => l.trim() !== "" && !FENCE.test(l) && !LONE_BAR.test(l);
  const first = lines.findIndex(text);
  const last = lines.findLastIndex(text);
  return lines.flatMap((l, i) => (!FENCE.test(l) ? [l] : i > first && i < last ? [""] : []));
}

/**
 * A unified diff's added line (`+` then the line, https://www.gnu.org/software/diffutils/manual/html_node/Detailed-Unified.html):
 * not nvidia-smi's own `+-----+` or `+=====+` borders, which start with `+` too.
 */
const DIFF_ADDED = /^\+(?!-{3}|={3}|\+\+ )/;

/** A Markdown list item's bullet `- ` and its indentation (`* ` is read as a comment star). */
const LIST_ITEM = /^ {0,3}- /;

/** Lines in a row (blank ones aside) that carry a page's list bullet: a capture pasted as a list amid a page's text. */
const LIST_RUN = 8;

/**
 * Removes a page wrapper from every line when the lines prove it (as PROOF of them carry it); else from the runs of
 * LIST_RUN lines at least that all carry it (a paste site's own lines around a capture pasted as a list, shape seen at
 * https://pastebin.com/35T8N5t8); else returns null.
 */
function pageWrapperOff(lines: readonly string[], shape: RegExp): string[] | null {
  const filled = lines.filter((l) => l.trim() !== "");
  if (filled.length === 0) return null;
  if (filled.filter((l) => shape.test(l)).length >= Math.ceil(filled.length * PROOF))
    return lines.map((l) => l.replace(shape, ""));
  const runs = runsRead(lines, (l) => (shape.test(l) ? l.replace(shape, "") : null), LIST_RUN);
  return runs.changed > 0 ? runs.lines : null;
}

/**
 * Removes CRLF, ANSI colour and every proven per-line wrapper (stacked ones too, outermost first). `recognised` (the
 * kind a text reads as, or null) lets the prefixes that only a record can prove (record-prefixes.ts) come off too.
 */
export function normaliseCapture(text: string, opts: { recognised?: KindOf } = {}): Normalised {
  // Colour first: a line coloured after its CRLF was added (`ESC[32m … CR ESC[0m LF`) would otherwise leave its CR
  // alone, read as a line break of its own, and split every line in two.
  // A page's characters first (a no-break space for each space, a smartened quote, an escaped `&gt;`): every wrapper
  // and parser after reads the characters the tool printed.
  const web = webCharactersOff(text);
  let lines = fencesOff(
    bareSgrOff(web.text.replace(ANSI, "")).replace(/\r\n/g, "\n").replace(AUTOLINK, "$1").split("\n"),
  )
    // A `#` the writer escaped so that Markdown would not read a heading (`\#  size  count …`); once more at the end,
    // for one under a wrapper.
    .map((l) => l.replace(ESCAPED_HASH, "$1#"));
  // Indentation may wrap the other wrappers (a Markdown code block around a launcher's log) or sit inside them: it
  // goes first, and again after them.
  lines = dedent(lines);
  const out: Normalised = { text: "", removed: web.changed ? ["web_characters"] : [] };
  // A page's wrapping is usually outermost (the paste was made from the page, around whatever the launcher had put
  // there), but a launcher can relay a paste too: each pass removes the first proven wrapper of either sort; the
  // outermost launcher's facts are kept.
  const page: [PageWrapperName, (l: readonly string[]) => string[] | null][] = [
    // Before double spacing: a role's paragraph ends at its blank line.
    ["rst_roles", rstRolesOff],
    ["double_spacing", doubleSpacingOff],
    ["viewer_gutter_lines", gutterLinesOff],
    ["numbered_view", numberedViewOff],
    ["viewer_cells", viewerCellsOff],
    ["markdown_table", markdownTablesOff],
    ["flattened_table", flattenedTablesOff],
    ["flattened_lines", flattenedLinesOff],
    // A list's bullet, before or under a launcher's prefix (a bulleted paste of a labelled log, or the reverse).
    ["markdown_list", (l) => pageWrapperOff(l, LIST_ITEM)],
    ["page_bullets", pageBulletsOff],
    // A capture quoted in a review as a unified diff's added lines (`+# nThread 1 …`, a pull request's README change).
    ["diff_added", (l) => pageWrapperOff(l, DIFF_ADDED)],
  ];
  /** The first page shape the lines prove, with how many lines it changes. */
  const pageShape = () => {
    for (const [name, off] of page) {
      const next = off(lines);
      if (!next) continue;
      // A shape that removes or joins lines changes every line that is not in its result as it was (a flattened
      // table's cell lines, a gutter's bars).
      const kept = new Set(next);
      const changed =
        next.length !== lines.length
          ? Math.max(lines.length - next.length, lines.filter((l) => !kept.has(l)).length)
          : next.filter((l, i) => l !== lines[i]).length;
      return { name, next, changed };
    }
    return null;
  };
  const take = (name: PageWrapperName, next: readonly string[]) => {
    lines = dedent(fencesOff(next));
    if (!out.removed.includes(name)) out.removed.push(name);
  };
  // A wrapper may come back under another (a launcher's labels inside a collector's), or twice (a captured `srun -l`
  // output relayed by another `srun -l`). Each pass takes the reading that explains the most lines: a page's shape or
  // a viewer's line numbers over a launcher's prefix only when it changes more lines (a launcher relaying a page's
  // paste prints its prefix before the page's own ` | |` on every line, its lone `|` lines too).
  for (let pass = 0; pass < 2 * (PREFIX_FAMILIES.length + page.length + 1); pass++) {
    const proven = provenFamily(lines);
    const shape = pageShape();
    // cat -n's `2<TAB>` is a glued number before a tab-indented line too: numbers that run over every line are the
    // viewer's.
    const numbered = viewerLineNumbersOff(lines);
    // A viewer's numbers glued to a flattened table's cells (`14194304 |`) come off before the cells are joined.
    if (shape?.name === "flattened_table" && numbered && numbered.numbered > (proven?.n ?? 0)) {
      take("viewer_line_numbers", numbered.lines);
      continue;
    }
    if (shape && shape.changed > (proven?.n ?? 0)) {
      take(shape.name, shape.next);
      continue;
    }
    if (numbered && numbered.numbered > (proven?.n ?? 0)) {
      take("viewer_line_numbers", numbered.lines);
      continue;
    }
    if (!proven) {
      // A launcher's prefix or a C comment's gutter on runs of lines amid a page's own (prefix-runs.ts).
      const runs = prefixRunsOff(lines);
      if (!runs) break;
      if (!out.removed.includes(runs.name)) out.removed.push(runs.name);
      lines = dedent(fencesOff(runs.lines));
      continue;
    }
    const w = proven.w;
    if (w.fact?.kind === "rank") out.ranks ??= numbersOf(lines, w);
    if (w.fact?.kind === "task") out.tasks ??= numbersOf(lines, w);
    if (w.fact?.kind === "host") out.hosts ??= capturedBy(lines, w).sort();
    if (!out.removed.includes(w.name)) out.removed.push(w.name);
    const end = removalEnd(lines, w);
    // A fence can sit inside a wrapper (a launcher that printed a Markdown block), and so can indentation: both go
    // before the next proof.
    lines = dedent(
      fencesOff(
        lines.map((l) => {
          const at = end(l);
          return at >= 0 ? l.slice(at) : l;
        }),
      ),
    );
  }
  // Lines a window cut at one width (terminal-wrap.ts), once every other wrapper is off: a viewer's numbers or a
  // double spacing would make lines of their own look like the rest of a cut line.
  // A lone carriage return (a progress bar's redraw) breaks a line too, but only once the wrappers are off: a launcher
  // or logger prefixed the whole line it was handed, redraws and all.
  if (lines.some((l) => l.includes("\r"))) lines = lines.flatMap((l) => l.split("\r"));
  const joined = terminalWrapOff(lines);
  if (joined) {
    lines = joined;
    out.removed.push("terminal_wrap");
  }
  // A prefix only a record proves (stern's pod and container, parallel's tag), judged on the text with every other
  // wrapper under it removed too; those under it come off after it.
  const recognised = opts.recognised;
  const record = recognised
    ? recordPrefixOff(dedent(lines), {
        // The text under the prefix is shorter: its own normalisation ends.
        without: (t) => recognised(normaliseCapture(t, opts).text),
        with: recognised,
      })
    : null;
  if (record) {
    const inner = normaliseCapture(record.lines.join("\n"), opts);
    out.removed.push(record.name, ...inner.removed.filter((n) => !out.removed.includes(n)));
    const hosts = record.hosts ?? inner.hosts;
    if (hosts) out.hosts ??= hosts;
    if (inner.ranks) out.ranks ??= inner.ranks;
    if (inner.tasks) out.tasks ??= inner.tasks;
    lines = inner.text.split("\n");
  }
  // A capture indented as a whole (a Markdown code block by four spaces, a tab-indented paste): the common indentation
  // goes, the capture's own nesting stays.
  // Trailing blanks carry nothing in any tool's output (a text UI pads every line to its pane's width); they go last,
  // as a wrapper's own space ends the prefix of a line that is otherwise blank.
  out.text = dedent(lines.map((l) => l.trimEnd().replace(ESCAPED_HASH, "$1#"))).join("\n");
  return out;
}

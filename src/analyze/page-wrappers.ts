/**
 * What a web page leaves around a capture copied from it, read on the whole paste (never line by line: each shape is
 * proven only by the lines together). Pure.
 * - A page's list bullet `• ` (or `◦ `, `▪ `) before every line: a paste rendered as a list, every line one item.
 * - A forge's source view copied with its gutter: every line followed by lines that hold only `|`
 *   (a Gitea/Forgejo file view, seen in https://code.badstorm.xyz/AI/rocm-systems/src/commit/130ee246e21d3f73c977eda496ac9c90c3aa520b/src/all_gather.cu).
 * - A viewer's line numbers before every line, with one space (a gitweb blob view,
 *   https://git.droids-corp.org/?p=dpdk.git;a=blob;f=doc/guides/nics/mlx5.rst) or glued to the text (a documentation
 *   site's code block, `1spec:` `2 categories:`, https://docs.nvidia.com/cluster-readiness-engine/how-to-guides/run-nccl-benchmarks):
 *   proven by the numbers counting up by one from line to line, and only the expected number is taken off.
 * - A Markdown table (`| a | b |` rows under a `|---|---|` rule, https://spec.commonmark.org/0.31.2/ tables extension,
 *   https://github.github.com/gfm/#tables-extension-): its rows read as the space-separated text they were made from.
 */

/** Share of non-blank lines a shape must hold on for the paste to carry it. */
const PROOF = 0.8;

const filledOf = (lines: readonly string[]) => lines.filter((l) => l.trim() !== "");

/** A rendered list's bullet and its indentation (`-` is Markdown's own list, read by the normalisation layer). */
const PAGE_BULLET = /^[ \t]{0,4}[•◦▪‣] /;

/** Removes a page's list bullet from every line when the lines prove it, else null. */
export function pageBulletsOff(lines: readonly string[]): string[] | null {
  const filled = filledOf(lines);
  if (filled.length < 2 || filled.filter((l) => PAGE_BULLET.test(l)).length < Math.ceil(filled.length * PROOF))
    return null;
  return lines.map((l) => l.replace(PAGE_BULLET, ""));
}

const GUTTER_LINE = /^[ \t]*\|[ \t]*$/;

/**
 * Removes the lines that hold only `|` when they are the gutter of a source view: at least as many as the lines of
 * text (each line is followed by one or two), else null. No tool prints a line of a lone bar between its lines.
 */
export function gutterLinesOff(lines: readonly string[]): string[] | null {
  const filled = filledOf(lines);
  const bars = filled.filter((l) => GUTTER_LINE.test(l)).length;
  const text = filled.length - bars;
  if (text < 1 || bars < text) return null;
  return gutterByWidth(lines) ?? lines.filter((l) => !GUTTER_LINE.test(l));
}

/**
 * When every line of the file (a blank one too) is followed by the same number of gutter bars (one or two: the fewest
 * after any line), exactly those come off: a line of the file that is itself a lone `|` (a table's empty cell copied
 * one cell to a line) stays. Null when the lines do not keep to one width.
 */
function gutterByWidth(lines: readonly string[]): string[] | null {
  // Every line of the file has its gutter, a blank one too.
  const at = lines.map((_, i) => i);
  const bar = (k: number) => k < at.length && GUTTER_LINE.test(lines[at[k]!]!);
  let k = 0;
  while (bar(k)) k++;
  // The gutter's width: the fewest bars after any line that is no bar (a run after one is longer when the file's
  // own lone `|` lines follow it).
  let width = Number.POSITIVE_INFINITY;
  for (let i = k; i < at.length; i++) {
    if (bar(i)) continue;
    let run = 0;
    while (bar(i + 1 + run)) run++;
    if (i + 1 + run < at.length || run > 0) width = Math.min(width, run);
  }
  if (!Number.isFinite(width) || width === 0) return null;
  // Bars before the first line and after the last are the gutter's (of lines taken off before, a code fence's).
  const drop = new Set(at.slice(0, k));
  for (let e = at.length - 1; e > k && (bar(e) || lines[at[e]!]!.trim() === ""); e--) if (bar(e)) drop.add(at[e]!);
  for (let i = k; i < at.length; i += 1 + width) {
    for (let j = 1; j <= width; j++) {
      if (i + j >= at.length) break;
      if (!bar(i + j)) return null;
      drop.add(at[i + j]!);
    }
  }
  return lines.filter((_, i) => !drop.has(i));
}

/** The leading digits of a line (at most 7). */
const leadingDigits = (l: string): string => /^\d{1,7}/.exec(l)?.[0] ?? "";

/**
 * The lines from `from` that start with `n`, `n+1`, … in turn (a line may be the number alone): a blank line holds no
 * number and does not count (a line split by a stray carriage return), and a line without its number still counts
 * (another wrapper read it as its own, grep's `-n`); two such lines in a row end the run.
 */
function runFrom(lines: readonly string[], from: number, n: number): { end: number; numbered: number[] } {
  const numbered: number[] = [];
  let expected = n;
  let misses = 0;
  let j = from;
  for (; j < lines.length && misses < 2; j++) {
    const l = lines[j]!;
    if (l.trim() === "") continue;
    if (l.startsWith(String(expected))) {
      numbered.push(j);
      misses = 0;
    } else misses++;
    expected++;
  }
  return { end: j, numbered };
}

/** What follows a number that is no viewer's gutter: a list's or `ip`'s punctuation and a space. */
const NOT_A_GUTTER = /^[.:)] /;

/**
 * Removes a viewer's line numbers when they count up by one over the lines (PROOF of the non-blank lines, at least
 * two): from each line of the run only its own number is taken off, then one space when every line had one. The
 * first number is any prefix of the first line's digits, so a number glued to text that starts with a digit is read
 * the same. A numbered list (`1. `, `2) `) or `ip`'s `1: lo:` is not a gutter: its number is followed by punctuation
 * and a space (an NCCL line whose host was dropped, `:4121:4188 [0]`, has no space after its colon). `numbered` is how
 * many lines carried their number (the caller weighs it against a launcher's numbered prefix).
 */
export function viewerLineNumbersOff(lines: readonly string[]): { lines: string[]; numbered: number } | null {
  const filled = filledOf(lines).length;
  let best: { n: number; numbered: number[] } = { n: 0, numbered: [] };
  for (let i = 0; i < lines.length; i++) {
    const digits = leadingDigits(lines[i]!);
    let end = i;
    for (let d = 1; d <= digits.length; d++) {
      const n = Number(digits.slice(0, d));
      if (n === 0) continue;
      const run = runFrom(lines, i, n);
      end = Math.max(end, run.numbered.at(-1) ?? i);
      if (run.numbered.length > best.numbered.length) best = { n, numbered: run.numbered };
    }
    // No run is longer from inside one already counted: each line is counted once.
    i = end;
  }
  const count = best.numbered.length;
  if (count < 2 || count < Math.ceil(filled * PROOF)) return null;
  const first = best.numbered[0]!;
  const own = new Map(best.numbered.map((j) => [j, String(best.n + countBefore(lines, first, j))]));
  const texts = best.numbered.map((j) => lines[j]!.slice(own.get(j)!.length)).filter((l) => l !== "");
  if (texts.filter((l) => NOT_A_GUTTER.test(l)).length * 2 >= texts.length) return null;
  const spaced = texts.every((l) => l.startsWith(" "));
  const out = lines.map((l, j) => {
    const num = own.get(j);
    if (num === undefined) return l;
    const rest = l.slice(num.length);
    return spaced ? rest.slice(1) : rest;
  });
  return { lines: out, numbered: count };
}

/** How many non-blank lines lie from `first` up to (not including) `j`: the count a viewer's number has reached. */
function countBefore(lines: readonly string[], first: number, j: number): number {
  let k = 0;
  for (let i = first; i < j; i++) if (lines[i]!.trim() !== "") k++;
  return k;
}

/** A Markdown table's rule under its header row: `|---|:--:|` (two cells or more). */
const TABLE_RULE = /^[ \t]*\|?(?:[ \t]*:?-{2,}:?[ \t]*\|){2,}[ \t]*(?::?-{2,}:?[ \t]*)?$/;
const TABLE_ROW = /^[ \t]*\|.*\|[ \t]*$/;
/**
 * A row without its outer bars (`1024 | 512 | half | sum`, GFM allows them, and a rendered table copied as text keeps
 * only the inner ones): two bars at least, each with a space on either side.
 */
const LOOSE_ROW = /^[ \t]*[^|\s][^|]*(?: \| [^|]*){2,}$/;

/** A table row's cells joined by spaces (an empty cell stays a `-`, so the columns keep their places). */
const rowText = (l: string): string =>
  l
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((c) => c.trim() || "-")
    .join("  ");

/**
 * Rewrites every Markdown table (a `|`-bounded header row, its `|---|` rule, the `|`-bounded rows under it; or the
 * same without outer bars, `a | b | c` over `-- | -- | --`, a rendered table copied as text, shape seen in
 * https://github.com/microsoft/mscclpp/pull/736) as the text it was made from, one row to a line and the rule left out;
 * null when there is none. An nvidia-smi box has no
 * such rule (its rules are `|===|` and `+---+`), so it is left alone.
 */
export function markdownTablesOff(lines: readonly string[]): string[] | null {
  let found = false;
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const row = TABLE_ROW.test(l) ? TABLE_ROW : LOOSE_ROW.test(l) ? LOOSE_ROW : null;
    if (row && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1]!)) {
      found = true;
      out.push(rowText(l));
      i++;
      while (i + 1 < lines.length && row.test(lines[i + 1]!)) out.push(rowText(lines[++i]!));
      continue;
    }
    out.push(l);
  }
  return found ? out : null;
}

/** A table cell a page's copy left alone on its line, its column's bar after it (`4194304 |`, an empty cell `|`). */
const CELL_LINE = /^[ \t]*(?:(\S(?:.*\S)?)[ \t]+)?\|[ \t]*$/;
/** A cell that holds a number (or nccl-tests' `N/A` in place of one). */
const NUMERIC_CELL = /^(?:[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|N\/A)$/;

/**
 * The row width that reads `cells` as a header row and rows under it: the narrowest (three cells or more) that the
 * cells fill exactly, with a header row of names (no empty or numeric cell) and two rows at least under it, every
 * column of those rows all numbers or all words (an empty cell fits either) and one column of numbers at least; 0 when
 * none does (lines of text that each end in a bar, a viewer's cells, are no table).
 */
function flattenedWidth(cells: readonly string[]): number {
  for (let w = 3; w * 3 <= cells.length; w++) {
    if (cells.length % w !== 0) continue;
    // The header names every column (no empty or numeric cell), and one column of numbers at least is under it.
    if (cells.slice(0, w).some((c) => c === "" || NUMERIC_CELL.test(c))) continue;
    let consistent = true;
    let numeric = false;
    for (let col = 0; col < w && consistent; col++) {
      const kinds = new Set<boolean>();
      for (let at = w + col; at < cells.length; at += w) if (cells[at] !== "") kinds.add(NUMERIC_CELL.test(cells[at]!));
      consistent = kinds.size <= 1;
      if (kinds.has(true)) numeric = true;
    }
    if (consistent && numeric) return w;
  }
  return 0;
}

/**
 * Rewrites a web table flattened to one cell per line, each ending in its column's bar (` |`, a table copied out of a
 * rendered page, seen at https://yundeesoft.com/160641.html), as the rows it was made from: cells joined by two spaces
 * (an empty cell stays empty, as the tool's own blank column). The row width is read from the cells themselves (see
 * flattenedWidth); a run of six cell lines at least; null when there is none.
 */
export function flattenedTablesOff(lines: readonly string[]): string[] | null {
  const out: string[] = [];
  let found = false;
  for (let i = 0; i < lines.length; ) {
    let j = i;
    const cells: string[] = [];
    for (; j < lines.length; j++) {
      const m = CELL_LINE.exec(lines[j]!);
      if (!m) break;
      cells.push(m[1] ?? "");
    }
    const w = cells.length >= 6 ? flattenedWidth(cells) : 0;
    if (w === 0) {
      out.push(...lines.slice(i, Math.max(j, i + 1)));
      i = Math.max(j, i + 1);
      continue;
    }
    found = true;
    for (let at = 0; at < cells.length; at += w) out.push(cells.slice(at, at + w).join("  "));
    i = j;
  }
  return found ? out : null;
}

/** Two empty table cells after the text, as a file viewer's columns leave them: ` | |`. */
const VIEWER_CELLS = / \| \|[ \t]*$/;
/** The last line of a file in such a viewer keeps one empty cell: ` |`. */
const LAST_VIEWER_CELL = / \|[ \t]*$/;
/** Consecutive lines that carry the cells, enough to prove them amid a page's own text around the file. */
const VIEWER_RUN = 5;

/**
 * Removes a file viewer's two empty cells (` | |`) after each line of a file copied from a gist or blob page: proven
 * when PROOF of the non-blank lines carry them, or when VIEWER_RUN lines in a row do (the page's own title, notice and
 * sign-up lines around the file carry none, shape seen at https://gist.github.com/huseinzol05/04f93dfb57c463eb968f2162761e9540).
 * The line after the last one that carries them keeps one cell (` |`, the file's last line): it comes off too.
 * Null when the lines prove no such cells.
 */
export function viewerCellsOff(lines: readonly string[]): string[] | null {
  const filled = filledOf(lines);
  const carrying = filled.filter((l) => VIEWER_CELLS.test(l)).length;
  let run = 0;
  let longest = 0;
  for (const l of lines) {
    if (l.trim() === "") continue;
    run = VIEWER_CELLS.test(l) ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  if (filled.length === 0 || (carrying < Math.ceil(filled.length * PROOF) && longest < VIEWER_RUN)) return null;
  let last = -1;
  lines.forEach((l, i) => {
    if (VIEWER_CELLS.test(l)) last = i;
  });
  return lines.map((l, i) => {
    if (VIEWER_CELLS.test(l)) return l.replace(VIEWER_CELLS, "");
    return i === last + 1 ? l.replace(LAST_VIEWER_CELL, "") : l;
  });
}

/** Share of the gaps between text lines that must be one blank line for a paste to be double-spaced. */
const DOUBLE_SPACED = 0.9;

/**
 * Removes the blank line a page put after every line of a capture (each line its own paragraph or `<div>`, copied out
 * with a blank line between each two), when at least DOUBLE_SPACED of the gaps between non-blank lines hold a blank
 * line and most hold exactly one (five lines at least): one blank line was the page's line break, and a longer run of
 * blanks keeps one less (the capture's own blank line). Null when the lines are not double-spaced.
 */
export function doubleSpacingOff(lines: readonly string[]): string[] | null {
  const gaps: number[] = [];
  let blanks = -1;
  for (const l of lines) {
    if (l.trim() === "") {
      if (blanks >= 0) blanks++;
      continue;
    }
    if (blanks >= 0) gaps.push(blanks);
    blanks = 0;
  }
  // Hardly any two text lines touch, and most are one blank line apart (a paragraph break is a longer run).
  const touching = gaps.filter((g) => g === 0).length;
  const single = gaps.filter((g) => g === 1).length;
  if (gaps.length < 4 || touching > gaps.length * (1 - DOUBLE_SPACED) || single * 2 < gaps.length) return null;
  const out: string[] = [];
  let run = 0;
  for (const l of lines) {
    if (l.trim() === "") {
      run++;
      continue;
    }
    if (out.length > 0) for (let k = 1; k < run; k++) out.push("");
    run = 0;
    out.push(l);
  }
  return out;
}

/** A paste site's numbered view: a number (right-aligned by spaces), a dot and a space before each line. */
const NUMBERED_LINE = /^ {0,6}(\d{1,7})\. ?/;

/** Lines in a row whose numbers count up by one: no list written by hand runs this long, one line an item. */
const NUMBERED_RUN = 20;

/**
 * Removes a paste site's line numbers (`  1. <?xml …`, ` 10. <gpu …>`: pastebin's numbered view copied as text, shape
 * seen at https://pastebin.com/aScsNiQH) from each run of NUMBERED_RUN lines or more whose numbers count up by one
 * (a blank line of the view keeps its number); the page's own lines around the run stay. Else null.
 */
export function numberedViewOff(lines: readonly string[]): string[] | null {
  const out = [...lines];
  let found = false;
  for (let i = 0; i < lines.length; ) {
    const first = NUMBERED_LINE.exec(lines[i]!);
    if (!first) {
      i++;
      continue;
    }
    const run: number[] = [];
    let expected = Number(first[1]);
    let j = i;
    for (; j < lines.length; j++) {
      const m = NUMBERED_LINE.exec(lines[j]!);
      if (!m || Number(m[1]) !== expected) break;
      run.push(j);
      expected++;
    }
    if (run.length >= NUMBERED_RUN) {
      found = true;
      for (const k of run) out[k] = lines[k]!.replace(NUMBERED_LINE, "");
    }
    i = Math.max(j, i + 1);
  }
  return found ? out : null;
}

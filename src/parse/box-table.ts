/**
 * nvidia-smi's box table (`+---+` borders, `| … |` rows, every line of one width) as a page kept it when its line
 * breaks were lost or moved: rows collapsed onto one line (a page that turned each line break into a space), or each
 * row wrapped at a narrower width (a chat window or terminal that wraps at 78 or 80 columns, its continuation lines
 * indented like the rest). The rows come back one per line, so that a parser reading cells between `|` bars reads them.
 * Pure; lines that show neither shape pass through unchanged.
 */
import { type CaptureLine, captureLines, MAX_LINE_LENGTH } from "./capture.js";

/** A border of the box: `+` or `|`, then dashes or equals signs (and the `+` of inner columns), then `+` or `|`. */
const BORDER = /[+|][-=]{20,}(?:\+[-=]+)*[+|]/;
/** The start of a border that a wrap cut: `+` and a run of dashes (or `|` and equals signs) with no closing corner. */
const BORDER_START = /^[+|][-=]{20,}(?:\+[-=]+)*$/;
const ROW_EDGE = /[+|]/;
/** Longest collapsed line read (a 3,800-character table of eight GPUs is typical; hostile input is cut). */
const MAX_COLLAPSED = 256 * 1024;

/**
 * A border row from its start: `+` or `|`, then runs of dashes or equals signs each closed by `+` or `|` (a page may
 * have set spaces around an inner `+`: `|===== + =====|`).
 */
const BORDER_ROW = /[+|](?: ?[-=]+ ?[+|])+/y;
/**
 * An elision a page put between two rows (`...` where GPUs 2 to 6 were left out; shape seen in a Chinese blog's table
 * committed to a public repository, index-file 10232534572), with the spaces after it, followed by a row's edge.
 */
const ELISION = /(?:\.{3}|…)\s+(?=[+|])/y;
/** What a line break and a line's padding left between two rows. */
const GAP = /\s*/y;

/**
 * The rows of a box table collapsed onto one line (each line break a space, its spaces kept or collapsed too), one
 * per line, with the text before and after the table on lines of their own; null when the line holds no such table.
 * A row is told by its bars, not its width: each border says how many bars the rows under it have (its `+` and `|`),
 * and a row of text ends at that many bars (nvidia-smi prints no `|` inside a cell, and widens a row of `ERR!`s).
 */
export function collapsedRows(text: string): string[] | null {
  if (text.length > MAX_COLLAPSED || text.length < 200) return null;
  const first = BORDER.exec(text);
  if (!first) return null;
  const rows: string[] = [];
  let bars = 0;
  let at = first.index;
  while (at < text.length) {
    // A page's elision between rows (`...`, GPUs left out of the middle of the table) is passed over.
    ELISION.lastIndex = at;
    const elided = ELISION.exec(text);
    if (elided && rows.length > 0) at += elided[0].length;
    if (!ROW_EDGE.test(text[at] ?? "")) break;
    BORDER_ROW.lastIndex = at;
    const border = BORDER_ROW.exec(text);
    let end: number;
    if (border) {
      bars = border[0].replace(/[^+|]/g, "").length;
      end = at + border[0].length;
    } else {
      if (text[at] !== "|") break;
      end = at;
      for (let n = 0; n < bars && end >= 0; n++) end = text.indexOf("|", end) + 1 || -1;
      if (end < 0) break;
    }
    rows.push(text.slice(at, end));
    GAP.lastIndex = end;
    const gap = GAP.exec(text)![0].length;
    at = end + gap;
    if (gap === 0) break;
  }
  if (rows.length < 3) return null;
  const before = text.slice(0, first.index).trimEnd();
  const after = text.slice(at).trim();
  return [...(before ? [before] : []), ...rows, ...(after ? [after] : [])];
}

/**
 * The widths a wrap left when it cut the table's first border: the window's (the border's first piece, as printed) and
 * the table's (both pieces); null when no border was cut.
 */
function wrappedWidths(lines: readonly CaptureLine[]): { window: number; table: number } | null {
  for (let i = 0; i + 1 < lines.length; i++) {
    const head = lines[i]!.text;
    if (!BORDER_START.test(head.trim())) continue;
    const tail = lines[i + 1]!.text.trim();
    if (!/^[-=]*(?:[+|][-=]+)*[+|]$/.test(tail) || (tail.length > 1 && ROW_EDGE.test(tail[0]!))) return null;
    return { window: head.length, table: head.trim().length + tail.length };
  }
  return null;
}

/**
 * Rows a narrower window wrapped, joined again: inside a table whose border was wrapped, a line that starts a row
 * (`|` or `+`) takes the lines after it while it is shorter than the table: each line that starts no row (a window
 * that wraps at a word, indenting what it wraps), and any line after one that filled the window (a terminal that cuts
 * every N columns: what follows may start with a bar). A wrap that ate the spaces where it broke leaves the cells
 * between their bars all the same.
 */
function wrappedRowsJoined(lines: readonly CaptureLine[], w: { window: number; table: number }): CaptureLine[] {
  const out: CaptureLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i]!;
    const trimmed = first.text.trim();
    // A row starts with its bar or corner; the header's line may have lost its bar to a page (`NVIDIA-SMI 545.23.06 …`).
    if (!ROW_EDGE.test(trimmed[0] ?? "") && !trimmed.startsWith("NVIDIA-SMI ")) {
      out.push(first);
      continue;
    }
    let row = first.text.trimStart();
    let full = first.text.length === w.window;
    while (row.trimEnd().length < w.table && i + 1 < lines.length) {
      const raw = lines[i + 1]!.text;
      const next = raw.trim();
      if (next === "" || (!full && ROW_EDGE.test(next[0]!))) break;
      // A cut at N columns lost no character: the pieces join as they are. A wrap at a word ate the whitespace there
      // (a border's pieces had none).
      if (full) row += raw;
      else row = /[-=]$/.test(row) && /^[-=]/.test(next) ? row + next : `${row.trimEnd()} ${next}`;
      full = raw.length === w.window;
      i++;
    }
    out.push({ text: row.trimEnd(), line: first.line });
  }
  return out;
}

/**
 * A shell or script comment's `#` before a line of the box (`# +------…+`, `# |   0  NVIDIA A100-SXM...  Off  | …`): a
 * guide that shows the output as comments under the command (`# Output:`; shape seen in a GPU guide committed to a
 * public repository, index-file 6331658148). No line of nvidia-smi's own starts with `#`.
 */
const COMMENTED_BOX_LINE = /^\s*#+ ?(?=[+|])/;

/**
 * The capture's lines (captureLines) with box-table rows one per line again (collapsed or wrapped, a comment's `#`
 * off), else as they were; lines still longer than MAX_LINE_LENGTH after it are left out, as captureLines leaves them.
 */
export function boxTableLines(text: string): CaptureLine[] {
  const expanded = captureLines(text, MAX_COLLAPSED).flatMap((l) => {
    const line = COMMENTED_BOX_LINE.test(l.text) ? { text: l.text.replace(COMMENTED_BOX_LINE, ""), line: l.line } : l;
    return collapsedRows(line.text)?.map((row) => ({ text: row, line: l.line })) ?? [line];
  });
  const widths = wrappedWidths(expanded);
  const rows = widths === null ? expanded : wrappedRowsJoined(expanded, widths);
  return rows.filter((l) => l.text.length <= MAX_LINE_LENGTH);
}

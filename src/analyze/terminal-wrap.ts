/**
 * Lines a terminal or a page cut every N columns, joined again: a window that breaks a long line where the window
 * ends, mid-word, with nothing added (`…, unhandled system error, NCCL versi` / `on 2.10.3`; shape seen in a PyTorch
 * error pasted into an issue, https://github.com/ai4d-iasc/trixie/issues/87). Such a cut leaves the lines it broke all
 * of one length, the window's: the longest in the text. Pure.
 *
 * The cut is proven, not guessed: two lines at least of that one length, each followed by a shorter line of text, and
 * one of the breaks at least in the middle of a word. Lines that a tool prints at one width by design are not cuts: a
 * table's rows (`|`, `+`, `#` first, or lines of that length one after another: show_gids' rows, a run of connection
 * lines). Nor is a line that ends at that width by chance before a line of its own: one that opens a record (an
 * `NCCL INFO` line; the same first word as the line before it, one host's records one after another), an error's
 * name (PyTorch's `ncclInternalError: Internal check failed.` under its report), or a word other lines of the text
 * start with (a harness's `rank=0 operation=6 …` after an NCCL line the harness cut short, not wrapped).
 */

/** Narrowest window read: a terminal's 80 columns. */
const MIN_WIDTH = 80;
const TABLE_LINE = /^\s*[|+#]/;
const RECORD = /\bNCCL (?:INFO|WARN|TRACE)\b/;
const ERROR_NAME = /^\s*[\w.]*(?:Error|Exception|Warning)\b/;
const firstWord = (l: string): string => /^\s*(\S+)/.exec(l)?.[1] ?? "";

/** The break between `line` (cut at the window's width) and `next` may be a cut: `next` goes on with `line`'s text. */
function goesOn(line: string, next: string | undefined, width: number): boolean {
  if (next === undefined || next.trim() === "" || next.length >= width) return false;
  if (TABLE_LINE.test(line) || RECORD.test(next) || ERROR_NAME.test(next)) return false;
  return firstWord(next) !== firstWord(line);
}

/** The lines with each cut joined again; null when the text shows no cut at one width. */
export function terminalWrapOff(lines: readonly string[]): string[] | null {
  let width = 0;
  for (const l of lines) if (l.length > width) width = l.length;
  if (width < MIN_WIDTH) return null;
  const cuts: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.length !== width) continue;
    // Lines of the window's width one after another: a table's rows, or a line cut twice; neither is read here.
    if (lines[i + 1]?.length === width || lines[i - 1]?.length === width) return null;
    if (!goesOn(lines[i]!, lines[i + 1], width)) return null;
    cuts.push(i);
  }
  if (cuts.length < 2) return null;
  // A line after a break whose first word other lines start with too is a line of its own.
  const starts = new Map<string, number>();
  for (const l of lines) if (l.trim() !== "") starts.set(firstWord(l), (starts.get(firstWord(l)) ?? 0) + 1);
  const after = new Map<string, number>();
  for (const i of cuts) after.set(firstWord(lines[i + 1]!), (after.get(firstWord(lines[i + 1]!)) ?? 0) + 1);
  if ([...after].some(([w, n]) => starts.get(w) !== n)) return null;
  if (!cuts.some((i) => /[A-Za-z0-9]$/.test(lines[i]!) && /^[A-Za-z0-9]/.test(lines[i + 1]!))) return null;
  const cut = new Set(cuts);
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (cut.has(i)) {
      out.push(lines[i]! + lines[i + 1]!);
      i++;
    } else out.push(lines[i]!);
  }
  return out;
}

/**
 * A per-line wrapper proven on a run of lines, not on the whole text: a launcher's log pasted amid a page's prose or a
 * tool's own lines (a job runner's `(task, pid=N) ` before each line of a capture it streamed, its own status lines
 * around), and a capture kept in source code: a C block comment (its ` * ` gutter between `/*` and `*\/`), line
 * comments (`//` before each line), string literals (`"…\n" +`, a test's fixture). Only the families whose prefix no
 * tool's own line takes are read on runs; a C comment's stars only between the comment's delimiters. Pure.
 */
import { PREFIX_FAMILIES, type PrefixFamily, type WrapperName } from "../core/line-prefixes.js";

/** Lines in a row (blank ones aside) that a launcher's prefix must start to be proven on them. */
export const PREFIX_RUN = 8;

/**
 * The families shaped like no tool's own line (a bracketed tag, a pod path, an RFC 3339 time, a Ray actor, a text UI's
 * `│` pane border: tmux and k9s draw it beside the lines of one pane only).
 */
const DISTINCT: ReadonlySet<WrapperName> = new Set([
  "tag_output",
  "kubectl_prefix",
  "kubectl_timestamp",
  "ray_actor",
  "horovod_tag",
  "pane_border",
  // A mail's or forum's quote (`> ` before each line of a reply's quoted part, shape seen in a linux-rdma list reply
  // quoting `ibstat`, index-file 26729088200): the quoted run amid the reply's own lines.
  "markdown_quote",
]);

export type PrefixRuns = {
  name: WrapperName | "line_comment" | "string_literal" | "line_block";
  lines: string[];
  changed: number;
};

const family = (name: WrapperName): PrefixFamily => PREFIX_FAMILIES.find((w) => w.name === name)!;

/** Where `w`'s prefix ends on `l`, after the line's indentation (a run indented in a page's code block), or -1. */
function indentedEnd(l: string, w: PrefixFamily): number {
  let i = 0;
  while (l.charCodeAt(i) === 32 || l.charCodeAt(i) === 9) i++;
  return w.at(l, i, l.length);
}

export type RunsRead = { lines: string[]; changed: number };

/**
 * Each run of `min` non-blank lines or more (blank lines between them kept as they are) that `read` reads (null: a line
 * it does not), read; and how many lines changed. The one reader of a wrapper proven on runs of lines.
 */
export function runsRead(
  lines: readonly string[],
  read: (l: string) => string | null,
  min = PREFIX_RUN,
  accept: (run: readonly string[]) => boolean = () => true,
): RunsRead {
  const out = [...lines];
  let changed = 0;
  for (let i = 0; i < lines.length; ) {
    if (read(lines[i]!) === null) {
      i++;
      continue;
    }
    const run: [number, string][] = [];
    let j = i;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (l.trim() === "") continue;
      const r = read(l);
      if (r === null) break;
      run.push([j, r]);
    }
    if (run.length >= min && accept(run.map(([k]) => lines[k]!))) {
      for (const [k, r] of run) out[k] = r;
      changed += run.length;
    }
    i = j;
  }
  return { lines: out, changed };
}

/** A launcher's prefix off a line (after its indentation), or null where the line does not carry it. */
const launcherOff =
  (w: PrefixFamily) =>
  (l: string): string | null => {
    const at = indentedEnd(l, w);
    return at < 0 ? null : l.slice(at);
  };

const OPENS = /\/\*(?!.*\*\/)/;
const CLOSES = /\*\//;

/** The lines with the ` * ` gutter off the lines between each C block comment's `/*` line and its `*\/` line. */
function commentBlocks(lines: readonly string[]): RunsRead {
  const star = family("comment_star");
  const out = [...lines];
  let changed = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!OPENS.test(lines[i]!)) continue;
    let j = i + 1;
    while (j < lines.length && !CLOSES.test(lines[j]!)) j++;
    if (j >= lines.length) break;
    const inner: number[] = [];
    for (let k = i + 1; k < j; k++) {
      const l = lines[k]!;
      if (l.trim() !== "" && star.at(l, 0, l.length) >= 0) inner.push(k);
    }
    // Every inner line carries the gutter: a block that does not is not this shape.
    const filled = lines.slice(i + 1, j).filter((l) => l.trim() !== "").length;
    if (inner.length >= 2 && inner.length === filled) {
      for (const k of inner) out[k] = lines[k]!.slice(star.at(lines[k]!, 0, lines[k]!.length));
      changed += inner.length;
    }
    i = j;
  }
  return { lines: out, changed };
}

/** A C++/Java/Go line comment's `//` (and one space), the line's indentation before it. */
const LINE_COMMENT = /^[ \t]*\/\/ ?/;
/**
 * A source file's string literal holding one line of a capture: `"| NVIDIA-SMI 440.31 … |\n" +` (Java, C), or a
 * notebook's saved output, one JSON string per line ending `\r\n` where the kernel ran a command (`"| N/A 33C … |\r\n",`,
 * shape seen at https://github.com/ULHPC/tutorials, an .ipynb's `"text"` array), with the quote, the line end, the
 * concatenation and the escapes taken off.
 */
const STRING_LINE = /^[ \t]*(?:(?:[\w<>[\]]+\s+)*\w+\s*\+?=\s*)?"((?:[^"\\]|\\.)*?)(?:\\r)?\\n"\s*(?:\+|,|;|\))?\s*$/;

const uncommented = (l: string): string | null => {
  const m = LINE_COMMENT.exec(l);
  return m ? l.slice(m[0].length) : null;
};
/**
 * A script's list holding one line of a capture per item: `['<driver_version>517.48</driver_version>'],` (a Python test's
 * table of rows, each a list of one string), the trailing comma optional. A JSON array's strings (`"-b",`) are not
 * this shape: each item is bracketed.
 */
const LIST_ITEM_LINE = /^[ \t]*\[(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\],?\s*$/;

const listed = (l: string): string | null => {
  const m = LIST_ITEM_LINE.exec(l);
  return m ? (m[1] ?? m[2]!).replace(/\\(["'\\])/g, "$1") : null;
};

const unquoted = (l: string): string | null => {
  const m = STRING_LINE.exec(l);
  return m ? m[1]!.replace(/\\(["\\t])/g, (_, c: string) => (c === "t" ? "\t" : c)) : null;
};

/**
 * Slurm's `srun -l` task label (`0: `, ` 12: `) is shaped like a numbered list's item; a run whose labels repeat a
 * number is a launcher's (every task writes many lines), a list numbers each item once (shape seen in a Slurm job's
 * output pasted under `$ cat slurm-2214.out`, all of task 0's lines).
 */
function labelsRepeat(run: readonly string[]): boolean {
  const labels = run.map((l) => /^\s*(\d+):/.exec(l)?.[1]);
  return new Set(labels).size < labels.length;
}

/**
 * A bar before each line of a quoted capture (`| $ show_gids | grep mlx5_2`, `| DEV  PORT INDEX GID …`: a comment's
 * quote gutter, reStructuredText's line block, https://docutils.sourceforge.io/docs/ref/rst/restructuredtext.html#line-blocks),
 * on a run of three lines or more. No table's row: none of the run's lines ends with a bar (nvidia-smi's box rows and
 * Markdown's do), and none is a Markdown table's delimiter row (`| --- | --- |`). Shape seen in C comments committed to
 * a public repository (index-file 30551364698, 30980662150), show_gids lines from two hosts.
 */
const LINE_BLOCK = /^[ \t]*\| ?/;
const DELIMITER_ROW = /^[ \t]*\|?\s*:?-+:?\s*\|\s*:?-+/;
const LINE_BLOCK_RUN = 3;

const barred = (l: string): string | null => {
  const m = LINE_BLOCK.exec(l);
  return m && !/[|+]\s*$/.test(l) ? l.slice(m[0].length) : null;
};

/** The run-proven wrapper that changes the most lines, or null. */
export function prefixRunsOff(lines: readonly string[]): PrefixRuns | null {
  let best: PrefixRuns | null = null;
  for (const name of DISTINCT) {
    const r = runsRead(lines, launcherOff(family(name)));
    if (r.changed > 0 && r.changed > (best?.changed ?? 0)) best = { name, ...r };
  }
  const labels = runsRead(lines, launcherOff(family("srun_label")), PREFIX_RUN, labelsRepeat);
  if (labels.changed > (best?.changed ?? 0)) best = { name: "srun_label", ...labels };
  const c = commentBlocks(lines);
  if (c.changed > 0 && c.changed > (best?.changed ?? 0)) best = { name: "comment_star", ...c };
  const slashes = runsRead(lines, uncommented);
  if (slashes.changed > (best?.changed ?? 0)) best = { name: "line_comment", ...slashes };
  const strings = runsRead(lines, unquoted);
  if (strings.changed > (best?.changed ?? 0)) best = { name: "string_literal", ...strings };
  const items = runsRead(lines, listed);
  if (items.changed > (best?.changed ?? 0)) best = { name: "string_literal", ...items };
  const bars = runsRead(lines, barred, LINE_BLOCK_RUN, (run) => !run.some((l) => DELIMITER_ROW.test(l)));
  if (bars.changed > (best?.changed ?? 0)) best = { name: "line_block", ...bars };
  return best;
}

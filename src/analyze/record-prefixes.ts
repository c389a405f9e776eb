/**
 * Prefixes whose shape alone proves too little: a word or two before every line is also how many tools' own lines
 * begin. Each is removed only when the lines carry it together AND the text without it reads as a known record (the
 * caller's `recognised`). Pure.
 * - stern's `POD CONTAINER message` (https://github.com/stern/stern, its README's output; forks such as
 *   https://github.com/felipecrs/stern): the same pod name (a Kubernetes object name: lower-case letters, digits, `-`
 *   and `.`, with a `-` as generated names have) and container name (a DNS-1123 label) before every line
 *   (https://kubernetes.io/docs/concepts/overview/working-with-objects/names/).
 * - GNU parallel's `--tag`: the argument and a tab before every line of its job (https://www.gnu.org/software/parallel/man.html#tag).
 * - A shell comment's `# ` before every line (a README that shows a command's output commented out under the command,
 *   shape seen at https://github.com/ProjectMitosisOS/mitosis-core/blob/main/README.md): nccl-tests prints its own header as
 *   `#` lines (src/common.cu), so the comment is never read on a text that reads as nccl-tests, with it or without.
 * - An arrow a writer put before the lines that matter (`→ NCCL INFO AllReduce: … -> Algo TREE proto LL`, the
 *   records among a tool's own lines in a page of notes; shape seen at
 *   https://github.com/eunomia-bpf/nccl-eBPF/blob/HEAD/docs/tmp/policy-effectiveness-research.md): on two lines or
 *   more, and only where the text reads as nothing with them and as a record without them.
 */

import { commandOfLine } from "./transcript.js";

const PROOF = 0.8;

const POD = /^[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?$/;
const CONTAINER = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const STERN = /^(\S+) (\S+) /;

/** The pod and container a stern line starts with, or null. */
function sternPair(l: string): string | null {
  const m = STERN.exec(l);
  if (!m) return null;
  const [, pod, container] = m;
  return POD.test(pod!) && pod!.includes("-") && CONTAINER.test(container!) ? `${pod} ${container} ` : null;
}

/** A `--tag` argument: no blank in it, then a tab. */
const TAG = /^([^\s]{1,80})\t/;

export type RecordPrefix = {
  name: "stern" | "parallel_tag" | "shell_comment" | "annotation_arrow";
  lines: string[];
  hosts?: string[];
};

/** The kind a text reads as, or null (what normalisation may ask of the analyzers). */
export type KindOf = (text: string) => string | null;

/** stern's prefix when every line (PROOF of them) carries one same pod and container: the lines without it. */
function sternOff(lines: readonly string[], filled: readonly string[]): RecordPrefix | null {
  const pair = sternPair(filled[0]!);
  if (!pair || filled.filter((l) => l.startsWith(pair)).length < Math.ceil(filled.length * PROOF)) return null;
  return { name: "stern", lines: lines.map((l) => (l.startsWith(pair) ? l.slice(pair.length) : l)) };
}

/**
 * parallel's `--tag` when every line (PROOF of them) starts with an argument and a tab, and the arguments are few
 * (each job's output is many lines: at most one argument for every three lines).
 */
function tagOff(lines: readonly string[], filled: readonly string[]): RecordPrefix | null {
  const tags = filled.map((l) => TAG.exec(l)?.[1]);
  const carried = tags.filter((t): t is string => t !== undefined);
  const distinct = [...new Set(carried)];
  if (carried.length < Math.ceil(filled.length * PROOF) || distinct.length * 3 > carried.length) return null;
  return { name: "parallel_tag", lines: lines.map((l) => l.replace(TAG, "")), hosts: distinct.sort() };
}

/** A shell comment's `# `, `#` before a tab (the tab is the line's own), or a lone `#` (a blank line commented out). */
const COMMENT = /^#(?: |(?=\t)|$)/;

/** The kind whose own header lines are comments (nccl-tests' `# nThread …`, `#  Rank  0 …`, `#       size …`). */
const COMMENTING_KIND = "nccl_tests";

/** Commented lines under a bare capture command that make its output (a README's prose may surround them). */
const COMMENTED_RUN = 2;

/**
 * A shell comment before every line (PROOF of them), or before every line of the output under a capture command typed
 * bare or commented with it (`show_gids`, then its table commented out, prose around): the lines without it; else null.
 */
function commentOff(lines: readonly string[], filled: readonly string[]): RecordPrefix | null {
  if (filled.filter((l) => COMMENT.test(l)).length >= Math.ceil(filled.length * PROOF))
    return { name: "shell_comment", lines: lines.map((l) => l.replace(COMMENT, "")) };
  const out = [...lines];
  let found = false;
  for (let i = 0; i < lines.length; i++) {
    // The cheap test first: a commented line under this one. The command typed bare, or commented with its output (a
    // script that keeps `# nvidia-smi topo -m` and what it printed in its header).
    if (!COMMENT.test(lines[i + 1] ?? "")) continue;
    const typed = COMMENT.test(lines[i]!) ? lines[i]!.replace(COMMENT, "") : lines[i]!;
    if (commandOfLine(typed) === null) continue;
    out[i] = typed;
    let j = i + 1;
    while (j < lines.length && COMMENT.test(lines[j]!) && lines[j]!.trim() !== "#") j++;
    if (j - i - 1 < COMMENTED_RUN) continue;
    for (let k = i + 1; k < j; k++) out[k] = lines[k]!.replace(COMMENT, "");
    found = true;
    i = j - 1;
  }
  return found ? { name: "shell_comment", lines: out } : null;
}

/** An arrow a writer marks a line with, and the space after it. */
const ARROW = /^[ \t]{0,4}(?:[→⟶➜➔➡]\uFE0F?|👉|=>|->) /;

/** The lines without the arrows that mark two of them or more; else null. */
function arrowOff(lines: readonly string[], filled: readonly string[]): RecordPrefix | null {
  if (filled.filter((l) => ARROW.test(l)).length < 2) return null;
  return { name: "annotation_arrow", lines: lines.map((l) => l.replace(ARROW, "")) };
}

/**
 * The record prefix the lines carry, when the text without it is recognised; else null. A tag (any word before a tab)
 * is shaped like a tab-separated tool's first column, so it comes off only when the text with it is not recognised;
 * stern's two names are shaped like no tool's line (no `_`, `:` or capital in either, the same two on every line).
 * `recognised.without` reads the text under the prefix (its own wrappers removed too), `recognised.with` the text as
 * it is; each is asked only when a prefix's shape holds on the lines.
 */
export function recordPrefixOff(
  lines: readonly string[],
  recognised: { without: KindOf; with: KindOf },
): RecordPrefix | null {
  const filled = lines.filter((l) => l.trim() !== "");
  if (filled.length < 2) return null;
  const stern = sternOff(lines, filled);
  if (stern && recognised.without(stern.lines.join("\n")) !== null) return stern;
  const tag = tagOff(lines, filled);
  // The text as it is first: reading it is cheap, reading it without the tag normalises it all again.
  if (tag && recognised.with(lines.join("\n")) === null && recognised.without(tag.lines.join("\n")) !== null)
    return tag;
  const comment = commentOff(lines, filled);
  if (comment && recognised.with(lines.join("\n")) !== COMMENTING_KIND) {
    const kind = recognised.without(comment.lines.join("\n"));
    if (kind !== null && kind !== COMMENTING_KIND) return comment;
  }
  const arrow = arrowOff(lines, filled);
  if (arrow && recognised.with(lines.join("\n")) === null && recognised.without(arrow.lines.join("\n")) !== null)
    return arrow;
  return null;
}

/**
 * The per-line wrappers users' pastes carry, as functions that put one on a clean capture: test support for the
 * metamorphic property (a wrapped capture must give the same key facts as the clean one). Nothing here runs in the
 * product.
 */

export type Wrap = { name: string; apply: (text: string) => string };

const perLine = (text: string, f: (line: string, i: number) => string) =>
  text
    .split("\n")
    .map((l, i) => f(l, i))
    .join("\n");

/**
 * Per line as a web page shows them: a lone carriage return (a progress bar's redraw kept in a log) breaks the line
 * there too (HTML normalises CR to a line feed, https://html.spec.whatwg.org/multipage/parsing.html#preprocessing-the-input-stream),
 * so a page's viewer numbers each piece.
 */
const perShownLine = (text: string, f: (line: string, i: number) => string) => perLine(text.replace(/\r\n?/g, "\n"), f);

// Shapes: Open MPI --tag-output https://docs.open-mpi.org/en/v5.0.x/man-openmpi/man1/mpirun.1.html ; srun --label
// https://slurm.schedmd.com/srun.html#OPT_label ; kubectl logs --prefix/--timestamps
// https://kubernetes.io/docs/reference/kubectl/generated/kubectl_logs/
export const WRAPS: readonly Wrap[] = [
  { name: "mpirun --tag-output", apply: (t) => perLine(t, (l, i) => `[1,${i % 2 ? 1 : 0}]<stdout>:${l}`) },
  { name: "srun --label", apply: (t) => perLine(t, (l, i) => `${i % 2}: ${l}`) },
  { name: "kubectl logs --prefix", apply: (t) => perLine(t, (l) => `[pod/trainer-0/worker] ${l}`) },
  {
    name: "kubectl logs --timestamps",
    apply: (t) => perLine(t, (l, i) => `2026-03-13T22:26:${String(i % 60).padStart(2, "0")}.123456789Z ${l}`),
  },
  { name: "bracketed date", apply: (t) => perLine(t, (l) => `[2026-03-13 22:26:02] ${l}`) },
  { name: "pdsh host", apply: (t) => perLine(t, (l, i) => `kr-node-0${i % 2}: ${l}`) },
  { name: "Markdown fence", apply: (t) => `\`\`\`text\n${t}\n\`\`\`` },
  { name: "CRLF", apply: (t) => t.replace(/\n/g, "\r\n") },
  { name: "ANSI colour", apply: (t) => perLine(t, (l) => (l.trim() ? `\u001b[32m${l}\u001b[0m` : l)) },
  // Shapes: an editor gutter https://github.com/NVIDIA/nccl/issues/687 (numbered pastes); Ray actor prefixes
  // https://github.com/ray-project/ray/issues/59778 ; a capture in a C comment block; Python logging
  // https://docs.python.org/3/library/logging.html#logrecord-attributes
  { name: "editor line numbers", apply: (t) => perLine(t, (l, i) => `${String(i + 1).padStart(4)} | ${l}`) },
  {
    name: "Ray actor (ANSI)",
    apply: (t) => perLine(t, (l, i) => `\u001b[36m(RayWorkerWrapper pid=${330 + (i % 3)}, ip=10.1.2.3)\u001b[0m ${l}`),
  },
  { name: "C comment stars", apply: (t) => perLine(t, (l) => ` * ${l}`) },
  { name: "Python logger", apply: (t) => perLine(t, (l) => `2026-03-13 22:26:02,118 - trainer - INFO - ${l}`) },
  // Shapes: docker compose logs https://docs.docker.com/reference/cli/docker/compose/logs/ ; journalctl's short format
  // https://man7.org/linux/man-pages/man1/journalctl.1.html ; moreutils ts https://manpages.debian.org/moreutils/ts.1.en.html ;
  // torchrun --tee https://docs.pytorch.org/docs/stable/elastic/run.html ; a Markdown indented code block
  // https://spec.commonmark.org/0.31.2/#indented-code-blocks ; a tab-indented paste.
  { name: "docker compose", apply: (t) => perLine(t, (l) => `trainer-1  | ${l}`) },
  { name: "journalctl", apply: (t) => perLine(t, (l, i) => `Dec 05 12:00:0${i % 10} gpu-node-7 python3[4121]: ${l}`) },
  { name: "moreutils ts", apply: (t) => perLine(t, (l, i) => `Dec  5 12:00:${String(i % 60).padStart(2, "0")} ${l}`) },
  { name: "torchrun --tee", apply: (t) => perLine(t, (l, i) => `[default${i % 2}]:${l}`) },
  { name: "PyTorch rank", apply: (t) => perLine(t, (l, i) => `[rank${i % 2}]: ${l}`) },
  { name: "Markdown indented code", apply: (t) => perLine(t, (l) => `    ${l}`) },
  { name: "tab indent", apply: (t) => perLine(t, (l) => `\t${l}`) },
  // Shapes: Horovod's {time}[{rank}]<{prefix}>: (horovod/runner/common/util/safe_shell_exec.py); Intel MPI's
  // -prepend-rank; grep -H https://www.gnu.org/software/grep/manual/grep.html#Output-Line-Prefix-Control ; cat -n.
  {
    name: "Horovod",
    apply: (t) => perLine(t, (l, i) => `Sat Dec  5 12:00:0${i % 10} 2026[${2 + (i % 2)}]<stdout>:${l}`),
  },
  // Ranks 4 and 5: a capture that already carries a launcher's `[0]` on each piece of a row (rank-tag-mid-row-…) cannot
  // tell that tag from an outer `[0] ` of the same rank; an outer launcher of other ranks it can.
  { name: "-prepend-rank", apply: (t) => perLine(t, (l, i) => `[${4 + (i % 2)}] ${l}`) },
  { name: "grep -H", apply: (t) => perLine(t, (l) => `logs/worker-0.log:${l}`) },
  { name: "cat -n", apply: (t) => perLine(t, (l, i) => `${String(i + 1).padStart(6)}\t${l}`) },
  // vLLM's worker processes: https://github.com/vllm-project/vllm/issues/17756
  { name: "vLLM worker", apply: (t) => perLine(t, (l, i) => `(VllmWorker rank=${i % 2} pid=40${i % 2}) ${l}`) },
  // A Markdown block quote around a paste: https://spec.commonmark.org/0.31.2/#block-quotes
  { name: "Markdown quote", apply: (t) => perLine(t, (l) => `> ${l}`) },
  // A text UI's log pane copied with its left border, padded to the pane's width (k9s, shape seen in
  // https://github.com/NVIDIA/nccl/issues/733).
  // A pane draws the line, not its carriage return.
  { name: "pane border", apply: (t) => perLine(t, (l) => `│ ${l.replace(/\r$/, "").padEnd(100)}`) },
];

/**
 * Wrappers read only on a whole paste (src/analyze/page-wrappers.ts, record-prefixes.ts), not by the line reader a big
 * log streams through: in the stacks below, not in the big-log test.
 */
export const PAGE_WRAPS: readonly Wrap[] = [
  // Pages and viewers: line numbers glued to the text (a docs site's code block,
  // https://docs.nvidia.com/cluster-readiness-engine/how-to-guides/run-nccl-benchmarks); a forge's source view, a lone
  // `|` after every line (https://code.badstorm.xyz/AI/rocm-systems/src/commit/130ee246e21d3f73c977eda496ac9c90c3aa520b/src/all_gather.cu);
  // a rendered list's bullet (https://excel.kuizhiqing.cn/nccl/nccl.html); stern's pod and container
  // (https://github.com/felipecrs/stern).
  { name: "viewer line numbers (glued)", apply: (t) => perShownLine(t, (l, i) => `${i + 1}${l}`) },
  {
    name: "source view gutter",
    apply: (t) =>
      t
        .split("\n")
        .flatMap((l) => [l, "|"])
        .join("\n"),
  },
  { name: "page bullets", apply: (t) => perLine(t, (l) => `  • ${l}`) },
  { name: "stern", apply: (t) => perLine(t, (l) => `trainer-0-x8k2p worker ${l}`) },
  // A page's own characters (src/analyze/web-characters.ts): a code block's spaces as no-break spaces, a renderer's
  // typographic quotes, markup left escaped, zero-width break opportunities after underscores, an editor's byte-order
  // mark; and a page that made each line its own paragraph (a blank line after every line).
  { name: "no-break spaces", apply: (t) => t.replace(/ /g, "\u00a0") },
  {
    name: "typographic quotes",
    apply: (t) => t.replace(/'([^'\n]*)'/g, "\u2018$1\u2019").replace(/"([^"\n]*)"/g, "\u201c$1\u201d"),
  },
  {
    name: "HTML-escaped",
    apply: (t) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"),
  },
  { name: "zero-width spaces", apply: (t) => t.replace(/_/g, "_\u200b") },
  { name: "byte-order mark", apply: (t) => `\ufeff${t}` },
  { name: "double-spaced", apply: (t) => t.replace(/\n/g, "\n\n") },
];

const ALL_WRAPS = [...WRAPS, ...PAGE_WRAPS];

/** Every wrapper alone and every ordered pair of different wrappers (the inner one applied first). */
export const WRAP_STACKS: readonly (readonly Wrap[])[] = [
  ...ALL_WRAPS.map((w) => [w]),
  ...ALL_WRAPS.flatMap((a) => ALL_WRAPS.filter((b) => b !== a).map((b) => [a, b])),
];

/**
 * What a question quotes inline: a line of a tool's output in a sentence, as Markdown inline code or in bold ("the
 * nccl shows: `INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'`", shape seen at
 * https://github.com/NVIDIA/nccl/issues/1939 and https://github.com/NVIDIA/nccl/issues/1151). Read only when the text
 * as a whole is no capture: each quoted span becomes a line of its own, and the spans are judged as any paste is.
 * Pure.
 */

/** Inline code (one or two backticks, CommonMark 6.1) or strong emphasis (`**…**`) on one line. */
const SPAN = /``\s?([^`\n]+?)\s?``|`([^`\n]+)`|\*\*([^*\n]+)\*\*/g;

/** A quoted span too short to be a line of output (`dmesg`, `mlx5_0`): a word the writer named, not output. */
const LEAST = 16;

/**
 * The text's quoted spans, a line each, in order; null when it quotes none long enough to be output. `keep` names the
 * unquoted lines that belong with them (a banner the question pasted bare above its quote: `NCCL version 2.4.8+cuda10.0`,
 * then the WARN in backticks, shape seen at https://github.com/NVIDIA/nccl/issues/296).
 */
export function inlineQuotesOf(text: string, keep: (line: string) => boolean = () => false): string | null {
  const out: string[] = [];
  let spans = 0;
  for (const line of text.split("\n")) {
    // A fence line is not inline code; a line of its own that is all one span is already a line.
    if (/^\s*```/.test(line)) continue;
    let quoted = false;
    for (const m of line.matchAll(SPAN)) {
      quoted = true;
      const span = (m[1] ?? m[2] ?? m[3] ?? "").trim();
      if (span.length >= LEAST) {
        out.push(span);
        spans++;
      }
    }
    if (!quoted && line.trim() !== "" && keep(line)) out.push(line.trim());
  }
  return spans > 0 ? out.join("\n") : null;
}

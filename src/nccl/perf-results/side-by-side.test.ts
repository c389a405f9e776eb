import { describe, expect, test } from "vitest";
import { analyzeTranscript } from "../../analyze/index.js";

// Two nccl-tests outputs compared by pasting them side by side, `left  |  right` on every line (header lines and
// rows alike); shape seen at https://github.com/ROCm/rccl/pull/1352 (own numbers).
const head =
  "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong";
const row = (bytes: number, busbw: number) =>
  `${String(bytes).padStart(12)}  ${String(bytes / 4).padStart(12)}     float     sum      -1    30.00   35.00   ${busbw.toFixed(2).padStart(6)}      0    29.00   36.00   ${busbw.toFixed(2).padStart(6)}      0`;
const pair = (l: string, r: string) => `${l}  |  ${r}`;

describe("nccl-tests outputs pasted side by side", () => {
  test("are two runs: the left one, then the right one, each with its own rows", () => {
    const text = [
      "before vs after",
      pair(head, head),
      pair(row(1048576, 60.5), row(1048576, 66.1)),
      pair(row(2097152, 95.2), row(2097152, 103.9)),
      pair(row(4194304, 137.0), row(4194304, 149.3)),
      "",
    ].join("\n");
    const [e] = analyzeTranscript("paste.txt", text);
    expect(e!.kind).toBe("nccl_tests");
    const d = e!.data as { collective: string; runs: { rows: unknown[]; peak: { busbw: number } | null }[] };
    expect(d.collective).toBe("all_reduce");
    expect(d.runs).toHaveLength(2);
    expect(d.runs.map((r) => r.rows.length)).toEqual([3, 3]);
  });

  test("a line with a bar whose halves are not both output lines leaves one output as it is", () => {
    const text = [
      "# nThread 1 nGpus 8 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 validation: 1",
      head,
      row(1048576, 60.5),
      row(2097152, 95.2),
      row(4194304, 137.0),
      "# Avg bus bandwidth    : 97.5667",
      "summary  |  4194304  peak 137.0",
      "",
    ].join("\n");
    const [e] = analyzeTranscript("paste.txt", text);
    const d = e!.data as { rows: unknown[]; avgBusBw: number | null };
    expect(d.rows).toHaveLength(3);
    expect(d.avgBusBw).toBe(97.5667);
  });
});

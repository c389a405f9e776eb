import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CAPTURES } from "./corpus.js";
import { analyzeText } from "./index.js";
import { renderAnalyzeText } from "./render.js";

const analyze = (file: string) => analyzeText(file, readFileSync(join(CAPTURES, file), "utf8"));

describe("findings say how sure they are when the capture is partial", () => {
  test("an all_reduce run that died mid-table with no command line → its findings are low confidence, with both reasons", () => {
    const e = analyze("nccl_tests/died-cuda-error-midtable.txt");
    expect(e.findings.length).toBeGreaterThan(0);
    for (const f of e.findings) {
      expect(f.confidence?.level).toBe("low");
      expect(f.confidence?.why.join(" ")).toMatch(/stopped before its footer.*inferred from the table/);
    }
    expect(e.problems?.map((p) => p.code)).toContain("nccl_tests.incomplete");
  });

  test("a whole run whose header names the program → no confidence mark on its findings", () => {
    const e = analyze("nccl_tests/two-runs-pasted.txt");
    expect(e.findings.length).toBeGreaterThan(0);
    for (const f of e.findings) expect(f.confidence).toBeUndefined();
  });

  test("a 2.7 log without any `Using network` line → the RDMA verdict is medium confidence and says why", () => {
    const e = analyze("nccl_log/hosts-rank-bracket-prefix.txt");
    const verdict = e.findings.find((f) => f.code === "NCCL_LOG_VERDICT");
    expect(verdict?.confidence).toEqual({
      level: "medium",
      why: ["no `Using network` line: the network comes from the connection lines or device lists"],
    });
  });

  test("a log cut mid-line before any Init COMPLETE → low confidence; its WARN-free facts still read", () => {
    const e = analyze("nccl_log/cut-mid-line-srun.txt");
    const verdict = e.findings.find((f) => f.code === "NCCL_LOG_VERDICT");
    expect(verdict?.confidence?.level).toBe("low");
    expect(verdict?.confidence?.why).toContain("the log ends in the middle of a line");
  });

  test("the text report prints how sure a finding is, and a log with no init line gives its nodes without '0 ranks'", () => {
    // Wrapped to 80 columns: read it as one line of words.
    const text = renderAnalyzeText([analyze("nccl_log/channels-only-ib-gdr.txt")]).replace(/\s+/g, " ");
    expect(text).toMatch(/confidence low: no `Using network` line.*; no `Init COMPLETE` line/);
    expect(text).toMatch(/2 node\(s\); network IB; verdict rdma_gdr/);
    expect(text).not.toMatch(/0 ranks/);
  });

  test("a whole log with its Using and Init COMPLETE lines → the verdict carries no confidence mark", () => {
    const e = analyze("nccl_log/new-2.25-ro-ras.txt");
    expect(e.findings.find((f) => f.code === "NCCL_LOG_VERDICT")?.confidence).toBeUndefined();
  });
});

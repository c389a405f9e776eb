/** The examples in the documentation are what the tool prints today (regenerate: npm run docs:examples). */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { DOC_FILES, markedCommands, regenerateDocExamples } from "./support/doc-examples.js";

describe("documentation examples are produced by the tool", () => {
  test.each(DOC_FILES)(
    "%s: every marked example block is the command's current output",
    async (path) => {
      const text = readFileSync(path, "utf8");
      // verify on a healthy and a broken node, nccl-env, bench job: a file whose markers were lost passes nothing.
      expect(markedCommands(text).length).toBeGreaterThanOrEqual(4);
      const current = await regenerateDocExamples(text);
      // On a mismatch, run `npm run docs:examples` and review the diff: the words changed in the tool.
      expect(text).toBe(current);
    },
    60_000,
  );

  test("a drifted block is caught: the old GID_INDEX_DIFFERS severity no longer matches", async () => {
    const stale = [
      "<!-- tool-output: verify --example gid-index-5 -->",
      "```console",
      "$ kube-rdma verify --example gid-index-5",
      "Errors (1)",
      "  GID_INDEX_DIFFERS  mlx5_5",
      "```",
    ].join("\n");
    const regenerated = await regenerateDocExamples(stale);
    expect(regenerated).not.toBe(stale);
    expect(regenerated).toMatch(/Warnings \(1\)\n {2}GID_INDEX_DIFFERS/);
  });
});

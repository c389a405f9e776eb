/**
 * Every output the README shows comes from a command this test runs: each ```text block is a `$ kube-rdma …` line
 * followed by exactly what that command prints today. A change that alters the output fails here until the README
 * shows the new output (regenerate a block by running its command).
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";

const README = readFileSync("README.md", "utf8");

/** The ```text blocks, each as the commands it shows and the output under each. */
function shownRuns(text: string): { argv: string[]; output: string }[] {
  const runs: { argv: string[]; output: string }[] = [];
  for (const m of text.matchAll(/```text\n([\s\S]*?)```/g)) {
    let current: { argv: string[]; lines: string[] } | null = null;
    const flush = () => {
      if (current) runs.push({ argv: current.argv, output: current.lines.join("\n") });
    };
    for (const line of m[1]!.replace(/\n$/, "").split("\n")) {
      const cmd = /^\$ kube-rdma (.*)$/.exec(line);
      if (cmd) {
        flush();
        current = { argv: cmd[1]!.split(/\s+/), lines: [] };
      } else current?.lines.push(line);
    }
    flush();
  }
  return runs;
}

describe("the README shows what the commands print", () => {
  test("it opens with the two commands: the main job on the A100 RoCE example node, and every test", () => {
    const first = /```sh\n([\s\S]*?)```/.exec(README)![1]!.split("\n");
    expect(first[0]).toMatch(/^npm ci && npx kube-rdma verify --example a100-8x-roce\s+#/);
    expect(first[1]).toMatch(/^npm ci && npm test\s+#/);
  });

  const runs = shownRuns(README);
  test("it shows at least five real runs", () => {
    expect(runs.length).toBeGreaterThanOrEqual(5);
  });
  test.each(runs.map((r) => [r.argv.join(" "), r] as const))("$ kube-rdma %s", async (_name, run) => {
    const io = captureIo();
    await main(run.argv, io);
    expect(run.output).toBe(io.out.replace(/\n$/, ""));
  });

  test("it is a short page: recipes here, the reference in docs/", () => {
    expect(README.split("\n").length).toBeLessThan(260);
    expect(README).toMatch(/\(docs\/reference\.md\)/);
  });
});

/** Users never read our design notes: help, findings and fixes name things by what they are, not "the seed". */
import { expect, test } from "vitest";
import { COMMANDS } from "../src/cli/commands/index.js";
import { main } from "../src/cli/main.js";
import { listExamples } from "../src/examples/index.js";
import { captureIo } from "./support/io.js";

/**
 * Example names, and `fleet bench --seed S` (a random seed for the simulated fleet, the flag the fleet-bench issue
 * names) — neither is the jargon this test guards against.
 */
const names = [...listExamples().map((e) => e.name), "--seed"];
/** The lines that still say "seed" once every example name is taken out of them. */
const seedWords = (text: string) =>
  text.split("\n").filter((line) => /seed/i.test(names.reduce((l, n) => l.split(n).join(""), line)));

test("every --help text says seed only inside example names", async () => {
  const texts: string[] = [];
  for (const argv of [["--help"], ...COMMANDS.map((c) => [c.name, "--help"])]) {
    const io = captureIo();
    await main(argv, io);
    texts.push(io.out);
  }
  expect(texts.flatMap(seedWords)).toEqual([]);
});

test("`examples` says what each example is without the word: the A100 RoCE example node and its variations", async () => {
  const io = captureIo();
  await main(["examples"], io);
  expect(seedWords(io.out)).toEqual([]);
  expect(io.out).toMatch(/port-down\s+the A100 RoCE example node, but mlx5_3/);
});

test("findings and NCCL reasons on the example nodes say seed only inside example names", async () => {
  const out: string[] = [];
  for (const name of ["a100-8x-roce", "no-ofed", "pod-restricted", "gid-index-5"]) {
    for (const argv of [
      ["verify", "--example", name, "--pod"],
      ["nccl-env", "--example", name],
    ]) {
      const io = captureIo();
      await main(argv, io);
      out.push(io.out, io.err);
    }
  }
  expect(out.flatMap(seedWords)).toEqual([]);
  expect(out.join("\n")).toContain("the value Baidu CCE injects");
});

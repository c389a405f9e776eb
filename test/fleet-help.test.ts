import { expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";

const help = async (...argv: string[]) => {
  const io = captureIo();
  expect(await main(argv, io)).toBe(0);
  return io.out;
};

test("fleet verify and fleet bench each have their own help, with only their own options", async () => {
  const verify = await help("fleet", "verify", "--help");
  const bench = await help("fleet", "bench", "--help");
  expect(verify).toMatch(/^Usage: kube-rdma fleet verify/);
  expect(verify).toMatch(/--max-age/);
  expect(verify).toMatch(/--save-snapshots/);
  expect(verify).not.toMatch(/--bad-nodes|--simulate|fleet bench finds/);
  expect(bench).toMatch(/^Usage: kube-rdma fleet bench/);
  expect(bench).toMatch(/--simulate/);
  expect(bench).not.toMatch(/--max-age|--save-snapshots|fleet verify runs/);
  const both = await help("fleet", "--help");
  expect(both).toMatch(/kube-rdma fleet verify --help/);
  expect(both.split("\n").length).toBeGreaterThan(verify.split("\n").length); // the overview lists every option
});

/**
 * A slow benchmark never passes in silence. A 2-node 8×A100 all_reduce at 61.8 GB/s (a third of what 8 HDR NICs per
 * node give: NVIDIA measures 192 GB/s on DGX A100, https://github.com/NVIDIA/nccl/issues/812) is an error as soon
 * as something says what the nodes' NICs allow (a node model or --expect); without that it is a warning that names
 * what would make it judgeable, and a warning that it is below every published baseline for these GPUs (the lowest,
 * 8×A100 with 4 HDR NICs, reaches 86–91 GB/s: https://github.com/NVIDIA/nccl-tests/issues/100).
 */
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";

const SLOW = "fixtures/nccl-tests/allreduce-2node-a100-slow-61.txt";

async function analyze(...args: string[]) {
  const io = captureIo();
  const code = await main(["analyze", SLOW, "-o", "json", ...args], io);
  const [entry] = JSON.parse(io.out);
  return {
    code,
    codes: (entry.findings as { code: string; severity: string }[]).map((f) => `${f.severity} ${f.code}`),
  };
}

describe("a 2-node 8×A100 nccl-tests run at 61.8 GB/s", () => {
  test("with the node model (the A100 RoCE example node: 8 × 200 Gb/s) → error NCCL_TESTS_BANDWIDTH_LOW, exit 1", async () => {
    const r = await analyze("--example", "a100-8x-roce");
    expect(r.codes).toContain("error NCCL_TESTS_BANDWIDTH_LOW");
    expect(r.code).toBe(1);
  });
  test("with --expect 180 → error NCCL_TESTS_BANDWIDTH_LOW, exit 1", async () => {
    const r = await analyze("--expect", "180");
    expect(r.codes).toContain("error NCCL_TESTS_BANDWIDTH_LOW");
    expect(r.code).toBe(1);
  });
  test("with nothing to judge against → not a PASS: warnings saying it was not judged, how to judge it, and that it is below every baseline", async () => {
    const r = await analyze();
    expect(r.codes).toEqual(
      expect.arrayContaining(["warning NCCL_TESTS_NO_EXPECTATION", "warning NCCL_TESTS_BELOW_BASELINES"]),
    );
    const io = captureIo();
    await main(["analyze", SLOW], io);
    expect(io.out).toMatch(/^WARN: 0 error\(s\), 2 warning\(s\)/m);
    expect(io.out).toMatch(/--expect GBps/);
    expect(io.out).toMatch(/--example, --snapshot or --root of one of the nodes/);
    const strict = captureIo();
    expect(await main(["analyze", SLOW, "--strict"], strict)).toBe(1);
  });
});

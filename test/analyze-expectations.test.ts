import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";

const FIX = join(import.meta.dirname, "..", "fixtures");
const capture = (kind: string, name: string) => join(FIX, "captures", kind, `${name}.txt`);

describe("an expectation flag with no input it could judge is an error, never a silent PASS", () => {
  test("--expect-gpus 8 beside a show_gids table only → EXPECTATION_UNCHECKED, FAIL, exit 1", async () => {
    const io = captureIo();
    const code = await main(["analyze", "--expect-gpus", "8", capture("show_gids", "a100-roce-sample")], io);
    expect(code).toBe(1);
    const flat = io.out.replace(/\n\s+/g, " ");
    expect(flat).toMatch(
      /ERROR EXPECTATION_UNCHECKED --expect-gpus: --expect-gpus 8 was not checked: .*none of the inputs is one \(show_gids\)/,
    );
    expect(io.out).toMatch(/^FAIL: 1 error\(s\)/m);
  });

  test("-o json carries the same finding in the first entry", async () => {
    const io = captureIo();
    await main(["analyze", "--expect", "180", capture("show_gids", "a100-roce-sample"), "-o", "json"], io);
    const [first] = JSON.parse(io.out) as { findings: { code: string; subject: string }[] }[];
    expect(first?.findings).toContainEqual(
      expect.objectContaining({ code: "EXPECTATION_UNCHECKED", subject: "--expect" }),
    );
  });

  test("--expect-gpus 8 with the A100 node's nvidia-smi among the inputs → judged there, no EXPECTATION_UNCHECKED", async () => {
    const io = captureIo();
    const code = await main(
      ["analyze", "--expect-gpus", "8", capture("show_gids", "a100-roce-sample"), capture("nvidia_smi", "a100-470")],
      io,
    );
    expect(code).toBe(0);
    expect(io.out).not.toContain("EXPECTATION_UNCHECKED");
  });

  test("--expect 0 or --expect=-5 (met by any run) → usage error, exit 2", async () => {
    for (const value of ["--expect=0", "--expect=-5"]) {
      const io = captureIo();
      const code = await main(["analyze", value, join(FIX, "nccl-tests", "allreduce-2node-a100-hdr-185.txt")], io);
      expect(code).toBe(2);
      expect(io.err).toMatch(/--expect expects GB\/s above 0/);
    }
  });
});

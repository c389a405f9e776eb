import { describe, expect, test } from "vitest";
import { makeFinding } from "../../core/finding.js";
import { FLEET_FINDINGS } from "./catalogue.js";

describe("the fleet findings' words", () => {
  test("a collector that printed nothing: 'gpu-04 could not be verified: … (0 bytes of log).' ends with one period, not two", () => {
    const reason = "the collector pod on gpu-04 printed no snapshot JSON (0 bytes of log).";
    const f = makeFinding(FLEET_FINDINGS, "NODE_COLLECT_FAILED", "gpu-04", { node: "gpu-04", reason });
    expect(f.message).toBe(
      "gpu-04 could not be verified: the collector pod on gpu-04 printed no snapshot JSON (0 bytes of log).",
    );
  });
});

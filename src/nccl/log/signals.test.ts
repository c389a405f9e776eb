import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";

const analyze = (file: string) => analyzeText(file, readFileSync(file, "utf8"));

// Both lines are NCCL's own INFO output: net_ib.cc ("NET/IB : GPU Direct RDMA Disabled for HCA %d '%s' (%s)") and
// param.cc ("%s set by environment to %s") — https://github.com/NVIDIA/nccl, src/transport/net_ib.cc, src/misc/param.cc.
describe("what NCCL says about its own choices", () => {
  test("'GPU Direct RDMA Disabled for HCA 0 mlx5_1 (no module)' → warning NCCL_WARN_GDR_DISABLED_FOR_HCA with the reason, verdict RDMA without GPUDirect", () => {
    const e = analyze("fixtures/nccl-logs/gdr-disabled-no-module-2.19.txt");
    const f = e.findings.find((x) => x.code === "NCCL_WARN_GDR_DISABLED_FOR_HCA");
    expect(f?.severity).toBe("warning");
    expect(f?.message).toMatch(/no module/);
    expect((e.data as { verdict: string }).verdict).toBe("rdma_no_gdr");
  });
  test("'NCCL_IB_DISABLE set by environment to 1' → verdict socket, with the variable named as the cause", () => {
    const e = analyze("fixtures/nccl-logs/ib-disabled-by-env-2.21.txt");
    expect((e.data as { verdict: string }).verdict).toBe("socket");
    const f = e.findings.find((x) => x.code === "NCCL_WARN_IB_DISABLED_BY_ENV");
    expect(f?.message).toMatch(/NCCL_IB_DISABLE=1 is set/);
    expect(f?.fix).toMatch(/Remove NCCL_IB_DISABLE=1/);
  });
});

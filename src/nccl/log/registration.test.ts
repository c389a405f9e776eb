import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";

const analyze = (file: string) => analyzeText(file, readFileSync(file, "utf8"));
const codes = (file: string) => analyze(file).findings.map((f) => f.code);

// ibv_reg_mr(3): EFAULT is an address the NIC driver could not pin (for a GPU buffer: no peer-memory client or
// DMA-BUF, or BAR1 exhausted); ENOMEM is the locked-memory limit. The WARN line's shape is NCCL's
// misc/ibvwrap.cc "Call to ibv_reg_mr_iova2 failed with error %s" (https://github.com/NVIDIA/nccl, src/misc/ibvwrap.cc).
describe("a failed memory registration: GPU memory (EFAULT) is not the memlock limit (ENOMEM)", () => {
  test("'ibv_reg_mr_iova2 failed with error Bad address' → NCCL_WARN_GPU_MEM_REG_FAILED with the GPUDirect fix, and no GDR verdict", () => {
    const file = "fixtures/nccl-logs/gdr-reg-efault-2.21.txt";
    expect(codes(file)).toContain("NCCL_WARN_GPU_MEM_REG_FAILED");
    expect(codes(file)).not.toContain("NCCL_WARN_MEMLOCK");
    const entry = analyze(file);
    expect((entry.data as { verdict: string }).verdict).toBe("init_failed");
    const f = entry.findings.find((x) => x.code === "NCCL_WARN_GPU_MEM_REG_FAILED")!;
    expect(f.fix).toMatch(/nvidia_peermem/);
    expect(f.fix).toMatch(/BAR1/);
  });
  test("'failed with error Cannot allocate memory' → NCCL_WARN_MEMLOCK (ulimit -l)", () => {
    const file = "fixtures/nccl-logs/reg-enomem-memlock-2.21.txt";
    expect(codes(file)).toContain("NCCL_WARN_MEMLOCK");
    expect(codes(file)).not.toContain("NCCL_WARN_GPU_MEM_REG_FAILED");
  });
});

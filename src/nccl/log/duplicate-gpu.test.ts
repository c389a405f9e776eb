/**
 * Two ranks on one GPU: NCCL's init refuses the communicator (src/init.cc `Duplicate GPU detected : rank %d and rank %d
 * both on CUDA device %lx`, ncclInvalidUsage; https://github.com/NVIDIA/nccl/blob/master/src/init.cc). In Kubernetes
 * it is a pod given fewer GPUs than it runs ranks, or a shared GPU.
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

// Shape seen at https://github.com/horovod/horovod/issues/3929 (every rank behind mpirun's --tag-output).
const tagged = [
  "[1,2]<stdout>:gpu-b-03:29880:30398 [0] init.cc:497 NCCL WARN Duplicate GPU detected : rank 2 and rank 0 both on CUDA device 1000",
  "[1,2]<stdout>:gpu-b-03:29880:30398 [0] NCCL INFO init.cc:867 -> 5",
  "[1,0]<stdout>:gpu-b-03:29878:30419 [0] init.cc:497 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1000",
  "[1,0]<stdout>:gpu-b-03:29878:30419 [0] NCCL INFO init.cc:867 -> 5",
].join("\n");

describe("two ranks on one GPU", () => {
  test("the WARN of every rank → one error NCCL_WARN_DUPLICATE_GPU, init failed", () => {
    const r = analyzeNcclLog(tagged);
    expect(r.data.verdict).toBe("init_failed");
    expect(r.data.warnings.map((w) => [w.code, w.count])).toEqual([["NCCL_WARN_DUPLICATE_GPU", 2]]);
    expect(r.findings.find((f) => f.code === "NCCL_WARN_DUPLICATE_GPU")?.severity).toBe("error");
  });

  test("other device warnings stay what they were", () => {
    const other =
      "gpu-b-03:29880:30398 [0] misc/nvmlwrap.cc:181 NCCL WARN nvmlDeviceGetHandleByPciBusId() failed: Not Found";
    expect(analyzeNcclLog(other).data.warnings.map((w) => w.code)).not.toContain("NCCL_WARN_DUPLICATE_GPU");
  });
});

/**
 * A paste that holds no NCCL line but the framework's report of the failed NCCL call (the job ran without
 * NCCL_DEBUG=INFO) is an NCCL failure: `analyze` reads it as an NCCL log, not as an unknown format.
 */
import { describe, expect, test } from "vitest";
import { detectKind } from "../../analyze/detect.js";
import { ANALYZERS } from "../../analyze/registry.js";
import { analyzeNcclLog } from "./analyzer.js";

// Shape seen at https://github.com/TaiMingLu/Della-Manual/issues/2 (a Lightning job, every line behind `[rank0]: `):
// PyTorch's C10D_NCCL_CHECK text `NCCL error in: <file>:<line>, <error>, NCCL version <v>` and the detail after it
// (torch/csrc/distributed/c10d/NCCLUtils.hpp, ncclGetErrorWithVersion / getNcclErrorDetailStr).
const lightning = [
  "[rank0]: Traceback (most recent call last):",
  '[rank0]:   File "/home/u7/fit.py", line 40, in <module>',
  "[rank0]:     trainer.fit(model)",
  "[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
  "[rank0]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
  "[rank0]: Last error:",
  "[rank0]: socketStartConnect: Connect to 10.8.1.4<51022> failed : Software caused connection abort",
].join("\n");

// Shape seen at https://github.com/NVIDIA/nccl/issues/827: a DeepSpeed traceback, `internal error` and nothing after
// `Last error:`.
const deepspeed = [
  "[2024-01-09 10:02:11,017] [INFO] [comm.py:637:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl",
  "Traceback (most recent call last):",
  '  File "train.py", line 12, in <module>',
  "    torch.distributed.barrier()",
  "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1207, internal error, NCCL version 2.18.1",
  "ncclInternalError: Internal check failed.",
  "Last error:",
  "",
].join("\n");

describe("the framework's report of a failed NCCL call", () => {
  test("PyTorch's `NCCL error in: …, NCCL version 2.20.5` behind `[rank0]: ` → nccl_log, init failed, the version", () => {
    expect(detectKind(lightning, ANALYZERS).kind).toBe("nccl_log");
    const r = analyzeNcclLog(lightning);
    expect(r.data).toMatchObject({ verdict: "init_failed", ncclVersions: ["2.20.5"] });
  });

  test("a DeepSpeed traceback ending in `internal error, NCCL version 2.18.1` → nccl_log, init failed", () => {
    expect(detectKind(deepspeed, ANALYZERS).kind).toBe("nccl_log");
    expect(analyzeNcclLog(deepspeed).data).toMatchObject({ verdict: "init_failed", ncclVersions: ["2.18.1"] });
  });

  test("prose about an NCCL error, without the report's shape, stays unknown", () => {
    const prose =
      "The job failed with an NCCL error in the barrier; NCCL version 2.18 was installed.\n" +
      "Rerun it with NCCL_DEBUG=INFO and attach the NCCL operation log.\n";
    expect(detectKind(prose, ANALYZERS).kind).toBe("unknown");
  });
});

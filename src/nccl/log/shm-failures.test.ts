/**
 * NCCL's shared-memory transport failing to create or attach its /dev/shm segment (src/misc/shmutils.cc; before
 * NCCL 2.12 include/shm.h; https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#shared-memory)
 * is an error with its own cause: before any `Init COMPLETE` the communicator was never built.
 */
import { describe, expect, test } from "vitest";
import { detectKind } from "../../analyze/detect.js";
import { ANALYZERS } from "../../analyze/registry.js";
import { analyzeNcclLog } from "./analyzer.js";

const codes = (text: string) => analyzeNcclLog(text).data.warnings.map((w) => w.code);

describe("shared-memory segment failures", () => {
  test.each([
    // https://github.com/pytorch/ci-infra/pull/490 (NCCL 2.2x, errno after the message)
    [
      "failed to extend /dev/shm (2.2x)",
      "ci-runner-4:40216:40235 [0] misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/nccl-Ab12Cd to 9637892 bytes, error: No space left on device (28)",
    ],
    // https://github.com/NVIDIA/nccl/issues/290 (NCCL 2.5, include/shm.h)
    [
      "posix_fallocate (≤ 2.11)",
      "gpu-7:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",
    ],
    // https://github.com/vllm-project/vllm/issues/18831
    [
      "attaching to a removed segment",
      "gpu-7:5121:5121 [2] misc/shmutils.cc:129 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl- (size 192814336), error: No such file or directory (2)",
    ],
  ])("%s → NCCL_WARN_SHM, init failed", (_, warn) => {
    const text = `gpu-7:2142:2554 [0] NCCL INFO Channel 00 : 0[1a000] -> 1[1b000] via SHM/direct/direct\n\n${warn}\n`;
    expect(codes(text)).toEqual(["NCCL_WARN_SHM"]);
    expect(analyzeNcclLog(text).data.verdict).toBe("init_failed");
  });

  test("after every rank completed its init (a later communicator failed) the run is not an init failure", () => {
    // https://github.com/huggingface/transformers/issues/11658
    const text = [
      "pod-a:97:176 [0] NCCL INFO comm 0x7ff1ec001060 rank 0 nranks 2 cudaDev 0 busId 100000 - Init COMPLETE",
      "pod-a:98:177 [1] NCCL INFO comm 0x7f3a0c001060 rank 1 nranks 2 cudaDev 1 busId 200000 - Init COMPLETE",
      "pod-a:97:260 [0] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",
    ].join("\n");
    expect(codes(text)).toEqual(["NCCL_WARN_SHM"]);
    expect(analyzeNcclLog(text).data.verdict).not.toBe("init_failed");
  });

  test("hostless WARN lines that name their source (`[1] misc/shmutils.cc:103 NCCL WARN …`) are an NCCL log", () => {
    // https://github.com/NVIDIA/nccl/issues/1518: only such lines pasted.
    const text = [
      "[1] misc/shmutils.cc:103 NCCL WARN Cuda failure 'invalid argument'",
      "",
      "[1] misc/shmutils.cc:114 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Qw3e (size 9637888)",
    ].join("\n");
    expect(detectKind(text, ANALYZERS).kind).toBe("nccl_log");
    expect(analyzeNcclLog(text).data.verdict).toBe("init_failed");
  });
});

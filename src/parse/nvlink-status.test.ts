import { describe, expect, test } from "vitest";
import { parseNvlinkStatus } from "./nvlink-status.js";

// Shape of `nvidia-smi nvlink -s` as printed on a V100 board with links down
// (https://github.com/Azure/azhpc-diagnostics/issues/73) and on GB200 (https://github.com/NVIDIA/k8s-test-infra/issues/371):
// our own GPUs, UUIDs and speeds.
const TWO_GPUS = [
  "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-0b7d2e44-91c3-4f0a-8e21-6c5d3b9a1f07)",
  "\t Link 0: 25 GB/s",
  "\t Link 1: <inactive>",
  "\t Link 2: 25 GB/s",
  "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-5e2a8c19-03bd-4d77-a6f4-91e0c27b3d58)",
  "\t Link 0: 25 GB/s",
  "\t Link 1: 25 GB/s",
  "\t Link 2: 25 GB/s",
].join("\n");

describe("nvidia-smi nvlink -s", () => {
  test("each GPU with its links; <inactive> has no speed", () => {
    const r = parseNvlinkStatus(TWO_GPUS);
    expect(r.ok && r.value).toEqual([
      {
        gpu: 0,
        name: "NVIDIA A100-SXM4-80GB",
        links: [
          { link: 0, gbps: 25 },
          { link: 1, gbps: null },
          { link: 2, gbps: 25 },
        ],
      },
      {
        gpu: 1,
        name: "NVIDIA A100-SXM4-80GB",
        links: [
          { link: 0, gbps: 25 },
          { link: 1, gbps: 25 },
          { link: 2, gbps: 25 },
        ],
      },
    ]);
    expect(r.problems).toEqual([]);
  });

  test("an NVML error instead of the table is a problem, not an empty pass", () => {
    const r = parseNvlinkStatus("Failed to initialize NVML: Driver/library version mismatch\n");
    expect(r.ok).toBe(false);
    expect(r.problems[0]?.code).toBe("nvlink_status.no_gpu");
  });
});

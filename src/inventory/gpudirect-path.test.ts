import { describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { SnapshotHostReader } from "../host/index.js";
import type { Snapshot } from "../host/types.js";
import { readInventory } from "./index.js";

// DMA-BUF for GPU memory needs the open GPU kernel module, driver ≥ 515 and kernel ≥ 5.12
// (https://docs.nvidia.com/cuda/gpudirect-rdma/#using-dma-buf); /proc/driver/nvidia/version says which module runs.
const OPEN =
  "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Aug 31 21:26:55 UTC 2023\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
const PROPRIETARY =
  "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Thu Aug 31 21:26:55 UTC 2023\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";

/** The A100 RoCE example node without nvidia_peermem, on driver 535 and kernel 6.1, with one module flavour. */
async function gpuDirect(version: string) {
  const s: Snapshot = structuredClone(exampleSnapshot("no-peermem"));
  s.files["/proc/driver/nvidia/version"] = version;
  s.files["/proc/sys/kernel/osrelease"] = "6.1.0-18-amd64\n";
  for (const [k, v] of Object.entries(s.files)) {
    if (typeof v === "string" && v.includes("470.141.03")) s.files[k] = v.replaceAll("470.141.03", "535.104.05");
  }
  for (const c of Object.values(s.commands)) c.stdout = c.stdout.replaceAll("470.141.03", "535.104.05");
  return (await readInventory(new SnapshotHostReader(s, "test"))).gpuDirect;
}

describe("which GPUDirect path is live", () => {
  test("driver 535 with the open kernel module, kernel 6.1, no peermem → DMA-BUF", async () => {
    const g = await gpuDirect(OPEN);
    expect(g).toMatchObject({ kernelModule: "open", dmabufPossible: true, mechanism: "dmabuf" });
  });
  test("the same with the proprietary kernel module → no DMA-BUF for GPU memory: no path, and the reason says why", async () => {
    const g = await gpuDirect(PROPRIETARY);
    expect(g).toMatchObject({ kernelModule: "proprietary", dmabufPossible: false, mechanism: null });
    expect(g.reasons.join(" ")).toMatch(/proprietary GPU kernel module exports no DMA-BUF/);
  });
});

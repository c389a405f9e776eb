/**
 * The shape of /proc/driver/nvidia/gpus/<bus id>/information as the NVIDIA kernel module prints it (format strings in
 * NVIDIA/open-gpu-kernel-modules, kernel-open/nvidia/nv-procfs.c: "Model: \t\t %s", "Device Minor: \t %u",
 * "GPU Excluded:\t %s"); the values are our own.
 */
import { describe, expect, test } from "vitest";
import { parseNvidiaGpuInformation } from "./nvidia-gpu-information.js";

const H100 = [
  "Model: \t\t NVIDIA H100 80GB HBM3",
  "IRQ:   \t\t 187",
  "GPU UUID: \t GPU-3c1e9a07-55d2-4b8e-9f10-2a6c7d4e8b91",
  "Video BIOS: \t 96.00.74.00.0d",
  "Bus Type: \t PCIe",
  "DMA Size: \t 52 bits",
  "DMA Mask: \t 0xfffffffffffff",
  "Bus Location: \t 0000:9a:00.0",
  "Device Minor: \t 4",
  "GPU Firmware: \t 535.161.08",
  "GPU Excluded:\t No",
  "",
].join("\n");

describe("/proc/driver/nvidia/gpus/ADDR/information", () => {
  test("an H100: model, UUID, bus location, minor, not excluded", () => {
    expect(parseNvidiaGpuInformation(H100)).toMatchObject({
      ok: true,
      value: {
        model: "NVIDIA H100 80GB HBM3",
        uuid: "GPU-3c1e9a07-55d2-4b8e-9f10-2a6c7d4e8b91",
        busLocation: "0000:9a:00.0",
        minor: 4,
        excluded: false,
      },
    });
  });

  test("an excluded GPU says so; an old driver without the Excluded line leaves it unknown", () => {
    const excluded = parseNvidiaGpuInformation(H100.replace("GPU Excluded:\t No", "GPU Excluded:\t Yes"));
    expect(excluded.ok && excluded.value.excluded).toBe(true);
    const old = parseNvidiaGpuInformation(H100.replace("GPU Excluded:\t No\n", ""));
    expect(old.ok && old.value.excluded).toBeNull();
  });

  test("a damaged file whose Model line is 100 KB of junk names no GPU (the placeholder stays)", () => {
    expect(parseNvidiaGpuInformation(`Model: \t\t ${"\u0001x".repeat(50_000)}\n`).ok).toBe(false);
  });

  test("a file without its Model line is not this file: a problem, no GPU", () => {
    const r = parseNvidiaGpuInformation("IRQ: 12\nBus Type: PCIe\n");
    expect(r.ok).toBe(false);
    expect(r.problems[0]!.message).toMatch(/`Model: <GPU name>`/);
  });
});

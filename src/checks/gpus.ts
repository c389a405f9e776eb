/** GPUs: the expected count and model, and memory health (row remapping, retired pages, ECC). */
import type { Finding } from "../core/finding.js";
import type { Gpu } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import type { Check } from "./types.js";

export const gpuSubject = (gpu: Gpu) => `GPU${gpu.index}`;

export const gpuCountCheck: Check = {
  name: "gpu-count",
  codes: ["GPU_COUNT"],
  run(inv, opts) {
    const found = inv.gpus.length;
    if (opts.expectGpus !== undefined) {
      // With a silent driver the count is unknown, and DRIVER_* already says so.
      if (found === 0 && inv.driver.status !== "ok") return [];
      return found === opts.expectGpus ? [] : [finding("GPU_COUNT", "GPUs", { found, expected: opts.expectGpus })];
    }
    return inv.driver.status === "ok" && found === 0 ? [finding("GPU_COUNT", "GPUs", { found, expected: null })] : [];
  },
};

export const gpuExcludedCheck: Check = {
  name: "gpu-excluded",
  codes: ["GPU_EXCLUDED"],
  run(inv) {
    return (inv.gpusExcluded ?? []).map((address) => finding("GPU_EXCLUDED", address, {}));
  },
};

export const gpuModelCheck: Check = {
  name: "gpu-model",
  codes: ["GPU_MODEL"],
  run(inv, opts) {
    const expected = opts.expectGpuModel?.trim();
    // Names that are placeholders from PCI ids (no nvidia-smi, no /proc from the driver) cannot be judged; DRIVER_* or
    // CHECK_SKIPPED already says why.
    if (!expected || inv.gpus.some((g) => g.nameFrom === "pci")) return [];
    const want = expected.toLowerCase();
    return inv.gpus
      .filter((g) => !g.name.toLowerCase().includes(want))
      .map((g) => finding("GPU_MODEL", gpuSubject(g), { name: g.name, expected, busId: g.pciAddress }));
  },
};

/** What a GPU's memory health is judged on: the node model's fields, also what `analyze` reads from nvidia-smi. */
export type GpuMemoryHealth = Pick<
  Gpu,
  "eccVolatileUncorrected" | "eccAggregateUncorrected" | "retiredPagesPending" | "remappedRows"
> & { busId: string };

/**
 * At most one memory-health finding per GPU: the one whose fix comes first. `verify` and `analyze` both judge
 * through it, so one fact gets one code, one message and one fix whichever command sees it.
 */
export function gpuMemoryFinding(subject: string, gpu: GpuMemoryHealth): Finding | null {
  const busId = gpu.busId;
  const rows = gpu.remappedRows;
  if (rows && (rows.failure || rows.pending)) {
    return finding("GPU_ROW_REMAP", subject, { busId, ...rows });
  }
  if (gpu.retiredPagesPending === true) return finding("GPU_RETIRED_PAGES_PENDING", subject, { busId });
  const volatile = gpu.eccVolatileUncorrected;
  const aggregate = gpu.eccAggregateUncorrected;
  if ((volatile ?? 0) > 0 || (aggregate ?? 0) > 0) {
    const severity = (volatile ?? 0) > 0 ? "error" : "warning";
    return finding("GPU_ECC_UNCORRECTABLE", subject, { busId, volatile, aggregate }, severity);
  }
  return null;
}

const memoryFinding = (gpu: Gpu) => gpuMemoryFinding(gpuSubject(gpu), { ...gpu, busId: gpu.pciAddress });

export const gpuMemoryCheck: Check = {
  name: "gpu-memory",
  codes: ["GPU_ROW_REMAP", "GPU_RETIRED_PAGES_PENDING", "GPU_ECC_UNCORRECTABLE"],
  run(inv) {
    return inv.gpus.map(memoryFinding).filter((f): f is Finding => f !== null);
  },
};

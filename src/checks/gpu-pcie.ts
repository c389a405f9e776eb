/**
 * GPU PCIe link trained below its capability. A narrower link is a fault; a lower generation at full width is
 * what an idle GPU does to save power, so it is only noted.
 */
import type { Finding } from "../core/finding.js";
import type { Gpu } from "../inventory/types.js";
import { parsePcieSpeed, pcieGenOfSpeed } from "../parse/sysfs.js";
import { finding } from "./catalogue.js";
import type { PcieEvidence } from "./catalogue-gpu.js";
import { gpuSubject } from "./gpus.js";
import type { Check } from "./types.js";

/** `16.0 GT/s PCIe` → 4; null for `Unknown` or anything else (the sysfs parsers, reused). */
export function pcieGenFromSpeed(speed: string | null): number | null {
  const r = speed === null ? null : parsePcieSpeed(speed);
  return r?.ok && r.value !== null ? pcieGenOfSpeed(r.value) : null;
}

/** nvidia-smi's view when it reports widths, else the sysfs link. */
function linkOf(gpu: Gpu): Omit<PcieEvidence, "widthDegraded"> | null {
  if (gpu.pcieWidth.current !== null && gpu.pcieWidth.max !== null) {
    return {
      busId: gpu.pciAddress,
      source: "nvidia-smi",
      currentWidth: gpu.pcieWidth.current,
      maxWidth: gpu.pcieWidth.max,
      currentGen: gpu.pcieGen.current,
      maxGen: gpu.pcieGen.max,
    };
  }
  if (gpu.link) {
    return {
      busId: gpu.pciAddress,
      source: "sysfs",
      currentWidth: gpu.link.currentWidth,
      maxWidth: gpu.link.maxWidth,
      currentGen: pcieGenFromSpeed(gpu.link.currentSpeed),
      maxGen: pcieGenFromSpeed(gpu.link.maxSpeed),
    };
  }
  return null;
}

function pcieFinding(gpu: Gpu): Finding | null {
  const link = linkOf(gpu);
  if (!link) return null;
  const below = (cur: number | null, max: number | null) => cur !== null && max !== null && cur > 0 && cur < max;
  const widthDegraded = below(link.currentWidth, link.maxWidth);
  const genLower = below(link.currentGen, link.maxGen);
  if (!widthDegraded && !genLower) return null;
  return finding("GPU_PCIE_DEGRADED", gpuSubject(gpu), { ...link, widthDegraded }, widthDegraded ? "error" : "info");
}

export const gpuPcieCheck: Check = {
  name: "gpu-pcie",
  codes: ["GPU_PCIE_DEGRADED"],
  run(inv) {
    return inv.gpus.map(pcieFinding).filter((f): f is Finding => f !== null);
  },
};

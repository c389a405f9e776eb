/** GPUs the NVIDIA driver keeps from every process (`GPU Excluded: Yes` in its /proc file). Pure. */

import { parseNvidiaGpuInformation } from "../parse/nvidia-gpu-information.js";
import { normalizeBusId } from "../parse/nvidia-smi-xml.js";
import type { HostFacts } from "./facts.js";

export function excludedGpus(facts: Pick<HostFacts, "gpuPci" | "gpuDriverInfo">): { gpusExcluded?: string[] } {
  const out: string[] = [];
  facts.gpuPci.forEach((p, i) => {
    const f = facts.gpuDriverInfo[i];
    const info = f?.ok ? parseNvidiaGpuInformation(f.value) : null;
    if (info?.ok && info.value.excluded === true) out.push(normalizeBusId(p.address) ?? p.address);
  });
  return out.length ? { gpusExcluded: out } : {};
}

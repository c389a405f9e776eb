/**
 * The NVIDIA kernel module's own view of each PCI GPU (/proc/driver/nvidia/gpus/ADDR/information), parsed once: the
 * names where nvidia-smi cannot answer, and the GPUs the driver excludes. Pure.
 */
import { type NvidiaGpuInformation, parseNvidiaGpuInformation } from "../parse/nvidia-gpu-information.js";
import { normalizeBusId } from "../parse/nvidia-smi-xml.js";
import type { Fact, PciFacts } from "./facts.js";

/** Per GPU of `gpuPci`, same order; null where unreadable (older snapshots, no module): a fallback, never a problem. */
export type GpuDriverInfo = NvidiaGpuInformation | null;

export function gpuDriverInfos(facts: readonly Fact[]): GpuDriverInfo[] {
  return facts.map((f) => {
    const r = f.ok ? parseNvidiaGpuInformation(f.value) : null;
    return r?.ok ? r.value : null;
  });
}

/** GPUs the driver keeps from every process (`GPU Excluded: Yes`). */
export function excludedGpus(
  gpuPci: readonly PciFacts[],
  infos: readonly GpuDriverInfo[],
): { gpusExcluded?: string[] } {
  const out = gpuPci.flatMap((p, i) => (infos[i]?.excluded === true ? [normalizeBusId(p.address) ?? p.address] : []));
  return out.length ? { gpusExcluded: out } : {};
}

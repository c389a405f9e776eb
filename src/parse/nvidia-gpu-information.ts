/**
 * `/proc/driver/nvidia/gpus/<bus id>/information`: what the NVIDIA kernel module knows of one GPU, readable where
 * nvidia-smi cannot run (a pod without the NVIDIA runtime, a GPU-operator node whose nvidia-smi lives in the driver
 * container). The driver writes `Key: \t value` lines (open-gpu-kernel-modules: "Model: \t\t %s", "Bus Location:
 * \t %s", "Device Minor: \t %u", "GPU Excluded:\t %s"). Pure.
 */
import { fail, ok, type ParseResult, problem } from "../core/result.js";
import { splitLines } from "../core/text.js";

export type NvidiaGpuInformation = {
  model: string;
  uuid: string | null;
  busLocation: string | null;
  minor: number | null;
  /** `GPU Excluded: Yes`: the driver keeps this GPU from every process (NVreg_ExcludedGpus, or a drained GPU). */
  excluded: boolean | null;
};

export function parseNvidiaGpuInformation(text: string): ParseResult<NvidiaGpuInformation> {
  const fields = new Map<string, string>();
  for (const line of splitLines(text)) {
    const colon = line.indexOf(":");
    if (colon > 0) fields.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const model = fields.get("Model");
  // A GPU's name is a short line (`NVIDIA H100 80GB HBM3`): a longer one is not this file.
  if (!model || model.length > 128 || /[\u0000-\u001f]/.test(model)) {
    return fail(
      problem("nvidia_gpu_information.no_model", "expected the driver's `Model: <GPU name>` line, found none"),
    );
  }
  const minor = fields.get("Device Minor");
  const excluded = fields.get("GPU Excluded");
  return ok({
    model,
    uuid: fields.get("GPU UUID") || null,
    busLocation: fields.get("Bus Location") || null,
    minor: minor !== undefined && /^\d+$/.test(minor) ? Number(minor) : null,
    excluded: excluded === "Yes" ? true : excluded === "No" ? false : null,
  });
}

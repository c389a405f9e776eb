/**
 * Why nvidia-smi failed: the driver (hung, lost a GPU, cannot reach the GPUs) or this environment (the binary cannot
 * load libnvidia-ml, or NVML cannot open the device nodes of a collector pod that the NVIDIA runtime did not set up).
 *
 * The shapes, from real reports:
 * - `NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. …` (exit 12), e.g.
 *   https://github.com/NVIDIA/nvidia-docker/issues/1163
 * - `<path>: error while loading shared libraries: libnvidia-ml.so.1: cannot open shared object file: …` (exit 127,
 *   the dynamic loader's own words)
 * - `Failed to initialize NVML: Unknown Error`, e.g. https://github.com/NVIDIA/nvidia-container-toolkit/issues/817
 * - `NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. …` (exit 9)
 * - `Unable to determine the device handle for GPU…: Unknown Error` / `GPU is lost`: NVML came up, a GPU did not.
 */
import type { CommandOutcome } from "../host/types.js";

export type SmiFailure = { cause: "driver" } | { cause: "environment"; why: string };

const LIBRARY =
  /error while loading shared libraries|couldn't find libnvidia-ml\.so|libnvidia-ml\.so[.\d]*: cannot open shared object/i;
const NVML_INIT = /Failed to initialize NVML|couldn't communicate with the NVIDIA driver/i;
const GPU_FAULT = /Unable to determine the device handle|GPU is lost|GPU has fallen off the bus|Xid/i;

/** Classifies a failed (non-zero, not timed out) nvidia-smi run. */
export function classifySmiFailure(o: CommandOutcome): SmiFailure {
  const said = `${o.stdout}\n${o.stderr}`;
  if (GPU_FAULT.test(said)) return { cause: "driver" };
  const where = o.ranFrom ? `the host's ${o.ranFrom}` : "nvidia-smi";
  if (LIBRARY.test(said) || o.exitCode === 127) {
    return { cause: "environment", why: `${where} could not load libnvidia-ml.so here (exit ${o.exitCode})` };
  }
  // NVML failing to start means the driver is down on the node itself, but only that the collector pod has no
  // NVIDIA device nodes when the host's binary ran inside it.
  if (o.ranFrom && NVML_INIT.test(said)) {
    return {
      cause: "environment",
      why: `${where} could not open the NVIDIA devices from inside the collector pod (exit ${o.exitCode})`,
    };
  }
  return { cause: "driver" };
}

/** The driver version /proc/driver/nvidia/version names (`… Kernel Module  535.104.05  …`), or null. */
export function procDriverVersion(text: string | null): string | null {
  if (!text) return null;
  return /Kernel Module(?: for \S+)?\s+(\d+\.\d+(?:\.\d+)?)/.exec(text)?.[1] ?? null;
}

/**
 * GPU clocks held down by a fault: the clock event reasons nvidia-smi marks Active that mean heat, a power brake or
 * a hardware slowdown. Idle, application-clock and display settings, sync boost and the software power cap (a GPU
 * at full load runs at its power limit by design) are not judged.
 */
import { finding } from "./catalogue.js";
import type { Check } from "./types.js";

const FAULTS: ReadonlySet<string> = new Set([
  "hw_slowdown",
  "hw_thermal_slowdown",
  "hw_power_brake_slowdown",
  "sw_thermal_slowdown",
]);

export const gpuClocksCheck: Check = {
  name: "gpu-clocks",
  codes: ["GPU_CLOCKS_THROTTLED"],
  run(inv) {
    return inv.gpus.flatMap((g) => {
      const reasons = (g.clockEvents ?? []).filter((r) => FAULTS.has(r));
      return reasons.length === 0 ? [] : [finding("GPU_CLOCKS_THROTTLED", `GPU${g.index}`, { reasons })];
    });
  },
};

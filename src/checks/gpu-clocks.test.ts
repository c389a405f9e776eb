/**
 * Clock event reasons from `nvidia-smi -q -x` (<clocks_event_reasons>, one <clocks_event_reason_NAME>Active|Not Active
 * per reason as driver 535+/550 print them; reasons documented in nvidia-smi(1), "Clocks Event Reasons",
 * https://docs.nvidia.com/deploy/nvidia-smi/index.html), read through the A100 RoCE example node's collected form.
 */
import { describe, expect, test } from "vitest";
import { buildHost, gpuXmlSpecs } from "../examples/builder.js";
import { renderNvidiaSmiXml } from "../examples/nvidia-smi-xml.js";
import { seedSpec } from "../examples/seed.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { problemsOf } from "./testing/expect.js";

const REASONS = [
  "gpu_idle",
  "applications_clocks_setting",
  "sw_power_cap",
  "hw_slowdown",
  "hw_thermal_slowdown",
  "hw_power_brake_slowdown",
  "sync_boost",
  "sw_thermal_slowdown",
  "display_clock_setting",
];

async function findingsWith(active: (gpu: number) => string[]) {
  const spec = seedSpec();
  const t = buildHost(spec);
  const gpus = gpuXmlSpecs(spec).map((g, i) => ({
    ...g,
    clockEvents: Object.fromEntries(REASONS.map((r) => [r, active(i).includes(r)])),
  }));
  t.command("nvidia-smi -q -x", {
    exitCode: 0,
    stdout: renderNvidiaSmiXml({ driverVersion: "550.90.07", cudaVersion: "12.4", gpus }),
    stderr: "",
  });
  return runChecks(await readInventory(new SnapshotHostReader(t.toSnapshot({ host: spec.hostname }))));
}

describe("GPU clock event reasons", () => {
  test("idle GPUs and GPUs at their power cap are not throttled by a fault: no finding", async () => {
    expect(await findingsWith((i) => (i % 2 ? ["gpu_idle"] : ["sw_power_cap"]))).toEqual([]);
  });

  test("GPU5 in HW thermal slowdown and power brake: a warning naming both, with the commands to see why", async () => {
    const findings = await findingsWith((i) => (i === 5 ? ["hw_thermal_slowdown", "hw_power_brake_slowdown"] : []));
    expect(problemsOf(findings)).toEqual([{ code: "GPU_CLOCKS_THROTTLED", subject: "GPU5", severity: "warning" }]);
    expect(findings[0]?.message).toContain("hw_thermal_slowdown, hw_power_brake_slowdown");
    expect(findings[0]?.fix).toContain("nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i 5");
  });
});

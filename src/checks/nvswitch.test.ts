/**
 * NVSwitch boards: Fabric state from `nvidia-smi -q -x`, NVLink link state from `nvidia-smi nvlink -s`, read from an
 * 8×H100 host with four NVSwitch functions on its PCI bus, the way `verify --snapshot` reads a collected host.
 */
import { describe, expect, test } from "vitest";
import { buildHost, gpuXmlSpecs } from "../examples/builder.js";
import { renderNvidiaSmiXml, type XmlGpuSpec } from "../examples/nvidia-smi-xml.js";
import { h100Spec } from "../examples/variations.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { problemsOf } from "./testing/expect.js";

// Four `Bridge [0680]: NVIDIA Corporation GH100 [H100 NVSwitch] [10de:22a3]` functions, as lspci shows them on an
// HGX H100/H200 board (https://github.com/bigstack-oss/cubecos/issues/259); our own bus numbers.
const SWITCH_BUSES = [0x05, 0x06, 0x07, 0x08];

/** `nvidia-smi nvlink -s` in its printed shape (https://github.com/Azure/azhpc-diagnostics/issues/73): 18 links per H100. */
function nvlinkStatus(inactive: Record<number, number[]> = {}): string {
  const lines: string[] = [];
  for (let g = 0; g < 8; g++) {
    lines.push(`GPU ${g}: NVIDIA H100 80GB HBM3 (UUID: GPU-3c1f9e0${g}-7d2a-4b6e-9f11-0a5c2e7b81d${g})`);
    for (let l = 0; l < 18; l++) {
      lines.push(`\t Link ${l}: ${inactive[g]?.includes(l) ? "<inactive>" : "26.562 GB/s"}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

type Board = {
  fabric?: (gpu: number) => XmlGpuSpec["fabric"];
  nvlink?: { exitCode: number; stdout: string; stderr?: string } | null;
  switches?: boolean;
};

async function boardFindings(b: Board) {
  const spec = h100Spec();
  const t = buildHost(spec);
  if (b.switches !== false) {
    for (const bus of SWITCH_BUSES) {
      const bdf = `0000:${bus.toString(16).padStart(2, "0")}:00.0`;
      const fn = `/sys/devices/pci0000:${bus.toString(16).padStart(2, "0")}/${bdf}`;
      t.filesIn(fn, { vendor: "0x10de\n", device: "0x22a3\n", class: "0x068000\n", numa_node: "0\n" });
      t.link(`/sys/bus/pci/devices/${bdf}`, fn);
    }
  }
  const gpus = gpuXmlSpecs(spec).map((g, i) => {
    const fabric = (b.fabric ?? (() => ({ state: "Completed", status: "Success" })))(i);
    return fabric ? { ...g, fabric } : g;
  });
  t.command("nvidia-smi -q -x", {
    exitCode: 0,
    stdout: renderNvidiaSmiXml({ driverVersion: spec.driverVersion, cudaVersion: spec.cudaVersion, gpus }),
    stderr: "",
  });
  const nv = b.nvlink === undefined ? { exitCode: 0, stdout: nvlinkStatus() } : b.nvlink;
  if (nv) t.command("nvidia-smi nvlink -s", { stderr: "", ...nv });
  const inv = await readInventory(new SnapshotHostReader(t.toSnapshot({ host: spec.hostname })));
  return { inv, findings: runChecks(inv, { expectGpus: 8, expectGpuModel: "H100" }) };
}

describe("NVSwitch fabric and NVLink health", () => {
  test("a healthy HGX H100: fabric Completed / Success on every GPU, 18 active links each → no finding at all", async () => {
    const { inv, findings } = await boardFindings({});
    expect(inv.nvswitch?.switches).toEqual(["0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"]);
    expect(inv.nvswitch?.nvlink?.every((g) => g.links === 18 && g.inactive.length === 0)).toBe(true);
    expect(findings).toEqual([]);
  });

  // A Fabric Manager still registering the GPUs, and a registration that completed with an error status: both keep
  // CUDA from starting (NVML: the status is meaningful only once the state is Completed,
  // https://docs.nvidia.com/deploy/nvml-api/structnvmlGpuFabricInfo__v2__t.html). Shapes of `State: In Progress` and
  // `Status: Insufficient Resources` as nvidia-smi prints them: https://github.com/NVIDIA/NVSentinel/pull/1382,
  // https://github.com/Azure/azhpc-images/pull/506.
  test("fabric In Progress on GPU0-5 and Completed / Insufficient Resources on GPU6-7: one error per kind (GPU0..GPU5, GPU6-7)", async () => {
    const { findings } = await boardFindings({
      fabric: (i) =>
        i < 6 ? { state: "In Progress", status: "N/A" } : { state: "Completed", status: "Insufficient Resources" },
    });
    expect(problemsOf(findings)).toEqual([
      { code: "NVSWITCH_FABRIC_NOT_READY", subject: "GPU0..GPU5", severity: "error" },
      { code: "NVSWITCH_FABRIC_NOT_READY", subject: "GPU6, GPU7", severity: "error" },
    ]);
    expect(findings[0]?.message).toMatch(/"In Progress".*4 NVSwitch/);
    expect(findings[1]?.message).toContain('Status "Insufficient Resources"');
    expect(findings[0]?.fix).toContain("systemctl status nvidia-fabricmanager");
  });

  test("two inactive NVLinks on GPU3 (`Link 4: <inactive>`): NVLINK_INACTIVE names them and `nvidia-smi nvlink -e -i 3`", async () => {
    const { findings } = await boardFindings({ nvlink: { exitCode: 0, stdout: nvlinkStatus({ 3: [4, 11] }) } });
    expect(problemsOf(findings)).toEqual([{ code: "NVLINK_INACTIVE", subject: "GPU3", severity: "error" }]);
    expect(findings[0]?.message).toContain("2 of its 18 NVLink links inactive (links 4, 11");
    expect(findings[0]?.fix).toContain("nvidia-smi nvlink -e -i 3");
  });

  test("nvidia-smi nvlink -s failing is a check that could not run, with the command to run by hand", async () => {
    const { findings } = await boardFindings({
      nvlink: { exitCode: 255, stdout: "", stderr: "Failed to initialize NVML: Unknown Error\n" },
    });
    expect(problemsOf(findings)).toEqual([
      { code: "CHECK_SKIPPED", subject: "nvidia-smi nvlink", severity: "warning" },
    ]);
    expect(findings[0]?.message).toContain("exited with 255: Failed to initialize NVML");
    expect(findings[0]?.fix).toContain("nvidia-smi nvlink -s");
  });

  // The A100 generation prints Fabric State N/A even with the Fabric Manager running
  // (https://github.com/bottlerocket-os/bottlerocket/pull/3873): the service is then what must be asked.
  test("an NVSwitch board whose driver reports no Fabric State: info naming `systemctl is-active nvidia-fabricmanager`", async () => {
    const { findings } = await boardFindings({ fabric: () => undefined });
    expect(problemsOf(findings)).toEqual([]);
    expect(findings.map((f) => [f.code, f.subject, f.severity])).toEqual([
      ["CHECK_SKIPPED", "nvidia-fabricmanager", "info"],
    ]);
    expect(findings[0]?.fix).toContain("systemctl is-active nvidia-fabricmanager");
  });

  test("without NVSwitches on the PCI bus nothing is asked and nothing said, whatever the fabric state", async () => {
    const { inv, findings } = await boardFindings({
      switches: false,
      fabric: () => ({ state: "Not Started", status: "N/A" }),
      nvlink: null,
    });
    expect(inv.nvswitch).toBeUndefined();
    expect(findings).toEqual([]);
  });
});

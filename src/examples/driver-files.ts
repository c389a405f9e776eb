/**
 * The example host's drivers as the kernel and their tools show them: loaded modules (/sys/module, with OFED's compat
 * layer and mlx5_core version when OFED is installed), the NVIDIA module's per-GPU /proc files, and the outputs of
 * `ofed_info -s` and `nvidia-smi -q -x`.
 */
import type { GpuSpec, HostSpec } from "./builder.js";
import { hex4 } from "./gid-slots.js";
import { renderNvidiaSmiXml, type XmlGpuSpec } from "./nvidia-smi-xml.js";
import type { HostTree } from "./tree.js";

/** The version OFED's mlx5_core carries for an `ofed_info -s` line: `MLNX_OFED_LINUX-5.8-1.1.2.1:` → `5.8-1.1.2`. */
export function ofedModuleVersion(ofedLine: string): string | null {
  const m = /-(\d+\.\d+-\d+(?:\.\d+)*):?\s*$/.exec(ofedLine);
  return m ? m[1]!.split(".").slice(0, -1).join(".") : null;
}

function allGpus(spec: HostSpec): GpuSpec[] {
  return spec.switches.flatMap((s) => s.gpus).sort((a, b) => a.minor - b.minor);
}

const gpuUuid = (minor: number) =>
  `GPU-${hex4(0x6f0e + minor)}${hex4(0x6d1a)}-${hex4(0x2c4b)}-4${hex4(minor).slice(1)}-8a1f-${hex4(0x5e00 + minor)}${hex4(0x37b2)}${hex4(0x90c4)}`;

export function gpuXmlSpecs(spec: HostSpec): XmlGpuSpec[] {
  return allGpus(spec).map((g) => ({
    busId: `0000${g.bdf.toUpperCase()}`,
    name: g.model.name,
    uuid: gpuUuid(g.minor),
    memoryTotalMiB: g.model.memoryMiB,
    minorNumber: g.minor,
  }));
}

/** The kernel module's /proc/driver/nvidia/gpus/<bus id>/information, in its `Key: \t value` layout. */
function gpuInformation(g: GpuSpec, vbios: string): string {
  return [
    `Model: \t\t ${g.model.name}`,
    `IRQ:   \t\t ${40 + g.minor}`,
    `GPU UUID: \t ${gpuUuid(g.minor)}`,
    `Video BIOS: \t ${vbios}`,
    "Bus Type: \t PCIe",
    "DMA Size: \t 47 bits",
    "DMA Mask: \t 0x7fffffffffff",
    `Bus Location: \t ${g.bdf}`,
    `Device Minor: \t ${g.minor}`,
    "GPU Excluded:\t No",
    "",
  ].join("\n");
}

/** Modules, the NVIDIA module's /proc files and the two commands of an example host. */
export function writeDriverFacts(t: HostTree, spec: HostSpec): void {
  for (const m of [
    "nvidia",
    "nvidia_uvm",
    "nvidia_modeset",
    "mlx5_core",
    "mlx5_ib",
    "ib_core",
    "ib_uverbs",
    "rdma_cm",
  ]) {
    t.file(`/sys/module/${m}/refcnt`, "0\n");
  }
  // The kernel's default RDMA namespace mode: every namespace sees every RDMA device.
  t.file("/sys/module/ib_core/parameters/netns_mode", "Y\n");
  const ofedModules = ofedModuleVersion(spec.ofedLine);
  if (ofedModules !== null) {
    // OFED's mlx5 modules need its compat layer and carry its version less the last part.
    t.file("/sys/module/mlx_compat/refcnt", "0\n");
    t.file("/sys/module/mlx5_core/version", `${ofedModules}\n`);
  }
  t.file("/sys/module/nvidia/version", `${spec.driverVersion}\n`);
  for (const g of allGpus(spec)) {
    t.file(`/proc/driver/nvidia/gpus/${g.bdf}/information`, gpuInformation(g, "92.00.45.00.06"));
  }
  if (spec.peermem) t.file("/sys/module/nvidia_peermem/version", `${spec.driverVersion}\n`);
  t.command("ofed_info -s", { exitCode: 0, stdout: `${spec.ofedLine}\n`, stderr: "" });
  t.command("nvidia-smi -q -x", {
    exitCode: 0,
    stdout: renderNvidiaSmiXml({
      driverVersion: spec.driverVersion,
      cudaVersion: spec.cudaVersion,
      gpus: gpuXmlSpecs(spec),
    }),
    stderr: "",
  });
}

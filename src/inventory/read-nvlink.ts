/**
 * Reads what the NVSwitch fabric check needs: the NVSwitch PCI functions (NVIDIA vendor, PCI class 0x0680 "bridge,
 * other": `Bridge [0680]: NVIDIA Corporation GH100 [H100 NVSwitch] [10de:22a3]` as lspci shows an HGX H100/H200 board,
 * https://github.com/bigstack-oss/cubecos/issues/259; NCCL's topology names the A100 board's switches by the same
 * class, tclass="0x068000", https://github.com/NVIDIA/nccl/issues/1505) and, only where there are some,
 * `nvidia-smi nvlink -s`. The Fabric state itself comes with `nvidia-smi -q -x`.
 */
import type { HostReader, ReadOutcome } from "../host/types.js";
import type { NvlinkFacts } from "./facts.js";

const PCI = "/sys/bus/pci/devices";

function isNvSwitch(reader: HostReader, address: string): boolean {
  const vendor = reader.readText(`${PCI}/${address}/vendor`);
  if (!vendor.ok || vendor.value.trim() !== "0x10de") return false;
  const cls = reader.readText(`${PCI}/${address}/class`);
  return cls.ok && /^0x0680/.test(cls.value.trim());
}

/** The NVSwitch functions of the PCI listing, in address order, and `nvidia-smi nvlink -s` when there are any. */
export async function readNvlink(
  reader: HostReader,
  pciList: ReadOutcome<string[]>,
  timeout: { timeoutMs?: number },
): Promise<NvlinkFacts> {
  const switches = (pciList.ok ? [...pciList.value].sort() : []).filter((a) => isNvSwitch(reader, a));
  if (switches.length === 0) return { switches };
  return { switches, status: await reader.run("nvidia-smi", ["nvlink", "-s"], timeout) };
}

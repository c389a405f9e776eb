/**
 * Reads what the PCIe-ACS, IOMMU and lossless-RoCE checks need: the config space of each bridge above a GPU or an
 * RDMA NIC, the IOMMU units, command line and groups, and per RoCE netdev the ECN switches, the HCA's traffic class
 * and the `mlnx_qos` output, and `ethtool -S` for the pause, discard and PHY counters. On mlx5 that prints a
 * thousand-odd counters per netdev, mostly per queue; a snapshot keeps only the port-level lines the rules read.
 */
import { NOT_RECORDED } from "../host/errors.js";
import { readBinaryHex, readIn } from "../host/reads.js";
import type { HostReader } from "../host/types.js";
import type { BridgeFacts, HcaFacts, IommuFacts, PciFacts, RoceQosFacts } from "./facts.js";
import { splitPciPath } from "./topology.js";

const PCI = "/sys/bus/pci/devices";

/**
 * The `ethtool -S` lines the rules read: the header, the physical-port counters (`*_phy`), the per-priority port
 * counters (`rx_prio3_pause`), the pause-storm events and `rx_out_of_buffer` (names as in the kernel's mlx5
 * counters.rst). Not the per-ring `rx0_*` / `tx0_*` / `ch0_*` counters, which make up most of the output.
 */
export const ETHTOOL_PORT_LINES =
  /^\s*(?:NIC statistics:|(?:rx|tx)_prio[0-7]_[a-z_]+:|[a-z0-9_]+_phy:|tx_pause_storm_[a-z_]+:|rx_out_of_buffer:)/;
const PRIORITIES = ["0", "1", "2", "3", "4", "5", "6", "7"] as const;

/** The bridges (every function of a chain but the device itself) above the given resolved PCI paths. */
export function bridgesAbove(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const split = splitPciPath(p);
    if (split) for (const b of split.chain.slice(0, -1)) out.add(b);
  }
  return [...out].sort();
}

function resolvedPaths(hcas: readonly HcaFacts[], gpus: readonly PciFacts[]): string[] {
  const out: string[] = [];
  for (const h of hcas) if (h.device.ok) out.push(h.device.value);
  for (const g of gpus) if (g.path.ok) out.push(g.path.value);
  return out;
}

export function readBridges(reader: HostReader, hcas: readonly HcaFacts[], gpus: readonly PciFacts[]): BridgeFacts[] {
  return bridgesAbove(resolvedPaths(hcas, gpus)).map((address) => ({
    address,
    config: readBinaryHex(reader, `${PCI}/${address}/config`),
  }));
}

export function readIommu(reader: HostReader, hcas: readonly HcaFacts[], gpus: readonly PciFacts[]): IommuFacts {
  const addresses = [
    ...new Set([...gpus.map((g) => g.address), ...hcas.flatMap((h) => (h.pci ? [h.pci.address] : []))]),
  ];
  return {
    units: reader.list("/sys/class/iommu"),
    cmdline: reader.readText("/proc/cmdline"),
    devices: addresses.sort().map((address) => {
      const group = reader.realpath(`${PCI}/${address}/iommu_group`);
      // The group's listing (recorded, so a snapshot written back out as a tree has the directory); `type` only
      // exists since Linux 5.11.
      const names = group.ok ? reader.list(group.value) : null;
      const hasType = names?.ok === true && names.value.includes("type");
      return { address, group, type: group.ok && hasType ? reader.readText(`${group.value}/type`) : null };
    }),
  };
}

/** The RoCE netdevs: those named by an Ethernet port's GIDs, with their HCA. */
function roceNetdevs(hcas: readonly HcaFacts[]): { netdev: string; hca: string }[] {
  const out = new Map<string, string>();
  for (const h of hcas) {
    for (const p of h.ports) {
      if (!p.linkLayer.ok || p.linkLayer.value.trim() !== "Ethernet") continue;
      for (const g of p.gids) if (g.ndev?.ok && g.ndev.value.trim()) out.set(g.ndev.value.trim(), h.name);
    }
  }
  return [...out].map(([netdev, hca]) => ({ netdev, hca }));
}

/** Starts `mlnx_qos -i` per netdev and reads the sysfs switches meanwhile. */
export async function readRoceQos(
  reader: HostReader,
  hcas: readonly HcaFacts[],
  timeout: { timeoutMs?: number },
): Promise<RoceQosFacts[]> {
  const nets = roceNetdevs(hcas);
  const commands = Promise.all(nets.map(({ netdev }) => reader.run("mlnx_qos", ["-i", netdev], timeout)));
  const stats = Promise.all(
    nets.map(({ netdev }) => reader.run("ethtool", ["-S", netdev], { ...timeout, keepLines: ETHTOOL_PORT_LINES })),
  );
  const files = nets.map(({ netdev, hca }) => ({
    netdev,
    hca,
    ecnNp: readIn(reader, `/sys/class/net/${netdev}/ecn/roce_np/enable`, PRIORITIES),
    ecnRp: readIn(reader, `/sys/class/net/${netdev}/ecn/roce_rp/enable`, PRIORITIES),
    trafficClass: reader.readText(`/sys/class/infiniband/${hca}/tc/1/traffic_class`),
    // configfs-rdma_cm(ABI): the directory exists only once someone created it (mkdir), so ENOENT means unset.
    cmaRoceTos: reader.readText(`/sys/kernel/config/rdma_cm/${hca}/ports/1/default_roce_tos`),
    cnp: {
      prio: reader.readText(`/sys/class/net/${netdev}/ecn/roce_np/cnp_802p_prio`),
      dscp: reader.readText(`/sys/class/net/${netdev}/ecn/roce_np/cnp_dscp`),
    },
  }));
  const outs = await commands;
  const statsOuts = await stats;
  // Without MLNX_OFED's mlnx_qos, iproute2's dcb reads the same PFC settings through the kernel's DCB netlink API.
  const dcb = await Promise.all(
    nets.map(({ netdev }, i) =>
      outs[i]!.error?.code === "ENOENT" || outs[i]!.error?.code === NOT_RECORDED
        ? reader.run("dcb", ["pfc", "show", "dev", netdev], timeout)
        : null,
    ),
  );
  return files.map((f, i) => ({
    ...f,
    mlnxQos: outs[i]!,
    ...(dcb[i] ? { dcbPfc: dcb[i] } : {}),
    ethtoolStats: statsOuts[i]!,
  }));
}

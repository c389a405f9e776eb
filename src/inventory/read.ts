import { isPlausibleDeviceName } from "../core/device-name.js";
import { naturallySorted, numericNames } from "../core/natural.js";
import { readBinaryHex, readIn } from "../host/reads.js";
import type { HostReader, ReadOutcome } from "../host/types.js";
import { parseDefaultRouteInterface } from "../parse/proc.js";
import type { DirFacts, Fact, HcaFacts, HostFacts, NetdevFacts, PciFacts, PortFacts } from "./facts.js";
import { MAX_HCAS } from "./limits.js";
import { readBridges, readIommu, readRoceQos } from "./read-fabric.js";
import { readPortGids } from "./read-gids.js";
import { readNetConf } from "./read-netconf.js";
import { readNvlink } from "./read-nvlink.js";
import { pciAddressOf } from "./reading.js";

export { readPortGids } from "./read-gids.js";

const IB = "/sys/class/infiniband";
const NET = "/sys/class/net";
const PCI = "/sys/bus/pci/devices";

/** The attribute files read from each kind of directory, in the order the readers destructure them. */
const HCA_FILES = ["node_guid", "sys_image_guid", "fw_ver", "hca_type", "board_id"] as const;
const PORT_FILES = ["state", "phys_state", "rate", "link_layer", "lid"] as const;
const PCI_FILES = [
  "class",
  "vendor",
  "device",
  "numa_node",
  "current_link_speed",
  "max_link_speed",
  "current_link_width",
  "max_link_width",
] as const;
const NETDEV_FILES = ["operstate", "mtu", "address"] as const;

const sortedNames = (r: ReadOutcome<string[]>): readonly string[] => (r.ok ? naturallySorted(r.value) : []);
/** Device and interface names to read: a name the kernel would not give is never read (the inventory names it). */
const deviceNames = (r: ReadOutcome<string[]>): readonly string[] => sortedNames(r).filter(isPlausibleDeviceName);

function readAll(reader: HostReader, dir: string): DirFacts {
  const names = sortedNames(reader.list(dir));
  return { names, values: readIn(reader, dir, names) };
}

function readPort(reader: HostReader, hca: string, port: number): PortFacts {
  const dir = `${IB}/${hca}/ports/${port}`;
  const [state, physState, rate, linkLayer, lid] = readIn(reader, dir, PORT_FILES);
  return {
    port,
    dir,
    state: state!,
    physState: physState!,
    rate: rate!,
    linkLayer: linkLayer!,
    lid: lid!,
    ...readPortGids(reader, dir),
    counters: readAll(reader, `${dir}/counters`),
    hwCounters: readAll(reader, `${dir}/hw_counters`),
    ...ibSubnetFacts(reader, dir),
  };
}

/** The port's subnet manager LID and LMC (read on every port: RoCE ports show 0x0 / 0). */
function ibSubnetFacts(reader: HostReader, dir: string): Pick<PortFacts, "smLid" | "lmc"> {
  const [smLid, lmc] = readIn(reader, dir, ["sm_lid", "lid_mask_count"]);
  return { smLid: smLid!, lmc: lmc! };
}

/** Reads a PCI function through `/sys/bus/pci/devices/<bdf>`. */
export function readPci(reader: HostReader, address: string): PciFacts {
  const base = `${PCI}/${address}`;
  const path = reader.realpath(base);
  const [cls, vendor, device, numaNode, currentLinkSpeed, maxLinkSpeed, currentLinkWidth, maxLinkWidth] = readIn(
    reader,
    base,
    PCI_FILES,
  );
  return {
    address,
    path,
    class: cls!,
    vendor: vendor!,
    device: device!,
    numaNode: numaNode!,
    currentLinkSpeed: currentLinkSpeed!,
    maxLinkSpeed: maxLinkSpeed!,
    currentLinkWidth: currentLinkWidth!,
    maxLinkWidth: maxLinkWidth!,
  };
}

function readHca(reader: HostReader, name: string): HcaFacts {
  const dir = `${IB}/${name}`;
  const [nodeGuid, sysImageGuid, fwVer, hcaType, boardId] = readIn(reader, dir, HCA_FILES);
  const device = reader.realpath(`${dir}/device`);
  const portList = reader.list(`${dir}/ports`);
  const address = pciAddressOf(device);
  const portNumbers = portList.ok ? numericNames(portList.value) : [];
  return {
    name,
    nodeGuid: nodeGuid!,
    sysImageGuid: sysImageGuid!,
    fwVer: fwVer!,
    hcaType: hcaType!,
    boardId: boardId!,
    device,
    pci: address ? readPci(reader, address) : null,
    ...(address ? { pciConfig: readBinaryHex(reader, `${PCI}/${address}/config`) } : {}),
    ports: portNumbers.map((p) => readPort(reader, name, p)),
    ...(portList.ok ? {} : { portsError: portList.error }),
    nodeType: reader.readText(`${dir}/node_type`),
  };
}

/** Netdevs worth reading: physical ones (with a `device` link) and any named by a GID, the route or a bond. */
function readNetdevs(reader: HostReader, names: string[], wanted: Set<string>): NetdevFacts[] {
  const out: NetdevFacts[] = [];
  for (const name of names) {
    const dir = `${NET}/${name}`;
    const device = reader.realpath(`${dir}/device`);
    const bondSlaves = reader.readText(`${dir}/bonding/slaves`);
    if (!device.ok && !bondSlaves.ok && !wanted.has(name)) continue;
    const [operstate, mtu, address] = readIn(reader, dir, NETDEV_FILES);
    const carrierChanges = reader.readText(`${dir}/carrier_changes`);
    out.push({ name, operstate: operstate!, mtu: mtu!, address: address!, device, bondSlaves, carrierChanges });
  }
  return out;
}

function isNvidiaGpu(reader: HostReader, address: string): boolean {
  const vendor = reader.readText(`${PCI}/${address}/vendor`);
  if (!vendor.ok || vendor.value.trim() !== "0x10de") return false;
  const cls = reader.readText(`${PCI}/${address}/class`);
  return cls.ok && /^0x030[02]/.test(cls.value.trim());
}

function readGpuPci(reader: HostReader, list: ReadOutcome<string[]>): PciFacts[] {
  const addresses = list.ok ? [...list.value].sort() : [];
  return addresses.filter((a) => isNvidiaGpu(reader, a)).map((a) => readPci(reader, a));
}

function ifaceOfRoute(route: Fact): string | null {
  const r = route.ok ? parseDefaultRouteInterface(route.value) : null;
  return r?.ok ? r.value : null;
}

/** Every fact but the commands' output: files, listings and links, read synchronously. */
function readFileFacts(
  reader: HostReader,
): Omit<HostFacts, "source" | "ofed" | "nvidiaSmi" | "bridges" | "iommu" | "roceQos" | "nvlink" | "netConf"> {
  const hcaList = reader.list(IB);
  const pciList = reader.list(PCI);
  const verbsList = reader.list("/sys/class/infiniband_verbs");
  const route = reader.readText("/proc/net/route");
  // A node has a few dozen RDMA devices at most; reading 10,000 (a damaged or hostile tree) took a minute and PASSed.
  const hcas = deviceNames(hcaList)
    .slice(0, MAX_HCAS)
    .map((n) => readHca(reader, n));
  const wanted = new Set<string>();
  for (const h of hcas) {
    for (const p of h.ports)
      for (const g of p.gids)
        if (g.ndev?.ok && isPlausibleDeviceName(g.ndev.value.trim())) wanted.add(g.ndev.value.trim());
  }
  const gpuPci = readGpuPci(reader, pciList);
  const routeIface = ifaceOfRoute(route);
  if (routeIface && isPlausibleDeviceName(routeIface)) wanted.add(routeIface);
  const netList = reader.list(NET);
  return {
    hostname: reader.readText("/proc/sys/kernel/hostname"),
    kernelRelease: reader.readText("/proc/sys/kernel/osrelease"),
    nvidiaDriverProc: reader.readText("/proc/driver/nvidia/version"),
    hcaList,
    hcas,
    netList,
    netdevs: readNetdevs(
      reader,
      deviceNames(netList).filter((n) => n !== "lo"),
      wanted,
    ),
    gpuPci,
    gpuDriverInfo: gpuPci.map((p) => reader.readText(`/proc/driver/nvidia/gpus/${p.address}/information`)),
    pciList,
    modules: {
      nvidia: reader.exists("/sys/module/nvidia"),
      nvidiaPeermem: reader.exists("/sys/module/nvidia_peermem"),
      nvPeerMem: reader.exists("/sys/module/nv_peer_mem"),
      memoryPeersNvMem: reader.exists("/sys/kernel/mm/memory_peers/nv_mem/version"),
      mlx5Core: reader.exists("/sys/module/mlx5_core"),
      mlxCompat: reader.exists("/sys/module/mlx_compat"),
      mlx5CoreVersion: reader.readText("/sys/module/mlx5_core/version"),
      ibCoreNetnsMode: reader.readText("/sys/module/ib_core/parameters/netns_mode"),
    },
    route,
    status: reader.readText("/proc/self/status"),
    limits: reader.readText("/proc/self/limits"),
    devInfiniband: reader.list("/dev/infiniband"),
    uverbs: sortedNames(verbsList)
      .filter((n) => n.startsWith("uverbs"))
      .map((name) => ({ name, ibdev: reader.readText(`/sys/class/infiniband_verbs/${name}/ibdev`) })),
    shm: reader.fsSize("/dev/shm"),
  };
}

/** Reads every raw fact the node model needs. Never throws: failures are kept as failed reads. */
export async function readFacts(reader: HostReader, opts: { commandTimeoutMs?: number } = {}): Promise<HostFacts> {
  const timeout = opts.commandTimeoutMs !== undefined ? { timeoutMs: opts.commandTimeoutMs } : {};
  // The commands start first, and their children run while the files are read (a slow nvidia-smi overlaps the walk).
  await reader.prepareCommands?.();
  const commands = Promise.all([
    reader.run("ofed_info", ["-s"], timeout),
    reader.run("nvidia-smi", ["-q", "-x"], timeout),
  ]);
  const files = readFileFacts(reader);
  const bridges = readBridges(reader, files.hcas, files.gpuPci);
  const iommu = readIommu(reader, files.hcas, files.gpuPci);
  const roceQos = readRoceQos(reader, files.hcas, timeout);
  const nvlinkFacts = readNvlink(reader, files.pciList, timeout);
  const netConfFacts = readNetConf(
    reader,
    files.netdevs.map((n) => n.name),
    timeout,
  );
  const [[ofed, nvidiaSmi], qos, nvlink, netConf] = await Promise.all([commands, roceQos, nvlinkFacts, netConfFacts]);
  return { source: reader.description, ...files, ofed, nvidiaSmi, bridges, iommu, roceQos: qos, nvlink, netConf };
}

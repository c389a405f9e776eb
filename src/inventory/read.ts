import { naturallySorted, numericNames } from "../core/natural.js";
import type { HostReader, ReadOutcome } from "../host/types.js";
import { parseDefaultRouteInterface } from "../parse/proc.js";
import { isEmptyGidText, parseGid } from "../parse/sysfs.js";
import type { DirFacts, Fact, GidFact, HcaFacts, HostFacts, NetdevFacts, PciFacts, PortFacts } from "./facts.js";
import { pciAddressOf } from "./reading.js";

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

/** `${dir}/${name}` for each name, in one call where the reader can (a snapshot looks the directory up once). */
function readIn(reader: HostReader, dir: string, names: readonly string[]): Promise<ReadOutcome<string>[]> {
  if (reader.readIn) return reader.readIn(dir, names);
  return Promise.all(names.map((n) => reader.readText(`${dir}/${n}`)));
}

/** The decimal names of a directory, ascending (a snapshot answers from its runs, without writing names out). */
async function listNumbers(reader: HostReader, dir: string): Promise<ReadOutcome<number[]>> {
  if (reader.listNumbers) return reader.listNumbers(dir);
  const list = await reader.list(dir);
  return list.ok ? { ok: true, value: numericNames(list.value) } : list;
}

/** Reads one port's GID table the way show_gids does: every slot, attributes only for configured GIDs. */
export async function readPortGids(reader: HostReader, portDir: string): Promise<Pick<PortFacts, "gidSlots" | "gids">> {
  const list = await listNumbers(reader, `${portDir}/gids`);
  if (!list.ok) return { gidSlots: list, gids: [] };
  const indices = list.value;
  const texts = reader.readNumbered
    ? await reader.readNumbered(`${portDir}/gids`, indices)
    : await readIn(reader, `${portDir}/gids`, indices.map(String));
  // Empty slots (most of a 255-slot table) are counted in gidSlots but not kept: nothing reads them.
  const gids: GidFact[] = [];
  const configured: GidFact[] = [];
  for (let k = 0; k < indices.length; k++) {
    const gid = texts[k]!;
    if (gid.ok && isEmptyGidText(gid.value)) continue;
    const g: GidFact = { index: indices[k]!, gid };
    gids.push(g);
    const parsed = gid.ok ? parseGid(gid.value) : null;
    if (parsed?.ok && parsed.value.configured) configured.push(g);
  }
  const slots = configured.map((g) => String(g.index));
  const [types, ndevs] = await Promise.all([
    readIn(reader, `${portDir}/gid_attrs/types`, slots),
    readIn(reader, `${portDir}/gid_attrs/ndevs`, slots),
  ]);
  configured.forEach((g, k) => {
    g.type = types[k]!;
    g.ndev = ndevs[k]!;
  });
  return { gidSlots: { ok: true, value: indices.length }, gids };
}

async function readAll(reader: HostReader, dir: string): Promise<DirFacts> {
  const names = sortedNames(await reader.list(dir));
  return { names, values: await readIn(reader, dir, names) };
}

async function readPort(reader: HostReader, hca: string, port: number): Promise<PortFacts> {
  const dir = `${IB}/${hca}/ports/${port}`;
  const [[state, physState, rate, linkLayer, lid], gids, counters, hwCounters] = await Promise.all([
    readIn(reader, dir, PORT_FILES),
    readPortGids(reader, dir),
    readAll(reader, `${dir}/counters`),
    readAll(reader, `${dir}/hw_counters`),
  ]);
  return {
    port,
    dir,
    state: state!,
    physState: physState!,
    rate: rate!,
    linkLayer: linkLayer!,
    lid: lid!,
    ...gids,
    counters,
    hwCounters,
  };
}

/** Reads a PCI function through `/sys/bus/pci/devices/<bdf>`. */
export async function readPci(reader: HostReader, address: string): Promise<PciFacts> {
  const base = `${PCI}/${address}`;
  const [path, [cls, vendor, device, numaNode, currentLinkSpeed, maxLinkSpeed, currentLinkWidth, maxLinkWidth]] =
    await Promise.all([reader.realpath(base), readIn(reader, base, PCI_FILES)]);
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

async function readHca(reader: HostReader, name: string): Promise<HcaFacts> {
  const dir = `${IB}/${name}`;
  const [[nodeGuid, sysImageGuid, fwVer, hcaType, boardId], device, portList] = await Promise.all([
    readIn(reader, dir, HCA_FILES),
    reader.realpath(`${dir}/device`),
    reader.list(`${dir}/ports`),
  ]);
  const address = pciAddressOf(device);
  const pci = address ? await readPci(reader, address) : null;
  const portNumbers = portList.ok ? numericNames(portList.value) : [];
  const ports = await Promise.all(portNumbers.map((p) => readPort(reader, name, p)));
  return {
    name,
    nodeGuid: nodeGuid!,
    sysImageGuid: sysImageGuid!,
    fwVer: fwVer!,
    hcaType: hcaType!,
    boardId: boardId!,
    device,
    pci,
    ports,
    ...(portList.ok ? {} : { portsError: portList.error }),
  };
}

/** Netdevs worth reading: physical ones (with a `device` link) and any named by a GID, the route or a bond. */
async function readNetdevs(reader: HostReader, names: string[], wanted: Set<string>): Promise<NetdevFacts[]> {
  const out = await Promise.all(
    names.map(async (name): Promise<NetdevFacts | null> => {
      const dir = `${NET}/${name}`;
      const device = await reader.realpath(`${dir}/device`);
      const bondSlaves = await reader.readText(`${dir}/bonding/slaves`);
      if (!device.ok && !bondSlaves.ok && !wanted.has(name)) return null;
      const [operstate, mtu, address] = await readIn(reader, dir, NETDEV_FILES);
      return { name, operstate: operstate!, mtu: mtu!, address: address!, device, bondSlaves };
    }),
  );
  return out.filter((n): n is NetdevFacts => n !== null);
}

async function readGpuPci(reader: HostReader, list: ReadOutcome<string[]>): Promise<PciFacts[]> {
  const candidates = await Promise.all(
    (list.ok ? [...list.value].sort() : []).map(async (address) => {
      const vendor = await reader.readText(`${PCI}/${address}/vendor`);
      if (!vendor.ok || vendor.value.trim() !== "0x10de") return null;
      const cls = await reader.readText(`${PCI}/${address}/class`);
      return cls.ok && /^0x030[02]/.test(cls.value.trim()) ? address : null;
    }),
  );
  return Promise.all(candidates.filter((a): a is string => a !== null).map((a) => readPci(reader, a)));
}

function ifaceOfRoute(route: Fact): string | null {
  const r = route.ok ? parseDefaultRouteInterface(route.value) : null;
  return r?.ok ? r.value : null;
}

/** Reads every raw fact the node model needs. Never throws: failures are kept as failed reads. */
export async function readFacts(reader: HostReader, opts: { commandTimeoutMs?: number } = {}): Promise<HostFacts> {
  const timeout = opts.commandTimeoutMs !== undefined ? { timeoutMs: opts.commandTimeoutMs } : {};
  // Commands first, in parallel with the sysfs walk: a slow nvidia-smi overlaps the reads.
  const commands = Promise.all([
    reader.run("ofed_info", ["-s"], timeout),
    reader.run("nvidia-smi", ["-q", "-x"], timeout),
  ]);
  const [hostname, kernelRelease, nvidiaDriverProc, route, status, limits, hcaList, pciList, devInfiniband, verbsList] =
    await Promise.all([
      reader.readText("/proc/sys/kernel/hostname"),
      reader.readText("/proc/sys/kernel/osrelease"),
      reader.readText("/proc/driver/nvidia/version"),
      reader.readText("/proc/net/route"),
      reader.readText("/proc/self/status"),
      reader.readText("/proc/self/limits"),
      reader.list(IB),
      reader.list(PCI),
      reader.list("/dev/infiniband"),
      reader.list("/sys/class/infiniband_verbs"),
    ]);
  const hcas = await Promise.all(sortedNames(hcaList).map((n) => readHca(reader, n)));
  const wanted = new Set<string>();
  for (const h of hcas) {
    for (const p of h.ports) for (const g of p.gids) if (g.ndev?.ok) wanted.add(g.ndev.value.trim());
  }
  const routeIface = ifaceOfRoute(route);
  if (routeIface) wanted.add(routeIface);
  const netList = await reader.list(NET);
  const [netdevs, gpuPci, uverbs, shm, nvidia, nvidiaPeermem, nvPeerMem, memoryPeersNvMem] = await Promise.all([
    readNetdevs(
      reader,
      sortedNames(netList).filter((n) => n !== "lo"),
      wanted,
    ),
    readGpuPci(reader, pciList),
    Promise.all(
      sortedNames(verbsList)
        .filter((n) => n.startsWith("uverbs"))
        .map(async (name) => ({ name, ibdev: await reader.readText(`/sys/class/infiniband_verbs/${name}/ibdev`) })),
    ),
    reader.fsSize("/dev/shm"),
    reader.exists("/sys/module/nvidia"),
    reader.exists("/sys/module/nvidia_peermem"),
    reader.exists("/sys/module/nv_peer_mem"),
    reader.exists("/sys/kernel/mm/memory_peers/nv_mem/version"),
  ]);
  const [ofed, nvidiaSmi] = await commands;
  return {
    source: reader.description,
    hostname,
    kernelRelease,
    nvidiaDriverProc,
    hcaList,
    hcas,
    netList,
    netdevs,
    gpuPci,
    pciList,
    modules: { nvidia, nvidiaPeermem, nvPeerMem, memoryPeersNvMem },
    route,
    status,
    limits,
    devInfiniband,
    uverbs,
    shm,
    ofed,
    nvidiaSmi,
  };
}

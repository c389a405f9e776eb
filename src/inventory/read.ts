import { naturallySorted, numericNames } from "../core/natural.js";
import type { HostReader, ReadOutcome } from "../host/types.js";
import { parseDefaultRouteInterface } from "../parse/proc.js";
import { parseGid } from "../parse/sysfs.js";
import type { Fact, GidFact, HcaFacts, HostFacts, NetdevFacts, PciFacts, PortFacts } from "./facts.js";
import { pciAddressOf } from "./reading.js";

const IB = "/sys/class/infiniband";
const NET = "/sys/class/net";
const PCI = "/sys/bus/pci/devices";

const sortedNames = (r: ReadOutcome<string[]>): readonly string[] => (r.ok ? naturallySorted(r.value) : []);

function readMany(reader: HostReader, paths: string[]): Promise<ReadOutcome<string>[]> {
  return reader.readTexts ? reader.readTexts(paths) : Promise.all(paths.map((p) => reader.readText(p)));
}

/** Reads one port's GID table the way show_gids does: every slot, attributes only for configured GIDs. */
export async function readPortGids(reader: HostReader, portDir: string): Promise<Pick<PortFacts, "gidSlots" | "gids">> {
  const list = await reader.list(`${portDir}/gids`);
  if (!list.ok) return { gidSlots: list, gids: [] };
  const indices = numericNames(list.value);
  const texts = reader.readNumbered
    ? await reader.readNumbered(`${portDir}/gids`, indices)
    : await readMany(
        reader,
        indices.map((i) => `${portDir}/gids/${i}`),
      );
  const gids: GidFact[] = indices.map((index, k) => ({ index, gid: texts[k]! }));
  const configured = gids.filter((g) => {
    const parsed = g.gid.ok ? parseGid(g.gid.value) : null;
    return parsed?.ok === true && parsed.value.configured;
  });
  const attrs = await readMany(
    reader,
    configured.flatMap((g) => [`${portDir}/gid_attrs/types/${g.index}`, `${portDir}/gid_attrs/ndevs/${g.index}`]),
  );
  configured.forEach((g, k) => {
    g.type = attrs[2 * k]!;
    g.ndev = attrs[2 * k + 1]!;
  });
  return { gidSlots: { ok: true, value: indices.length }, gids };
}

async function readAll(reader: HostReader, dir: string): Promise<Record<string, Fact>> {
  const names = sortedNames(await reader.list(dir));
  const values = await readMany(
    reader,
    names.map((n) => `${dir}/${n}`),
  );
  const out: Record<string, Fact> = {};
  for (let i = 0; i < names.length; i++) out[names[i]!] = values[i]!;
  return out;
}

async function readPort(reader: HostReader, hca: string, port: number): Promise<PortFacts> {
  const dir = `${IB}/${hca}/ports/${port}`;
  const f = (name: string) => reader.readText(`${dir}/${name}`);
  const [state, physState, rate, linkLayer, lid, gids, counters, hwCounters] = await Promise.all([
    f("state"),
    f("phys_state"),
    f("rate"),
    f("link_layer"),
    f("lid"),
    readPortGids(reader, dir),
    readAll(reader, `${dir}/counters`),
    readAll(reader, `${dir}/hw_counters`),
  ]);
  return { port, dir, state, physState, rate, linkLayer, lid, ...gids, counters, hwCounters };
}

/** Reads a PCI function through `/sys/bus/pci/devices/<bdf>`. */
export async function readPci(reader: HostReader, address: string): Promise<PciFacts> {
  const base = `${PCI}/${address}`;
  const f = (name: string) => reader.readText(`${base}/${name}`);
  const [path, cls, vendor, device, numaNode, currentLinkSpeed, maxLinkSpeed, currentLinkWidth, maxLinkWidth] =
    await Promise.all([
      reader.realpath(base),
      f("class"),
      f("vendor"),
      f("device"),
      f("numa_node"),
      f("current_link_speed"),
      f("max_link_speed"),
      f("current_link_width"),
      f("max_link_width"),
    ]);
  return {
    address,
    path,
    class: cls,
    vendor,
    device,
    numaNode,
    currentLinkSpeed,
    maxLinkSpeed,
    currentLinkWidth,
    maxLinkWidth,
  };
}

async function readHca(reader: HostReader, name: string): Promise<HcaFacts> {
  const dir = `${IB}/${name}`;
  const f = (file: string) => reader.readText(`${dir}/${file}`);
  const [nodeGuid, sysImageGuid, fwVer, hcaType, boardId, device, portList] = await Promise.all([
    f("node_guid"),
    f("sys_image_guid"),
    f("fw_ver"),
    f("hca_type"),
    f("board_id"),
    reader.realpath(`${dir}/device`),
    reader.list(`${dir}/ports`),
  ]);
  const address = pciAddressOf(device);
  const pci = address ? await readPci(reader, address) : null;
  const portNumbers = portList.ok ? numericNames(portList.value) : [];
  const ports = await Promise.all(portNumbers.map((p) => readPort(reader, name, p)));
  return {
    name,
    nodeGuid,
    sysImageGuid,
    fwVer,
    hcaType,
    boardId,
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
      const [operstate, mtu, address] = await Promise.all([
        reader.readText(`${dir}/operstate`),
        reader.readText(`${dir}/mtu`),
        reader.readText(`${dir}/address`),
      ]);
      return { name, operstate, mtu, address, device, bondSlaves };
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

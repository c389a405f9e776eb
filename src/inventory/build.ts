/** Turns raw host facts into the node model. Pure: no I/O, never throws on bad data (problems instead). */
import { naturalCompare } from "../core/natural.js";
import { type Problem, problem } from "../core/result.js";
import type { CommandOutcome, ReadOutcome } from "../host/types.js";
import { normalizeBusId, parseNvidiaSmiXml } from "../parse/nvidia-smi-xml.js";
import { parseOfedInfo } from "../parse/ofed-info.js";
import {
  type ConnectedRoute,
  parseCapEff,
  parseConnectedRoutes,
  parseDefaultRouteInterface,
  parseMemlock,
} from "../parse/proc.js";
import {
  isEmptyGidText,
  parseGid,
  parseGidType,
  parseLinkLayer,
  parseNumaNode,
  parsePhysState,
  parsePortState,
  parseRate,
  parseSysfsHex,
  parseSysfsInt,
} from "../parse/sysfs.js";
import type { Fact, HcaFacts, HostFacts, NetdevFacts, PciFacts, PortFacts } from "./facts.js";
import { assignRoles } from "./roles.js";
import { memoSplitPciPath, pciDistance } from "./topology.js";
import type {
  DriverInfo,
  GidEntry,
  Gpu,
  GpuDirect,
  GpuNicPath,
  Hca,
  Limit,
  Netdev,
  NodeInventory,
  OfedInfo,
  PcieLink,
  Port,
} from "./types.js";

/** Collects problems while reading facts; `value` returns the trimmed text or null. */
class Reading {
  readonly problems: Problem[] = [];

  /** Text of a read; a failed read becomes a problem unless it is one of the `quiet` codes. */
  value(path: string, f: Fact | ReadOutcome<number>, quiet: readonly string[] = []): string | null {
    if (f.ok) return String(f.value).trim();
    if (!quiet.includes(f.error.code)) this.failed(path, f.error.code, f.error.message);
    return null;
  }

  failed(path: string, code: string, message: string): void {
    this.problems.push(problem("host.read_failed", message, { path, hint: hintFor(code, path) }));
  }

  parsed<T>(
    r: { ok: true; value: T; problems: Problem[] } | { ok: false; problems: Problem[] },
    path: string,
  ): T | null {
    for (const p of r.problems) this.problems.push({ ...p, path: p.path ?? path });
    return r.ok ? r.value : null;
  }
}

function hintFor(code: string, path: string): string {
  if (code === "EACCES" || code === "EPERM") {
    return "Run as root, or in a pod mount the host's /sys and /proc read-only and pass --root /host.";
  }
  if (code === "ENOENT" && path.startsWith("/sys/class/infiniband")) {
    return "Is the RDMA driver loaded? Check `lsmod | grep mlx5_ib` and `ls /sys/class/infiniband`.";
  }
  if (code === "ENOENT") return `Check that ${path} exists on this host (a --root tree may be incomplete).`;
  return `Read ${path} by hand (\`cat ${path}\`) to see the kernel's answer.`;
}

function numberOf(text: string | null): number | null {
  if (text === null) return null;
  const n = Number(text);
  return Number.isFinite(n) && text !== "" ? n : null;
}

function buildGids(rd: Reading, pf: PortFacts, linkLayer: Port["linkLayer"]): GidEntry[] {
  const out: GidEntry[] = [];
  for (const g of pf.gids) {
    if (g.gid.ok && isEmptyGidText(g.gid.value)) continue;
    const path = `${pf.dir}/gids/${g.index}`;
    const text = rd.value(path, g.gid, ["EINVAL"]);
    if (text === null) continue;
    const info = rd.parsed(parseGid(text, { linkLayer, path }), path);
    if (!info?.configured || info.kind === null) continue;
    // An unreadable type/ndev (EINVAL: the netdev lives in another namespace) is what NCCL skips too: not a problem.
    const typeText = g.type?.ok ? g.type.value.trim() : null;
    const type = typeText ? parseGidType(typeText) : null;
    const ndev = g.ndev?.ok ? g.ndev.value.trim() || null : null;
    out.push({
      index: g.index,
      gid: info.gid,
      kind: info.kind,
      ipv4: info.ipv4,
      type: typeText,
      version: type?.ok ? type.value.version : null,
      netdev: linkLayer === "InfiniBand" ? null : ndev,
    });
  }
  return out;
}

function counterValues(facts: Record<string, Fact>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name in facts) {
    const f = facts[name]!;
    if (!f.ok || name === "lifespan") continue;
    const n = parseSysfsInt(f.value);
    if (n.ok) out[name] = n.value;
  }
  return out;
}

function buildPort(rd: Reading, pf: PortFacts, pciNetdevs: string[]): Port {
  const at = (f: string) => `${pf.dir}/${f}`;
  const stateText = rd.value(at("state"), pf.state);
  const physText = rd.value(at("phys_state"), pf.physState);
  const rateText = rd.value(at("rate"), pf.rate, ["EINVAL"]);
  const llText = rd.value(at("link_layer"), pf.linkLayer);
  const state = stateText === null ? null : rd.parsed(parsePortState(stateText, at("state")), at("state"));
  const phys = physText === null ? null : rd.parsed(parsePhysState(physText, at("phys_state")), at("phys_state"));
  const rate = rateText === null ? null : rd.parsed(parseRate(rateText, at("rate")), at("rate"));
  const linkLayer =
    llText === null ? "Unknown" : (rd.parsed(parseLinkLayer(llText, at("link_layer")), at("link_layer")) ?? "Unknown");
  const gidSlots = pf.gidSlots.ok ? pf.gidSlots.value : 0;
  if (!pf.gidSlots.ok) rd.failed(`${pf.dir}/gids`, pf.gidSlots.error.code, pf.gidSlots.error.message);
  const gids = buildGids(rd, pf, linkLayer);
  const fromGids = [...new Set(gids.map((g) => g.netdev).filter((n): n is string => n !== null))];
  const netdevs = fromGids.length > 0 ? fromGids : pciNetdevs;
  const firstIndex = (kind: GidEntry["kind"]) => gids.find((g) => g.version === "v2" && g.kind === kind)?.index ?? null;
  return {
    port: pf.port,
    state: state?.state ?? "UNKNOWN",
    physState: phys?.state ?? "UNKNOWN",
    rateGbps: rate?.gbps ?? null,
    rateText,
    linkLayer,
    lid: rd.value(at("lid"), pf.lid, ["ENOENT", "EINVAL"]),
    gidTableLength: gidSlots,
    gids,
    netdevs: [...netdevs].sort(naturalCompare),
    counters: counterValues(pf.counters),
    hwCounters: counterValues(pf.hwCounters),
    roceV2Ipv4Index: linkLayer === "Ethernet" ? firstIndex("ipv4") : null,
    roceV2Ipv6Index: linkLayer === "Ethernet" ? firstIndex("ipv6_global") : null,
  };
}

function pciAddressOf(path: ReadOutcome<string>): string | null {
  if (!path.ok) return null;
  const last = path.value.slice(path.value.lastIndexOf("/") + 1);
  return /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/.test(last) ? last : null;
}

function pciNumbers(rd: Reading, pci: PciFacts | null) {
  if (!pci) return { numaNode: null, vendorId: null, deviceId: null, pciPath: null, link: null };
  const base = `/sys/bus/pci/devices/${pci.address}`;
  const numaText = rd.value(`${base}/numa_node`, pci.numaNode, ["ENOENT"]);
  const hex = (f: Fact, name: string) => {
    const t = rd.value(`${base}/${name}`, f, ["ENOENT"]);
    const r = t === null ? null : parseSysfsHex(t, `${base}/${name}`);
    return r?.ok ? r.value.text : null;
  };
  const text = (f: Fact) => (f.ok ? f.value.trim() : null);
  const link: PcieLink = {
    currentSpeed: text(pci.currentLinkSpeed),
    maxSpeed: text(pci.maxLinkSpeed),
    currentWidth: numberOf(text(pci.currentLinkWidth)),
    maxWidth: numberOf(text(pci.maxLinkWidth)),
  };
  const numa = numaText === null ? null : parseNumaNode(numaText);
  return {
    numaNode: numa?.ok ? numa.value : null,
    vendorId: hex(pci.vendor, "vendor"),
    deviceId: hex(pci.device, "device"),
    pciPath: pci.path.ok ? pci.path.value : null,
    link: Object.values(link).every((v) => v === null) ? null : link,
  };
}

function buildHca(rd: Reading, hf: HcaFacts, netdevsByPci: Map<string, string[]>, uverbs: string[]): Hca {
  const dir = `/sys/class/infiniband/${hf.name}`;
  const f = (name: string, fact: Fact) => rd.value(`${dir}/${name}`, fact, ["ENOENT"]);
  if (hf.portsError) rd.failed(`${dir}/ports`, hf.portsError.code, hf.portsError.message);
  const pciAddress = pciAddressOf(hf.device);
  const pciNetdevs = pciAddress ? (netdevsByPci.get(pciAddress) ?? []) : [];
  const ports = hf.ports.map((p) => buildPort(rd, p, pciNetdevs));
  const pci = pciNumbers(rd, hf.pci);
  const netdevs = [...new Set(ports.flatMap((p) => p.netdevs))].sort(naturalCompare);
  return {
    name: hf.name,
    nodeGuid: f("node_guid", hf.nodeGuid),
    sysImageGuid: f("sys_image_guid", hf.sysImageGuid),
    fwVer: f("fw_ver", hf.fwVer),
    hcaType: f("hca_type", hf.hcaType),
    boardId: f("board_id", hf.boardId),
    pciAddress,
    pciPath: pci.pciPath ?? (hf.device.ok ? hf.device.value : null),
    vendorId: pci.vendorId,
    deviceId: pci.deviceId,
    numaNode: pci.numaNode,
    ports,
    netdevs,
    isBond: /^mlx5_bond_\d+$/.test(hf.name),
    uverbs,
    role: "excluded",
    roleReason: "",
  };
}

function buildNetdevs(
  rd: Reading,
  facts: NetdevFacts[],
  defaultIf: string | null,
  routes: readonly ConnectedRoute[],
): Netdev[] {
  return facts.map((n) => {
    const dir = `/sys/class/net/${n.name}`;
    const slaves = n.bondSlaves.ok ? n.bondSlaves.value.trim().split(/\s+/).filter(Boolean) : [];
    return {
      name: n.name,
      operstate: rd.value(`${dir}/operstate`, n.operstate),
      mtu: numberOf(rd.value(`${dir}/mtu`, n.mtu)),
      address: rd.value(`${dir}/address`, n.address),
      pciAddress: pciAddressOf(n.device),
      hca: null,
      isDefaultRoute: n.name === defaultIf,
      bondSlaves: slaves.sort(naturalCompare),
      ipv4Subnets: routes.filter((r) => r.iface === n.name).map((r) => r.cidr),
    };
  });
}

function buildOfed(rd: Reading, o: CommandOutcome): OfedInfo {
  if (o.error?.code === "ENOENT") return { status: "absent", flavor: null, version: null, raw: null };
  if (o.error) {
    rd.problems.push(
      problem("command.failed", o.error.message, { path: o.command, hint: "Run `ofed_info -s` by hand." }),
    );
    return { status: "error", flavor: null, version: null, raw: null };
  }
  const text = o.stdout.trim() ? o.stdout : o.stderr;
  const r = parseOfedInfo(text);
  if (!r.ok) {
    for (const p of r.problems) rd.problems.push({ ...p, path: o.command });
    return { status: "error", flavor: null, version: null, raw: text.trim() || null };
  }
  const v = r.value;
  return v.status === "present"
    ? { status: "present", flavor: v.flavor, version: v.version, raw: v.raw }
    : { status: "absent", flavor: null, version: null, raw: v.raw };
}

type SmiResult = { driver: DriverInfo; gpus: ReturnType<typeof parseNvidiaSmiXml> | null };

function buildDriver(rd: Reading, o: CommandOutcome): SmiResult {
  const none = { driverVersion: null, cudaVersion: null };
  if (o.error?.code === "ENOENT") return { driver: { status: "absent", ...none, error: o.error.message }, gpus: null };
  if (o.error?.code === "ETIMEDOUT")
    return { driver: { status: "timeout", ...none, error: o.error.message }, gpus: null };
  if (o.error || o.exitCode !== 0) {
    const said = (o.stdout.trim() || o.stderr.trim()).split("\n")[0] ?? "";
    const error = o.error?.message ?? `${o.command} exited with ${o.exitCode}${said ? `: ${said}` : ""}`;
    return { driver: { status: "error", ...none, error }, gpus: null };
  }
  const r = parseNvidiaSmiXml(o.stdout);
  for (const p of r.problems) rd.problems.push({ ...p, path: o.command });
  if (!r.ok) {
    return { driver: { status: "error", ...none, error: r.problems[0]?.message ?? "unreadable output" }, gpus: r };
  }
  return {
    driver: { status: "ok", driverVersion: r.value.driverVersion, cudaVersion: r.value.cudaVersion, error: null },
    gpus: r,
  };
}

function buildGpus(rd: Reading, smi: SmiResult, pciFacts: PciFacts[]): Gpu[] {
  const byAddress = new Map(pciFacts.map((p) => [p.address, p]));
  const fromSmi = smi.gpus?.ok ? smi.gpus.value.gpus : null;
  if (fromSmi) {
    return fromSmi.map((g) => {
      const pci = pciNumbers(rd, byAddress.get(g.busId) ?? null);
      return { ...withoutBusId(g), pciAddress: g.busId, link: pci.link, numaNode: pci.numaNode, pciPath: pci.pciPath };
    });
  }
  // The driver did not answer: the GPUs the PCI bus shows, so the report still says what is there.
  return pciFacts.map((p, index) => {
    const pci = pciNumbers(rd, p);
    return {
      index,
      name: `NVIDIA GPU (PCI device ${pci.deviceId ?? "unknown"}; driver did not answer)`,
      pciAddress: normalizeBusId(p.address) ?? p.address,
      uuid: null,
      memoryTotalMiB: null,
      persistenceMode: null,
      migMode: null,
      eccVolatileUncorrected: null,
      eccAggregateUncorrected: null,
      retiredPagesPending: null,
      remappedRows: null,
      pcieGen: { current: null, max: null },
      pcieWidth: { current: null, max: null },
      link: pci.link,
      numaNode: pci.numaNode,
      pciPath: pci.pciPath,
    };
  });
}

function withoutBusId<T extends { busId: string }>(g: T): Omit<T, "busId"> {
  const { busId: _busId, ...rest } = g;
  return rest;
}

function buildPaths(gpus: Gpu[], hcas: Hca[]): GpuNicPath[] {
  const out: GpuNicPath[] = [];
  const split = memoSplitPciPath();
  for (const g of gpus) {
    if (!g.pciPath) continue;
    for (const h of hcas) {
      if (!h.pciPath) continue;
      const d = pciDistance(
        { path: g.pciPath, numaNode: g.numaNode },
        { path: h.pciPath, numaNode: h.numaNode },
        split,
      );
      if (d) out.push({ gpu: g.index, hca: h.name, distance: d.nccl, nvsmi: d.nvsmi });
    }
  }
  return out;
}

function kernelAtLeast(release: string | null, major: number, minor: number): boolean {
  const m = release ? /^(\d+)\.(\d+)/.exec(release) : null;
  if (!m) return false;
  return Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor);
}

function buildGpuDirect(facts: HostFacts, driver: DriverInfo): GpuDirect {
  const m = facts.modules;
  const peermem = m.nvidiaPeermem ? "nvidia_peermem" : m.nvPeerMem || m.memoryPeersNvMem ? "nv_peer_mem" : null;
  const reasons: string[] = [];
  if (peermem) reasons.push(`${peermem} is loaded: NCCL registers GPU memory through the peer-memory client`);
  const driverMajor = Number(driver.driverVersion?.split(".")[0] ?? Number.NaN);
  const release = facts.kernelRelease.ok ? facts.kernelRelease.value.trim() : null;
  const open = facts.nvidiaDriverProc.ok && /Open Kernel Module/.test(facts.nvidiaDriverProc.value);
  const driverOk = Number.isFinite(driverMajor) && driverMajor >= 515;
  const kernelOk = kernelAtLeast(release, 5, 12);
  const dmabufPossible = driverOk && kernelOk;
  if (dmabufPossible) {
    reasons.push(
      `DMA-BUF is possible: driver ${driver.driverVersion} ≥ 515 and kernel ${release} ≥ 5.12` +
        (open ? " with the open GPU kernel module" : " (NVIDIA recommends the open GPU kernel module for it)"),
    );
  } else {
    reasons.push(
      `DMA-BUF is not possible: ${!driverOk ? `driver ${driver.driverVersion ?? "unknown"} is older than 515` : `kernel ${release ?? "unknown"} is older than 5.12`}`,
    );
  }
  if (!m.nvidia) reasons.push("the nvidia kernel module is not loaded");
  return {
    peermem,
    nvidiaLoaded: m.nvidia,
    dmabufPossible,
    mechanism: peermem ? "peermem" : dmabufPossible ? "dmabuf" : null,
    reasons,
  };
}

function limitOf(v: number | "unlimited" | undefined): Limit {
  return v === undefined ? null : v;
}

/** Builds the node model from raw facts. Every read or parse failure lands in `problems`. */
export function buildInventory(facts: HostFacts): NodeInventory {
  const rd = new Reading();
  const routeText = rd.value("/proc/net/route", facts.route);
  const defaultIf = routeText === null ? null : rd.parsed(parseDefaultRouteInterface(routeText), "/proc/net/route");
  const connected = routeText === null ? null : parseConnectedRoutes(routeText);
  const netdevs = buildNetdevs(rd, facts.netdevs, defaultIf ?? null, connected?.ok ? connected.value : []);
  const netdevsByPci = new Map<string, string[]>();
  for (const n of netdevs) {
    if (n.pciAddress) netdevsByPci.set(n.pciAddress, [...(netdevsByPci.get(n.pciAddress) ?? []), n.name]);
  }
  if (!facts.hcaList.ok && facts.hcaList.error.code !== "ENOENT") {
    rd.failed("/sys/class/infiniband", facts.hcaList.error.code, facts.hcaList.error.message);
  }
  const uverbsOf = new Map<string, string[]>();
  for (const u of facts.uverbs) {
    const ibdev = u.ibdev.ok ? u.ibdev.value.trim() : null;
    if (ibdev) uverbsOf.set(ibdev, [...(uverbsOf.get(ibdev) ?? []), u.name]);
  }
  const hcas = facts.hcas
    .map((h) => buildHca(rd, h, netdevsByPci, uverbsOf.get(h.name) ?? []))
    .sort((a, b) => naturalCompare(a.name, b.name));
  for (const n of netdevs) {
    n.hca =
      hcas.find((h) => h.netdevs.includes(n.name))?.name ??
      hcas.find((h) => n.pciAddress !== null && h.pciAddress === n.pciAddress)?.name ??
      null;
  }
  const roles = assignRoles(hcas, netdevs, defaultIf ?? null);
  const ofed = buildOfed(rd, facts.ofed);
  const smi = buildDriver(rd, facts.nvidiaSmi);
  const gpus = buildGpus(rd, smi, facts.gpuPci);
  const status = rd.value("/proc/self/status", facts.status);
  const cap = status === null ? null : rd.parsed(parseCapEff(status), "/proc/self/status");
  const limitsText = rd.value("/proc/self/limits", facts.limits);
  const memlock = limitsText === null ? null : rd.parsed(parseMemlock(limitsText), "/proc/self/limits");
  const shm = rd.value("/dev/shm", facts.shm, ["ENOENT"]);
  const dev = facts.devInfiniband.ok ? [...facts.devInfiniband.value].sort(naturalCompare) : [];
  return {
    hostname: (facts.hostname.ok ? facts.hostname.value.trim() : null) || "unknown",
    source: facts.source,
    ofed,
    driver: smi.driver,
    hcas,
    netdevs: netdevs.sort((a, b) => naturalCompare(a.name, b.name)),
    gpus,
    paths: buildPaths(gpus, hcas),
    gpuDirect: buildGpuDirect(facts, smi.driver),
    roles,
    devices: { infiniband: dev, rdmaCm: dev.includes("rdma_cm") },
    process: {
      capEff: cap?.capEff ?? null,
      ipcLock: cap?.ipcLock ?? null,
      memlockSoft: limitOf(memlock?.soft),
      memlockHard: limitOf(memlock?.hard),
    },
    shmBytes: numberOf(shm),
    problems: rd.problems,
  };
}

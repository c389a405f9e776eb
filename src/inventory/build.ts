/** Turns raw host facts into the node model. Pure: no I/O, never throws on bad data (problems instead). */

import type { NameKind } from "../core/device-name.js";
import { naturalCompare } from "../core/natural.js";
import type { ReadOutcome } from "../host/types.js";
import { parsePciConfig } from "../parse/pci-config.js";
import {
  type ConnectedRoute,
  connectedRoutes,
  defaultRouteInterface,
  parseCapEff,
  parseMemlock,
  parseRouteTable,
} from "../parse/proc.js";
import {
  isEmptyGidText,
  parseCounter,
  parseGid,
  parseGidType,
  parseLinkLayer,
  parsePhysState,
  parsePortState,
  parseRate,
} from "../parse/sysfs.js";
import { buildBridges, buildIommu, buildRoceQos } from "./build-fabric.js";
import { buildDriver, buildGpuDirect, buildGpus, buildPaths } from "./build-gpus.js";
import { buildNetConf } from "./build-netconf.js";
import { buildNvSwitch } from "./build-nvlink.js";
import { buildOfed } from "./build-ofed.js";
import type { DirFacts, Fact, HcaFacts, HostFacts, NetdevFacts, PortFacts } from "./facts.js";
import { excludedGpus, gpuDriverInfos } from "./gpu-driver-info.js";
import { MAX_HCAS } from "./limits.js";
import { numberOf, pciAddressOf, pciNumbers, Reading } from "./reading.js";
import { assignRoles, dataHcasByGpuLocality } from "./roles.js";
import type { GidEntry, Hca, Limit, MissingFact, Netdev, NodeInventory, PcieControl, Port } from "./types.js";

function buildGids(rd: Reading, pf: PortFacts, linkLayer: Port["linkLayer"]): GidEntry[] {
  const out: GidEntry[] = [];
  for (const g of pf.gids) {
    // An empty slot (readPortGids leaves them out; facts built by hand may not) is skipped before building a path.
    if (g.gid.ok && isEmptyGidText(g.gid.value)) continue;
    const path = `${pf.dir}/gids/${g.index}`;
    const text = rd.value(path, g.gid, ["EINVAL"]);
    if (text === null) continue;
    const info = rd.parsed(parseGid(text, { linkLayer, path }), path);
    if (!info?.configured || info.kind === null) continue;
    // An unreadable type/ndev (EINVAL: the netdev lives in another namespace) is what NCCL skips too: not a problem.
    const typeText = g.type?.ok ? g.type.value.trim() : null;
    const type = typeText ? parseGidType(typeText) : null;
    const ndevText = g.ndev?.ok ? g.ndev.value.trim() || null : null;
    const ndev =
      ndevText === null ? null : rd.name(`${pf.dir}/gid_attrs/ndevs/${g.index}`, "network interface", ndevText);
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

/** A counters directory's numbers; a file that is not plain decimal digits is a problem naming it, not a number. */
function counterValues(rd: Reading, dir: string, facts: DirFacts): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < facts.names.length; i++) {
    const name = facts.names[i]!;
    const f = facts.values[i]!;
    if (name === "lifespan") continue;
    // A counter the kernel will not give (EINVAL, EOPNOTSUPP on some ports) is no problem; a refused read, or a
    // listed counter that is not there (a dangling link), is.
    const text = rd.value(`${dir}/${name}`, f, ["EINVAL", "EOPNOTSUPP"]);
    if (text === null || !f.ok) continue;
    const n = parseCounter(f.value, `${dir}/${name}`);
    if (n.ok) out[name] = n.value;
    else rd.parsed(n, `${dir}/${name}`);
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
    ...(pf.smLid ? { smLid: rd.value(at("sm_lid"), pf.smLid, ["ENOENT", "EINVAL"]) } : {}),
    ...(pf.lmc ? { lmc: numberOf(rd.value(at("lid_mask_count"), pf.lmc, ["ENOENT", "EINVAL"])) } : {}),
    gidTableLength: gidSlots,
    gids,
    netdevs: [...netdevs].sort(naturalCompare),
    counters: counterValues(rd, `${pf.dir}/counters`, pf.counters),
    hwCounters: counterValues(rd, `${pf.dir}/hw_counters`, pf.hwCounters),
    roceV2Ipv4Index: linkLayer === "Ethernet" ? firstIndex("ipv4") : null,
    roceV2Ipv6Index: linkLayer === "Ethernet" ? firstIndex("ipv6_global") : null,
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
    link: pci.link,
    ...pcieControlOf(hf.pciConfig),
    ports,
    netdevs,
    isBond: /^mlx5_bond_\d+$/.test(hf.name),
    uverbs,
    ...(hf.nodeType ? { nodeType: nodeTypeOf(f("node_type", hf.nodeType)) } : {}),
    role: "excluded",
    roleReason: "",
    ...(hf.portsError
      ? { unreadable: { path: `${dir}/ports`, code: hf.portsError.code, message: hf.portsError.message } }
      : {}),
  };
}

/** `1: CA` → `CA`, `4: RNIC` → `RNIC` (drivers/infiniband/core/sysfs.c, node_type_show). */
function nodeTypeOf(text: string | null): string | null {
  const m = text === null ? null : /^\d+:\s*(.+)$/.exec(text);
  return m ? m[1]!.trim() : null;
}

function buildNetdevs(
  rd: Reading,
  facts: NetdevFacts[],
  defaultIf: string | null,
  routes: readonly ConnectedRoute[],
): Netdev[] {
  return facts.map((n) => {
    const dir = `/sys/class/net/${n.name}`;
    const listed = n.bondSlaves.ok ? n.bondSlaves.value.trim().split(/\s+/).filter(Boolean) : [];
    const slaves = listed.filter((s) => rd.name(`${dir}/bonding/slaves`, "network interface", s) !== null);
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
      ...(n.carrierChanges
        ? { carrierChanges: numberOf(rd.value(`${dir}/carrier_changes`, n.carrierChanges, ["ENOENT"])) }
        : {}),
    };
  });
}

function limitOf(v: number | "unlimited" | undefined): Limit {
  return v === undefined ? null : v;
}

/** Builds the node model from raw facts. Every read or parse failure lands in `problems`. */
export function buildInventory(facts: HostFacts): NodeInventory {
  const rd = new Reading();
  const routeText = rd.value("/proc/net/route", facts.route);
  const routes = routeText === null ? null : rd.parsed(parseRouteTable(routeText), "/proc/net/route");
  const defaultIf = routes ? defaultRouteInterface(routes) : null;
  refuseListedNames(rd, NET_DIR, "network interface", facts.netList);
  const netdevFacts = facts.netdevs.filter((n) => rd.name(NET_DIR, "network interface", n.name) !== null);
  const netdevs = buildNetdevs(rd, netdevFacts, defaultIf, routes ? connectedRoutes(routes) : []);
  const netdevsByPci = new Map<string, string[]>();
  for (const n of netdevs) {
    if (n.pciAddress) netdevsByPci.set(n.pciAddress, [...(netdevsByPci.get(n.pciAddress) ?? []), n.name]);
  }
  if (!facts.hcaList.ok && facts.hcaList.error.code !== "ENOENT") {
    rd.failed("/sys/class/infiniband", facts.hcaList.error.code, facts.hcaList.error.message);
  }
  if (facts.hcaList.ok && facts.hcaList.value.length > MAX_HCAS) {
    rd.failed(
      "/sys/class/infiniband",
      "IMPLAUSIBLE",
      `${facts.hcaList.value.length} RDMA devices, more than a node has: the first ${MAX_HCAS} were read, the input looks damaged`,
    );
  }
  refuseListedNames(rd, IB_DIR, "RDMA device", facts.hcaList);
  const hcaFacts = facts.hcas.filter((h) => rd.name(IB_DIR, "RDMA device", h.name) !== null);
  const uverbsOf = new Map<string, string[]>();
  for (const u of facts.uverbs) {
    const ibdevText = u.ibdev.ok ? u.ibdev.value.trim() : null;
    const ibdev = ibdevText ? rd.name(`/sys/class/infiniband_verbs/${u.name}/ibdev`, "RDMA device", ibdevText) : null;
    if (ibdev) uverbsOf.set(ibdev, [...(uverbsOf.get(ibdev) ?? []), u.name]);
  }
  const hcas = hcaFacts
    .map((h) => buildHca(rd, h, netdevsByPci, uverbsOf.get(h.name) ?? []))
    .sort((a, b) => naturalCompare(a.name, b.name));
  for (const n of netdevs) {
    n.hca =
      hcas.find((h) => h.netdevs.includes(n.name))?.name ??
      hcas.find((h) => n.pciAddress !== null && h.pciAddress === n.pciAddress)?.name ??
      null;
  }
  const roles = assignRoles(hcas, netdevs, defaultIf);
  const ofed = buildOfed(rd, facts.ofed, facts.modules);
  const smi = buildDriver(rd, facts.nvidiaSmi, facts.nvidiaDriverProc.ok ? facts.nvidiaDriverProc.value : null);
  const gpuInfo = gpuDriverInfos(facts.gpuDriverInfo);
  const gpus = buildGpus(rd, smi, facts.gpuPci, gpuInfo);
  const status = rd.value("/proc/self/status", facts.status);
  const cap = status === null ? null : rd.parsed(parseCapEff(status), "/proc/self/status");
  const limitsText = rd.value("/proc/self/limits", facts.limits);
  const memlock = limitsText === null ? null : rd.parsed(parseMemlock(limitsText), "/proc/self/limits");
  const shm = rd.value("/dev/shm", facts.shm, ["ENOENT"]);
  const dev = facts.devInfiniband.ok ? [...facts.devInfiniband.value].sort(naturalCompare) : [];
  const paths = buildPaths(gpus, hcas);
  roles.dataHcas = dataHcasByGpuLocality(hcas, paths, roles.dataHcas);
  const missing = missingFacts(facts, hcas, roles.dataHcas, gpus.length > 0);
  return {
    hostname: hostnameOf(rd, facts.hostname),
    source: facts.source,
    ofed,
    driver: smi.driver,
    hcas,
    netdevs: netdevs.sort((a, b) => naturalCompare(a.name, b.name)),
    gpus,
    paths,
    gpuDirect: buildGpuDirect(facts, smi.driver),
    roles,
    devices: { infiniband: dev, rdmaCm: dev.includes("rdma_cm") },
    ...rdmaNetnsOf(facts.modules.ibCoreNetnsMode),
    process: {
      capEff: cap?.capEff ?? null,
      ipcLock: cap?.ipcLock ?? null,
      memlockSoft: limitOf(memlock?.soft),
      memlockHard: limitOf(memlock?.hard),
    },
    shmBytes: numberOf(shm),
    bridges: buildBridges(rd, facts.bridges),
    iommu: buildIommu(facts.iommu),
    roceQos: buildRoceQos(rd, facts.roceQos),
    problems: rd.problems,
    ...(missing.length ? { missing } : {}),
    ...excludedGpus(facts.gpuPci, gpuInfo),
    ...buildNvSwitch(rd, facts.nvlink),
    ...buildNetConf(rd, facts.netConf),
  };
}

const IB_DIR = "/sys/class/infiniband";
const NET_DIR = "/sys/class/net";

/** Names a listing holds that the kernel would not give: each one is a problem (the facts leave them out). */
function refuseListedNames(rd: Reading, dir: string, what: NameKind, list: ReadOutcome<string[]>): void {
  if (!list.ok) return;
  for (const name of list.value) rd.name(dir, what, name);
}

/** The hostname, or "unknown" when it cannot be read or is not one a kernel holds (a newline, an escape). */
function hostnameOf(rd: Reading, fact: Fact): string {
  const text = fact.ok ? fact.value.trim() : "";
  if (text === "") return "unknown";
  return rd.name("/proc/sys/kernel/hostname", "hostname", text) ?? "unknown";
}

/**
 * The facts the checks need that this host did not give. Only what a Linux host with RDMA always has counts as
 * missing: /sys/class/net (at least one interface beside lo when there are HCAs), a data HCA's `device` link (its
 * PCI place, when there are GPUs to compare it with), a data port's `counters` listing. Pure.
 */
function missingFacts(
  facts: HostFacts,
  hcas: readonly Hca[],
  dataHcas: readonly string[],
  hasGpus: boolean,
): MissingFact[] {
  const out: MissingFact[] = [];
  const roles = "management/data NIC roles, bonds, MTU and the NCCL interface";
  if (!facts.netList.ok) {
    out.push({ fact: "network interfaces", path: "/sys/class/net", why: facts.netList.error.message, checks: roles });
  } else if (hcas.length > 0 && facts.netList.value.every((n) => n === "lo")) {
    out.push({
      fact: "network interfaces",
      path: "/sys/class/net",
      why: "it lists no interface beside lo",
      checks: roles,
    });
  }
  const pciEmpty = facts.pciList.ok && facts.pciList.value.length === 0;
  if ((!facts.pciList.ok || pciEmpty) && (hasGpus || hcas.length > 0)) {
    out.push({
      fact: "the PCI functions",
      path: "/sys/bus/pci/devices",
      why: facts.pciList.ok ? "it lists no PCI function" : facts.pciList.error.message,
      checks: "the GPUs' PCIe links and the GPU↔NIC distance (GPUDirect RDMA)",
    });
  }
  for (const hf of facts.hcas) {
    if (!dataHcas.includes(hf.name)) continue;
    if (!hf.fwVer.ok) {
      out.push({
        fact: `the firmware version of ${hf.name}`,
        path: `/sys/class/infiniband/${hf.name}/fw_ver`,
        why: hf.fwVer.error.message,
        checks: "the HCA firmware comparison (per node and across the fleet)",
      });
    }
    if (hasGpus && !hf.device.ok) {
      out.push({
        fact: `the PCI place of ${hf.name}`,
        path: `/sys/class/infiniband/${hf.name}/device`,
        why: hf.device.error.message,
        checks: "GPU↔NIC distance (GPUDirect RDMA) and the HCA's PCIe link",
      });
    }
    for (const pf of hf.ports) {
      if (pf.counters.names.length > 0) continue;
      out.push({
        fact: `the error counters of ${hf.name}/${pf.port}`,
        path: `${pf.dir}/counters`,
        why: "the directory could not be listed or is empty",
        checks: "link error counters",
      });
    }
  }
  return out;
}

/** ib_core's netns_mode parameter: a bool module parameter reads `Y`/`N` (older kernels `1`/`0`). */
function rdmaNetnsOf(fact: Fact | undefined): { rdmaNetns?: "shared" | "exclusive" } {
  const v = fact?.ok ? fact.value.trim() : "";
  if (v === "Y" || v === "1") return { rdmaNetns: "shared" };
  if (v === "N" || v === "0") return { rdmaNetns: "exclusive" };
  return {};
}

/**
 * The NIC function's Device Control (relaxed ordering, MaxReadReq, MaxPayload) from its config space; null when the
 * config space was read but the PCI Express capability was not in it (64 bytes: a reader without root).
 */
function pcieControlOf(fact: Fact | undefined): { pcieControl?: PcieControl | null } {
  if (!fact?.ok) return {};
  const parsed = parsePciConfig(fact.value);
  if (!parsed.ok) return { pcieControl: null };
  const dc = parsed.value.deviceControl;
  if (!dc) return { pcieControl: null };
  return {
    pcieControl: {
      relaxedOrdering: dc.relaxedOrdering,
      maxReadRequestBytes: dc.maxReadRequestBytes,
      maxPayloadBytes: dc.maxPayloadBytes,
    },
  };
}

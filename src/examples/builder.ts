/**
 * Builds a whole RDMA GPU host as a HostTree in the kernel's exact formats: /sys/class/infiniband (GID tables of
 * `gidSlots` entries, empty slots all-zero with EINVAL attributes), /sys/class/net, a PCIe tree under /sys/devices
 * reached through /sys/bus/pci/devices links, modules, /proc, /dev/infiniband and the two commands.
 */

import { writeDriverFacts } from "./driver-files.js";
import { defaultGidSlots, hex2, macOf, writeGidSlot } from "./gid-slots.js";
import { healthyEthtoolStats, writeNetworkCommands } from "./network-commands.js";
import { ACS_REDIRECTING, configSpaceHex, NIC_DEVICE_CONTROL } from "./pci-config-space.js";
import { writeProcFiles } from "./proc-files.js";
import { HostTree } from "./tree.js";

export { gpuXmlSpecs, ofedModuleVersion } from "./driver-files.js";
export { defaultGidSlots, ipv4Gid, ipv6Gid, linkLocalGid, macOf, writeGidSlot, ZERO_GID } from "./gid-slots.js";
export { limitsText } from "./proc-files.js";
export { healthyEthtoolStats };

export type LinkLayerSpec = "Ethernet" | "InfiniBand";

/** One GID slot as the kernel shows it. */
export type GidSlot = { index: number; gid: string; type: "IB/RoCE v1" | "RoCE v2"; ndev: string | null };

export type NicSpec = {
  ibdev: string;
  /** RoCE netdev; null on InfiniBand ports without IPoIB. */
  netdev: string | null;
  bdf: string;
  /** Interface id of the link-local GID (`eaeb:d3ff:fecc:c920`); the MAC is derived from it (EUI-64). */
  interfaceId: string;
  ipv4: string[];
  ipv6: string[];
  rate: string;
  linkLayer: LinkLayerSpec;
  state?: string;
  physState?: string;
  /** IB LID (`0x1a`); RoCE ports read `0x0`. */
  lid?: string;
  /** PCI Express Device Control of the NIC function (default: relaxed ordering on, MaxReadReq 4096). */
  deviceControl?: number;
  /** The netdev's MTU (default 9000, as RoCE data NICs are set for a 4096 active MTU; management NICs say 1500). */
  mtu?: number;
};

export type GpuSpec = { bdf: string; model: GpuModel; minor: number };

export type GpuModel = { name: string; deviceId: string; memoryMiB: number; linkSpeed: string };

/** A PCIe switch on its own root port: 2 GPUs and N NICs below its downstream ports. */
export type SwitchSpec = { rootBus: number; numa: number; gpus: GpuSpec[]; nics: NicSpec[] };

export type HostSpec = {
  hostname: string;
  switches: SwitchSpec[];
  /** NICs on their own root port (management, storage), with their NUMA node and root bus. */
  standaloneNics: { rootBus: number; numa: number; nic: NicSpec }[];
  /** A non-RDMA NIC for the default route (IB hosts): netdev on its own root port. */
  plainEthernet?: { netdev: string; bdf: string; rootBus: number; numa: number; mac: string; ipv4: string };
  /** Netdev carrying the default route. */
  defaultRoute: { netdev: string; gateway: string };
  /** Bond masters: name → slaves (the bond's ibdev is the first slave's function). */
  bonds?: Record<string, { slaves: string[]; mac: string }>;
  gidSlots: number;
  fwVer: string;
  hcaType: string;
  nicDeviceId: string;
  boardId: string;
  driverVersion: string;
  cudaVersion: string;
  ofedLine: string;
  peermem: boolean;
  shmBytes: number;
  kernelRelease: string;
  /** NVIDIA's open GPU kernel module (needed for DMA-BUF). */
  openKernelModule: boolean;
};

const NIC_COUNTERS = [
  "VL15_dropped",
  "excessive_buffer_overrun_errors",
  "link_downed",
  "link_error_recovery",
  "local_link_integrity_errors",
  "multicast_rcv_packets",
  "multicast_xmit_packets",
  "port_rcv_constraint_errors",
  "port_rcv_data",
  "port_rcv_errors",
  "port_rcv_packets",
  "port_rcv_remote_physical_errors",
  "port_rcv_switch_relay_errors",
  "port_xmit_constraint_errors",
  "port_xmit_data",
  "port_xmit_discards",
  "port_xmit_packets",
  "port_xmit_wait",
  "symbol_error",
  "unicast_rcv_packets",
  "unicast_xmit_packets",
];

const HW_COUNTERS = [
  "duplicate_request",
  "implied_nak_seq_err",
  "local_ack_timeout_err",
  "np_cnp_sent",
  "np_ecn_marked_roce_packets",
  "out_of_buffer",
  "out_of_sequence",
  "packet_seq_err",
  "req_cqe_error",
  "req_cqe_flush_error",
  "req_remote_access_errors",
  "req_remote_invalid_request",
  "resp_cqe_error",
  "resp_cqe_flush_error",
  "resp_local_length_error",
  "resp_remote_access_errors",
  "rnr_nak_retry_err",
  "roce_adp_retrans",
  "roce_adp_retrans_to",
  "roce_slow_restart",
  "roce_slow_restart_cnps",
  "roce_slow_restart_trans",
  "rp_cnp_handled",
  "rp_cnp_ignored",
  "rx_atomic_requests",
  "rx_icrc_encapsulated",
  "rx_read_requests",
  "rx_write_requests",
];

type PciDev = {
  class: string;
  vendor: string;
  device: string;
  numa: number;
  speed: string;
  width: number;
  /** PCI Express port type and ACS Control for the bridge's config space (bridges only). */
  bridge?: { portType: number; acsControl: number | null };
  /** PCI Express Device Control for an endpoint's config space (the RDMA NICs). */
  endpoint?: { deviceControl: number };
};

/**
 * IOMMU groups: one per function, numbered in the order the functions are written. No `type` file: kernels before
 * 5.11 (the A100 RoCE example node's 5.4) do not have it, so the mode is read from the command line (`iommu=pt`).
 */
let nextIommuGroup = 0;

function pciFunction(t: HostTree, path: string, d: PciDev): void {
  const bdf = path.slice(path.lastIndexOf("/") + 1);
  if (d.bridge || d.endpoint) {
    t.file(
      `${path}/config`,
      configSpaceHex({
        vendorId: Number.parseInt(d.vendor, 16),
        deviceId: Number.parseInt(d.device, 16),
        ...(d.bridge ?? { portType: 0, acsControl: null, deviceControl: d.endpoint!.deviceControl }),
      }),
    );
  }
  const group = `/sys/kernel/iommu_groups/${nextIommuGroup++}`;
  t.dir(group);
  t.link(`${path}/iommu_group`, group);
  t.filesIn(path, {
    class: `${d.class}\n`,
    vendor: `${d.vendor}\n`,
    device: `${d.device}\n`,
    numa_node: `${d.numa}\n`,
    current_link_speed: `${d.speed}\n`,
    max_link_speed: `${d.speed}\n`,
    current_link_width: `${d.width}\n`,
    max_link_width: `${d.width}\n`,
  });
  t.link(`/sys/bus/pci/devices/${bdf}`, path);
}

// Root ports commonly have ACS on (that is harmless: traffic between root ports crosses the root complex anyway);
// the switches' ports have the capability with every control bit off, as a GPUDirect-ready BIOS leaves them.
const ROOT_PORT = {
  class: "0x060400",
  vendor: "0x8086",
  device: "0x347a",
  speed: "16.0 GT/s PCIe",
  width: 16,
  bridge: { portType: 4, acsControl: ACS_REDIRECTING },
};
const SWITCH_PORT = { class: "0x060400", vendor: "0x1000", device: "0xc010", speed: "16.0 GT/s PCIe", width: 16 };
const SWITCH_UP = { ...SWITCH_PORT, bridge: { portType: 5, acsControl: null } };
const SWITCH_DOWN = { ...SWITCH_PORT, bridge: { portType: 6, acsControl: 0 } };

/** Root complex `pci0000:RR` with root port `RR:02.0`; returns the root port's sysfs path. */
function rootPort(t: HostTree, rootBus: number, numa: number): string {
  const rc = `/sys/devices/pci0000:${hex2(rootBus)}`;
  const rp = `${rc}/0000:${hex2(rootBus)}:02.0`;
  pciFunction(t, rp, { ...ROOT_PORT, numa });
  return rp;
}

/** A switch below a root port: upstream `(R+1):00.0`, downstream ports `(R+2):0N.0`. Returns downstream paths. */
function pcieSwitch(t: HostTree, rp: string, rootBus: number, numa: number, ports: number): string[] {
  const up = `${rp}/0000:${hex2(rootBus + 1)}:00.0`;
  pciFunction(t, up, { ...SWITCH_UP, numa });
  return Array.from({ length: ports }, (_, i) => {
    const dp = `${up}/0000:${hex2(rootBus + 2)}:${hex2(i)}.0`;
    pciFunction(t, dp, { ...SWITCH_DOWN, numa });
    return dp;
  });
}

function guidOf(nic: NicSpec, salt: number): string {
  const h = nic.interfaceId.replace(/:/g, "");
  const g = `${h.slice(0, 6)}0300${h.slice(10, 14)}${hex2((Number.parseInt(h.slice(14, 16), 16) + salt) & 0xff)}`;
  return [g.slice(0, 4), g.slice(4, 8), g.slice(8, 12), g.slice(12, 16)].join(":");
}

function writeNic(t: HostTree, spec: HostSpec, nic: NicSpec, fnPath: string, numa: number, uverbs: number): void {
  pciFunction(t, fnPath, {
    class: nic.linkLayer === "InfiniBand" ? "0x020700" : "0x020000",
    vendor: "0x15b3",
    device: spec.nicDeviceId,
    numa,
    speed: "16.0 GT/s PCIe",
    width: 16,
    endpoint: { deviceControl: nic.deviceControl ?? NIC_DEVICE_CONTROL },
  });
  const ib = `/sys/class/infiniband/${nic.ibdev}`;
  t.filesIn(ib, {
    node_type: "1: CA\n",
    node_guid: `${guidOf(nic, 0)}\n`,
    sys_image_guid: `${guidOf(nic, 0)}\n`,
    fw_ver: `${spec.fwVer}\n`,
    hca_type: `${spec.hcaType}\n`,
    hw_rev: "0x0\n",
    board_id: `${spec.boardId}\n`,
    node_desc: `${spec.hostname} ${nic.ibdev}\n`,
  });
  t.link(`${ib}/device`, fnPath);
  // MLNX_OFED's traffic class file: empty while no global class is set.
  if (nic.linkLayer === "Ethernet") t.file(`${ib}/tc/1/traffic_class`, "");
  t.dir(`${fnPath}/infiniband/${nic.ibdev}`);
  const port = `${ib}/ports/1`;
  const roce = nic.linkLayer === "Ethernet";
  t.filesIn(port, {
    state: `${nic.state ?? "4: ACTIVE"}\n`,
    phys_state: `${nic.physState ?? "5: LinkUp"}\n`,
    rate: `${nic.rate}\n`,
    link_layer: `${nic.linkLayer}\n`,
    lid: `${roce ? "0x0" : (nic.lid ?? "0x1")}\n`,
    sm_lid: `${roce ? "0x0" : "0x1"}\n`,
    lid_mask_count: "0\n",
    sm_sl: "0\n",
    cap_mask: roce ? "0x04010000\n" : "0xa651e848\n",
    "pkeys/0": "0xffff\n",
  });
  const slots = new Map(defaultGidSlots(nic).map((s) => [s.index, s]));
  for (let i = 0; i < spec.gidSlots; i++) writeGidSlot(t, port, i, slots.get(i) ?? null);
  for (const c of NIC_COUNTERS) t.file(`${port}/counters/${c}`, "0\n");
  for (const c of HW_COUNTERS) t.file(`${port}/hw_counters/${c}`, "0\n");
  t.file(`${port}/hw_counters/lifespan`, "10\n");
  t.filesIn(`/sys/class/infiniband_verbs/uverbs${uverbs}`, { ibdev: `${nic.ibdev}\n`, abi_version: "1\n" });
  t.link(`${fnPath}/infiniband_verbs/uverbs${uverbs}`, `/sys/class/infiniband_verbs/uverbs${uverbs}`);
  for (const dev of [`uverbs${uverbs}`, `umad${uverbs}`, `issm${uverbs}`]) t.file(`/dev/infiniband/${dev}`, "");
  const bond = nic.netdev ? spec.bonds?.[nic.netdev] : undefined;
  if (bond) {
    // RoCE LAG: the bond ibdev sits on the first PF; each slave netdev is one PF of the dual-port NIC.
    bond.slaves.forEach((slave, i) => {
      const fn = fnPath.replace(/\.0$/, `.${i}`);
      if (i > 0) {
        pciFunction(t, fn, {
          class: "0x020000",
          vendor: "0x15b3",
          device: spec.nicDeviceId,
          numa,
          speed: "16.0 GT/s PCIe",
          width: 16,
        });
      }
      writeNetdev(t, slave, fn, bond.mac, nic.state ?? "4: ACTIVE", nic.rate, nic.mtu);
    });
  } else if (nic.netdev) {
    writeNetdev(t, nic.netdev, fnPath, macOf(nic.interfaceId), nic.state ?? "4: ACTIVE", nic.rate, nic.mtu);
  }
}

function writeNetdev(
  t: HostTree,
  name: string,
  fnPath: string,
  mac: string,
  state: string,
  rate: string,
  mtu = 9000,
): void {
  const up = state.startsWith("4");
  const net = `/sys/class/net/${name}`;
  t.filesIn(net, {
    operstate: up ? "up\n" : "down\n",
    carrier: up ? "1\n" : "0\n",
    mtu: `${mtu}\n`,
    carrier_changes: up ? "2\n" : "1\n",
    address: `${mac}\n`,
    type: "1\n",
    speed: up ? `${Number.parseFloat(rate) * 1000}\n` : "-1\n",
  });
  t.link(`${net}/device`, fnPath);
  // DCQCN on for every priority (the mlx5 default) as notification and reaction point.
  for (let p = 0; p < 8; p++) {
    t.file(`${net}/ecn/roce_np/enable/${p}`, "1\n");
    t.file(`${net}/ecn/roce_rp/enable/${p}`, "1\n");
  }
  t.dir(`${fnPath}/net/${name}`);
}

function writeGpu(t: HostTree, fnPath: string, g: GpuSpec, numa: number): void {
  pciFunction(t, fnPath, {
    class: "0x030200",
    vendor: "0x10de",
    device: g.model.deviceId,
    numa,
    speed: g.model.linkSpeed,
    width: 16,
  });
}

function allNics(spec: HostSpec): NicSpec[] {
  return [...spec.standaloneNics.map((s) => s.nic), ...spec.switches.flatMap((s) => s.nics)];
}

export function buildHost(spec: HostSpec): HostTree {
  const t = new HostTree();
  nextIommuGroup = 0;
  for (let i = 0; i < 4; i++) t.dir(`/sys/class/iommu/dmar${i}`);
  let uverbs = 0;
  const nicOrder = allNics(spec).sort((a, b) => a.ibdev.localeCompare(b.ibdev, "en", { numeric: true }));
  const uverbsOf = new Map(nicOrder.map((n) => [n.ibdev, uverbs++]));
  for (const s of spec.standaloneNics) {
    const rp = rootPort(t, s.rootBus, s.numa);
    writeNic(t, spec, s.nic, `${rp}/${s.nic.bdf}`, s.numa, uverbsOf.get(s.nic.ibdev)!);
  }
  if (spec.plainEthernet) {
    const p = spec.plainEthernet;
    const rp = rootPort(t, p.rootBus, p.numa);
    const fn = `${rp}/${p.bdf}`;
    pciFunction(t, fn, {
      class: "0x020000",
      vendor: "0x8086",
      device: "0x1593",
      numa: p.numa,
      speed: "8.0 GT/s PCIe",
      width: 8,
    });
    writeNetdev(t, p.netdev, fn, p.mac, "4: ACTIVE", "25 Gb/sec", 1500);
  }
  for (const sw of spec.switches) {
    const rp = rootPort(t, sw.rootBus, sw.numa);
    const members: { bdf: string; write: (path: string) => void }[] = [
      ...sw.gpus.map((g) => ({ bdf: g.bdf, write: (p: string) => writeGpu(t, p, g, sw.numa) })),
      ...sw.nics.map((n) => ({
        bdf: n.bdf,
        write: (p: string) => writeNic(t, spec, n, p, sw.numa, uverbsOf.get(n.ibdev)!),
      })),
    ].sort((a, b) => (a.bdf < b.bdf ? -1 : 1));
    const downstream = pcieSwitch(t, rp, sw.rootBus, sw.numa, members.length);
    members.forEach((m, i) => {
      m.write(`${downstream[i]}/${m.bdf}`);
    });
  }
  for (const [bond, b] of Object.entries(spec.bonds ?? {})) {
    t.filesIn(`/sys/class/net/${bond}`, {
      operstate: "up\n",
      carrier: "1\n",
      mtu: "9000\n",
      address: `${b.mac}\n`,
      type: "1\n",
      "bonding/slaves": `${b.slaves.join(" ")}\n`,
      "bonding/mode": "802.3ad 4\n",
    });
    for (const s of b.slaves) t.link(`/sys/class/net/${s}/master`, `/sys/class/net/${bond}`);
  }
  t.file("/dev/infiniband/rdma_cm", "");
  writeNetworkCommands(t, allNics(spec));
  writeDriverFacts(t, spec);
  writeProcFiles(t, spec, allNics(spec));
  t.fsSizes.set("/dev/shm", spec.shmBytes);
  return t;
}

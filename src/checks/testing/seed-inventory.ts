/**
 * Test factory: the seed's node (8×A100-SXM4-80GB, mlx5_0 on eth0 for management, mlx5_1..8 on eth1..8 at
 * 25.11.128.x, GID indices 0–3 exactly as the seed's show_gids table) as a NodeInventory that tests mutate.
 * It mirrors the `a100-8x-roce-seed` example so rules can be tested without reading a host.
 */
import type { GidEntry, Gpu, GpuNicPath, Hca, NcclDistance, NodeInventory, Port } from "../../inventory/types.js";

const LINK_LOCAL_SUFFIX = [
  "f820:20ff:fe28:c769",
  "eaeb:d3ff:fecc:c920",
  "eaeb:d3ff:fecc:c921",
  "eaeb:d3ff:fe6c:51d2",
  "eaeb:d3ff:fe6c:51d3",
  "eaeb:d3ff:fe33:1366",
  "eaeb:d3ff:fe33:1367",
  "eaeb:d3ff:fe6c:68ae",
  "eaeb:d3ff:fe6c:68af",
];
const IPV4 = [
  "10.0.60.3",
  "25.11.128.2",
  "25.11.128.34",
  "25.11.128.66",
  "25.11.128.98",
  "25.11.128.130",
  "25.11.128.162",
  "25.11.128.194",
  "25.11.128.226",
];
/** PCIe switch (0..3) of each data NIC mlx5_1..8 and each GPU0..7: two of each per switch. */
const GPU_BUS = ["53", "59", "6e", "73", "8d", "92", "c9", "cf"];
const NIC_BUS = ["1a", "51", "57", "6c", "71", "8b", "90", "c7", "cd"];
const ROOT_OF_SWITCH = ["pci0000:4a", "pci0000:5d", "pci0000:85", "pci0000:c1"];

/** `25.11.128.2` → `0000:0000:0000:0000:0000:ffff:190b:8002` (sysfs spelling). */
export function ipv4Gid(ip: string): string {
  const [a, b, c, d] = ip.split(".").map((x) => Number(x).toString(16).padStart(2, "0"));
  return `0000:0000:0000:0000:0000:ffff:${a}${b}:${c}${d}`;
}

export function gid(index: number, value: string, version: "v1" | "v2", netdev: string | null): GidEntry {
  const ipv4 = /^0000:0000:0000:0000:0000:ffff:/.test(value)
    ? value
        .slice(30)
        .replace(":", "")
        .match(/../g)!
        .map((h) => Number.parseInt(h, 16))
        .join(".")
    : null;
  const kind = ipv4 ? "ipv4" : value.startsWith("fe80:") ? "link_local" : "ipv6_global";
  return { index, gid: value, kind, ipv4, type: version === "v2" ? "RoCE v2" : "IB/RoCE v1", version, netdev };
}

/** The seed's four slots per port: link-local v1/v2, IPv4 v1/v2. */
export function seedGids(i: number): GidEntry[] {
  const nd = `eth${i}`;
  const ll = `fe80:0000:0000:0000:${LINK_LOCAL_SUFFIX[i]}`;
  return [
    gid(0, ll, "v1", nd),
    gid(1, ll, "v2", nd),
    gid(2, ipv4Gid(IPV4[i]!), "v1", nd),
    gid(3, ipv4Gid(IPV4[i]!), "v2", nd),
  ];
}

/** Replaces a port's GIDs and recomputes what the inventory derives from them. */
export function setGids(port: Port, gids: GidEntry[]): void {
  port.gids = [...gids].sort((a, b) => a.index - b.index);
  port.netdevs = [...new Set(port.gids.map((g) => g.netdev).filter((n): n is string => n !== null))];
  port.roceV2Ipv4Index = port.gids.find((g) => g.version === "v2" && g.kind === "ipv4")?.index ?? null;
  port.roceV2Ipv6Index = port.gids.find((g) => g.version === "v2" && g.kind === "ipv6_global")?.index ?? null;
}

function seedPort(i: number): Port {
  const management = i === 0;
  const port: Port = {
    port: 1,
    state: "ACTIVE",
    physState: "LinkUp",
    rateGbps: management ? 25 : 200,
    rateText: management ? "25 Gb/sec (1X EDR)" : "200 Gb/sec (4X HDR)",
    linkLayer: "Ethernet",
    lid: "0x0",
    gidTableLength: 255,
    gids: [],
    netdevs: [],
    counters: { symbol_error: 0, link_downed: 0, port_rcv_errors: 0, link_error_recovery: 0, port_xmit_discards: 0 },
    hwCounters: { out_of_sequence: 0, packet_seq_err: 0, local_ack_timeout_err: 0, out_of_buffer: 0 },
    roceV2Ipv4Index: null,
    roceV2Ipv6Index: null,
  };
  setGids(port, seedGids(i));
  return port;
}

const switchOfNic = (i: number) => Math.floor((i - 1) / 2);
const switchOfGpu = (g: number) => Math.floor(g / 2);
const numaOfSwitch = (s: number) => (s < 2 ? 0 : 1);

function seedHca(i: number): Hca {
  const management = i === 0;
  const bdf = `0000:${NIC_BUS[i]}:00.0`;
  return {
    name: `mlx5_${i}`,
    nodeGuid: `eaeb:d303:00cc:c9${String(i).padStart(2, "0")}`,
    sysImageGuid: `eaeb:d303:00cc:c9${String(i).padStart(2, "0")}`,
    fwVer: "20.35.1012",
    hcaType: "MT4123",
    boardId: "MT_0000000223",
    pciAddress: bdf,
    pciPath: management
      ? `/sys/devices/pci0000:17/0000:17:02.0/${bdf}`
      : `/sys/devices/${ROOT_OF_SWITCH[switchOfNic(i)]}/0000:${NIC_BUS[i]}:00.0`,
    vendorId: "0x15b3",
    deviceId: "0x101b",
    numaNode: management ? 0 : numaOfSwitch(switchOfNic(i)),
    ports: [seedPort(i)],
    netdevs: [`eth${i}`],
    isBond: false,
    uverbs: [`uverbs${i}`],
    role: management ? "management" : "data",
    roleReason: management ? "carries the default route via eth0" : "RoCE data NIC (no default route)",
  };
}

function seedGpu(g: number): Gpu {
  return {
    index: g,
    name: "NVIDIA A100-SXM4-80GB",
    pciAddress: `0000:${GPU_BUS[g]}:00.0`,
    uuid: `GPU-0000000${g}-a100-seed`,
    memoryTotalMiB: 81920,
    persistenceMode: true,
    migMode: "Disabled",
    eccVolatileUncorrected: 0,
    eccAggregateUncorrected: 0,
    retiredPagesPending: null,
    remappedRows: { correctable: 0, uncorrectable: 0, pending: false, failure: false },
    pcieGen: { current: 4, max: 4 },
    pcieWidth: { current: 16, max: 16 },
    link: { currentSpeed: "16.0 GT/s PCIe", maxSpeed: "16.0 GT/s PCIe", currentWidth: 16, maxWidth: 16 },
    numaNode: numaOfSwitch(switchOfGpu(g)),
    pciPath: `/sys/devices/${ROOT_OF_SWITCH[switchOfGpu(g)]}/0000:${GPU_BUS[g]}:00.0`,
  };
}

function distance(g: number, i: number): NcclDistance {
  if (i > 0 && switchOfNic(i) === switchOfGpu(g)) return "PIX";
  const gpuNuma = numaOfSwitch(switchOfGpu(g));
  const nicNuma = i === 0 ? 0 : numaOfSwitch(switchOfNic(i));
  return gpuNuma === nicNuma ? "PHB" : "SYS";
}

function seedPaths(): GpuNicPath[] {
  const out: GpuNicPath[] = [];
  for (let g = 0; g < 8; g++) {
    for (let i = 0; i < 9; i++) {
      const d = distance(g, i);
      out.push({ gpu: g, hca: `mlx5_${i}`, distance: d, nvsmi: d === "PHB" ? "NODE" : d });
    }
  }
  return out;
}

/** A fresh seed node; mutate it freely. */
export function seedInventory(): NodeInventory {
  const hcas = Array.from({ length: 9 }, (_, i) => seedHca(i));
  return {
    hostname: "a100-seed",
    source: "test factory (seed)",
    ofed: { status: "present", flavor: "MLNX_OFED", version: "5.8-1.1.2.1", raw: "MLNX_OFED_LINUX-5.8-1.1.2.1:" },
    driver: { status: "ok", driverVersion: "470.141.03", cudaVersion: "11.4", error: null },
    hcas,
    netdevs: hcas.map((h, i) => ({
      name: `eth${i}`,
      operstate: "up",
      mtu: i === 0 ? 1500 : 4200,
      address: `e8:eb:d3:00:00:0${i}`,
      pciAddress: h.pciAddress,
      hca: h.name,
      isDefaultRoute: i === 0,
      bondSlaves: [],
    })),
    gpus: Array.from({ length: 8 }, (_, g) => seedGpu(g)),
    paths: seedPaths(),
    gpuDirect: {
      peermem: "nvidia_peermem",
      nvidiaLoaded: true,
      dmabufPossible: false,
      mechanism: "peermem",
      reasons: ["nvidia_peermem is loaded"],
    },
    roles: {
      defaultRouteInterface: "eth0",
      managementHca: "mlx5_0",
      dataHcas: hcas.filter((h) => h.role === "data").map((h) => h.name),
    },
    devices: {
      infiniband: [...hcas.map((_, i) => `uverbs${i}`), ...hcas.map((_, i) => `umad${i}`), "rdma_cm"],
      rdmaCm: true,
    },
    process: { capEff: "000001ffffffffff", ipcLock: true, memlockSoft: "unlimited", memlockHard: "unlimited" },
    shmBytes: 512 * 1024 ** 3,
    problems: [],
  };
}

export function hcaOf(inv: NodeInventory, name: string): Hca {
  const h = inv.hcas.find((x) => x.name === name);
  if (!h) throw new Error(`test factory: no HCA ${name}`);
  return h;
}

export function portOf(inv: NodeInventory, name: string, port = 1): Port {
  const p = hcaOf(inv, name).ports.find((x) => x.port === port);
  if (!p) throw new Error(`test factory: no port ${name}/${port}`);
  return p;
}

export function gpuOf(inv: NodeInventory, index: number): Gpu {
  const g = inv.gpus.find((x) => x.index === index);
  if (!g) throw new Error(`test factory: no GPU${index}`);
  return g;
}

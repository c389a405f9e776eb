/**
 * A small NodeInventory factory for NCCL tests: the seed node (mlx5_0 management on eth0 10.0.60.3, mlx5_1..8 data
 * on eth1..8 at 25.11.128.{2,34,…,226}, GID 3 = RoCE v2 IPv4, 8 GPUs on 4 PCIe switches with 2 NICs each).
 * Used until the example hosts land; the story tests then also run on `--example` names.
 */
import type { GidEntry, Gpu, GpuNicPath, Hca, NodeInventory, Port } from "../../src/inventory/types.js";

function hex4(n: number): string {
  return n.toString(16).padStart(4, "0");
}

export function ipv4Gid(index: number, ip: string, version: "v1" | "v2", netdev: string): GidEntry {
  const [a, b, c, d] = ip.split(".").map(Number) as [number, number, number, number];
  return {
    index,
    gid: `0000:0000:0000:0000:0000:ffff:${hex4(a * 256 + b)}:${hex4(c * 256 + d)}`,
    kind: "ipv4",
    ipv4: ip,
    type: version === "v2" ? "RoCE v2" : "IB/RoCE v1",
    version,
    netdev,
  };
}

function linkLocal(index: number, version: "v1" | "v2", netdev: string): GidEntry {
  return {
    index,
    gid: "fe80:0000:0000:0000:0a5c:2dff:fe11:2233",
    kind: "link_local",
    ipv4: null,
    type: version === "v2" ? "RoCE v2" : "IB/RoCE v1",
    version,
    netdev,
  };
}

export function rocePort(netdev: string, ip: string | null, opts: Partial<Port> = {}): Port {
  const gids = [linkLocal(0, "v1", netdev), linkLocal(1, "v2", netdev)];
  if (ip) gids.push(ipv4Gid(2, ip, "v1", netdev), ipv4Gid(3, ip, "v2", netdev));
  return {
    port: 1,
    state: "ACTIVE",
    physState: "LinkUp",
    rateGbps: 200,
    rateText: "200 Gb/sec (4X HDR)",
    linkLayer: "Ethernet",
    lid: null,
    gidTableLength: 255,
    gids,
    netdevs: [netdev],
    counters: {},
    hwCounters: {},
    roceV2Ipv4Index: ip ? 3 : null,
    roceV2Ipv6Index: null,
    ...opts,
  };
}

export function ibPort(port: number, opts: Partial<Port> = {}): Port {
  return {
    port,
    state: "ACTIVE",
    physState: "LinkUp",
    rateGbps: 200,
    rateText: "200 Gb/sec (4X HDR)",
    linkLayer: "InfiniBand",
    lid: `0x${hex4(port)}`,
    gidTableLength: 128,
    gids: [
      {
        index: 0,
        gid: "fe80:0000:0000:0000:0c42:a103:0012:3456",
        kind: "ib",
        ipv4: null,
        type: "IB/RoCE v1",
        version: "v1",
        netdev: null,
      },
    ],
    netdevs: [],
    counters: {},
    hwCounters: {},
    roceV2Ipv4Index: null,
    roceV2Ipv6Index: null,
    ...opts,
  };
}

export function hca(name: string, ports: Port[], opts: Partial<Hca> = {}): Hca {
  return {
    name,
    nodeGuid: null,
    sysImageGuid: null,
    fwVer: "20.35.1012",
    hcaType: "MT4123",
    boardId: "MT_0000000223",
    pciAddress: null,
    pciPath: null,
    vendorId: "0x15b3",
    deviceId: "0x101b",
    numaNode: 0,
    ports,
    netdevs: ports.flatMap((p) => p.netdevs),
    isBond: false,
    uverbs: [],
    role: "data",
    roleReason: "RDMA data network",
    ...opts,
  };
}

function gpu(index: number): Gpu {
  return {
    index,
    name: "NVIDIA A100-SXM4-80GB",
    pciAddress: `0000:${hex4(index * 0x10 + 7).slice(2)}:00.0`,
    uuid: null,
    memoryTotalMiB: 81920,
    persistenceMode: true,
    migMode: "Disabled",
    eccVolatileUncorrected: 0,
    eccAggregateUncorrected: 0,
    retiredPagesPending: false,
    remappedRows: null,
    pcieGen: { current: 4, max: 4 },
    pcieWidth: { current: 16, max: 16 },
    link: null,
    numaNode: index < 4 ? 0 : 1,
    pciPath: null,
  };
}

export const SEED_DATA_IPS = [2, 34, 66, 98, 130, 162, 194, 226].map((n) => `25.11.128.${n}`);

/** GPU g sits on switch ⌊g/2⌋ with data NICs mlx5_{2s+1}, mlx5_{2s+2} (PIX); others PXB/PHB/SYS by NUMA. */
function seedPaths(): GpuNicPath[] {
  const out: GpuNicPath[] = [];
  for (let g = 0; g < 8; g++) {
    for (let n = 1; n <= 8; n++) {
      const same = Math.floor(g / 2) === Math.floor((n - 1) / 2);
      const sameNuma = g < 4 === n <= 4;
      const distance = same ? "PIX" : sameNuma ? "PHB" : "SYS";
      out.push({ gpu: g, hca: `mlx5_${n}`, distance, nvsmi: same ? "PIX" : sameNuma ? "NODE" : "SYS" });
    }
  }
  return out;
}

/** The seed node; `edit` may change anything (tests say what differs). */
export function seedInventory(edit?: (inv: NodeInventory) => void): NodeInventory {
  const mgmt = hca("mlx5_0", [rocePort("eth0", "10.0.60.3", { rateGbps: 25, rateText: "25 Gb/sec (1X EDR)" })], {
    role: "management",
    roleReason: "carries the default route via eth0",
  });
  const data = SEED_DATA_IPS.map((ip, i) => hca(`mlx5_${i + 1}`, [rocePort(`eth${i + 1}`, ip)]));
  const inv: NodeInventory = {
    hostname: "gpu-node-1",
    source: "test factory seed",
    ofed: { status: "present", flavor: "MLNX_OFED", version: "5.8-1.1.2.1", raw: "MLNX_OFED_LINUX-5.8-1.1.2.1:" },
    driver: { status: "ok", driverVersion: "470.141.03", cudaVersion: "11.4", error: null },
    hcas: [mgmt, ...data],
    netdevs: [],
    gpus: Array.from({ length: 8 }, (_, i) => gpu(i)),
    paths: seedPaths(),
    gpuDirect: {
      peermem: "nvidia_peermem",
      nvidiaLoaded: true,
      dmabufPossible: false,
      mechanism: "peermem",
      reasons: [],
    },
    roles: { defaultRouteInterface: "eth0", managementHca: "mlx5_0", dataHcas: data.map((h) => h.name) },
    devices: { infiniband: [], rdmaCm: true },
    process: { capEff: null, ipcLock: true, memlockSoft: "unlimited", memlockHard: "unlimited" },
    shmBytes: null,
    problems: [],
  };
  edit?.(inv);
  return inv;
}

/** 8 InfiniBand HCAs mlx5_0..7, eth0 on a non-RDMA NIC. */
export function ibInventory(): NodeInventory {
  return seedInventory((inv) => {
    inv.hcas = Array.from({ length: 8 }, (_, i) => hca(`mlx5_${i}`, [ibPort(1)]));
    inv.roles = { defaultRouteInterface: "eth0", managementHca: null, dataHcas: inv.hcas.map((h) => h.name) };
    inv.paths = [];
  });
}

export function findHca(inv: NodeInventory, name: string): Hca {
  const h = inv.hcas.find((x) => x.name === name);
  if (!h) throw new Error(`no ${name} in the test inventory`);
  return h;
}

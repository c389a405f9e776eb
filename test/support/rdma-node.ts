/**
 * A minimal RDMA host tree for device-plugin tests, written in the real sysfs formats (tech-spec §1.1, §1.2):
 * `/sys/class/infiniband/<dev>/ports/1/{state,phys_state}`, `/sys/class/infiniband_mad/{umad,issm}N/ibdev` and
 * `/dev/infiniband/*` (plain files stand in for the char devices: the plugin only checks they exist), plus the
 * NodeInventory a host reader would build from it.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Hca, NodeInventory } from "../../src/inventory/types.js";

export type TreeHca = {
  name: string;
  uverbs: number;
  numaNode: number | null;
  pciPath: string | null;
  role: Hca["role"];
  netdev: string;
  linkLayer?: "Ethernet" | "InfiniBand";
};

export const ACTIVE = ["4: ACTIVE", "5: LinkUp"] as const;
export const DOWN = ["1: DOWN", "3: Disabled"] as const;

async function put(root: string, hostPath: string, text: string): Promise<void> {
  const p = join(root, hostPath);
  await mkdir(dirname(p), { recursive: true });
  await writeFile(p, `${text}\n`);
}

/** Sets one port's state/phys_state in the tree. */
export async function setPort(root: string, hca: string, state: readonly [string, string]): Promise<void> {
  await put(root, `/sys/class/infiniband/${hca}/ports/1/state`, state[0]);
  await put(root, `/sys/class/infiniband/${hca}/ports/1/phys_state`, state[1]);
}

/** Removes an HCA from the tree (hot-unplug, driver reset): its sysfs dir and char devices go. */
export async function removeHca(root: string, hca: TreeHca): Promise<void> {
  await rm(join(root, `/sys/class/infiniband/${hca.name}`), { recursive: true, force: true });
  for (const dev of [`uverbs${hca.uverbs}`, `umad${hca.uverbs}`, `issm${hca.uverbs}`]) {
    await rm(join(root, `/dev/infiniband/${dev}`), { force: true });
  }
}

export async function writeTree(root: string, hcas: readonly TreeHca[]): Promise<void> {
  await put(root, "/dev/infiniband/rdma_cm", "");
  for (const h of hcas) {
    await setPort(root, h.name, ACTIVE);
    await put(root, `/sys/class/infiniband/${h.name}/ports/1/link_layer`, h.linkLayer ?? "Ethernet");
    await put(root, `/sys/class/infiniband_verbs/uverbs${h.uverbs}/ibdev`, h.name);
    await put(root, `/sys/class/infiniband_mad/umad${h.uverbs}/ibdev`, h.name);
    await put(root, `/sys/class/infiniband_mad/issm${h.uverbs}/ibdev`, h.name);
    for (const dev of [`uverbs${h.uverbs}`, `umad${h.uverbs}`, `issm${h.uverbs}`]) {
      await put(root, `/dev/infiniband/${dev}`, "");
    }
  }
}

function hcaOf(h: TreeHca): Hca {
  return {
    name: h.name,
    nodeGuid: null,
    sysImageGuid: null,
    fwVer: "20.35.1012",
    hcaType: "MT4123",
    boardId: null,
    pciAddress: h.pciPath?.split("/").pop() ?? null,
    pciPath: h.pciPath,
    vendorId: "0x15b3",
    deviceId: "0x101b",
    numaNode: h.numaNode,
    ports: [
      {
        port: 1,
        state: "ACTIVE",
        physState: "LinkUp",
        rateGbps: 200,
        rateText: "200 Gb/sec (4X HDR)",
        linkLayer: h.linkLayer ?? "Ethernet",
        lid: "0x0",
        gidTableLength: 255,
        gids: [],
        netdevs: [h.netdev],
        counters: {},
        hwCounters: {},
        roceV2Ipv4Index: 3,
        roceV2Ipv6Index: null,
      },
    ],
    netdevs: [h.netdev],
    isBond: false,
    uverbs: [`uverbs${h.uverbs}`],
    role: h.role,
    roleReason: h.role === "management" ? "carries the default route via eth0" : "RDMA data NIC",
  };
}

/** The node model for a tree (what readInventory would return for it), limited to what the plugin reads. */
export function inventoryFor(hcas: readonly TreeHca[], source = "test tree"): NodeInventory {
  return {
    hostname: "gpu-node-1",
    source,
    ofed: { status: "present", flavor: "MLNX_OFED", version: "5.8-1.1.2.1", raw: null },
    driver: { status: "ok", driverVersion: "470.141.03", cudaVersion: "11.4", error: null },
    hcas: hcas.map(hcaOf),
    netdevs: [],
    gpus: [],
    paths: [],
    gpuDirect: {
      peermem: "nvidia_peermem",
      nvidiaLoaded: true,
      dmabufPossible: false,
      mechanism: "peermem",
      reasons: [],
    },
    roles: {
      defaultRouteInterface: "eth0",
      managementHca: hcas.find((h) => h.role === "management")?.name ?? null,
      dataHcas: hcas.filter((h) => h.role === "data").map((h) => h.name),
    },
    devices: { infiniband: [], rdmaCm: true },
    process: { capEff: null, ipcLock: null, memlockSoft: null, memlockHard: null },
    shmBytes: null,
    problems: [],
  };
}

/**
 * A 2-NUMA node shaped like the seed: mlx5_0 management on eth0, mlx5_1..8 data on eth1..8, two data NICs per PCIe
 * switch, switches 1–2 on NUMA 0 and 3–4 on NUMA 1.
 */
export function twoNumaHcas(): TreeHca[] {
  const roots = [
    "pci0000:0e",
    "pci0000:0e",
    "pci0000:4e",
    "pci0000:4e",
    "pci0000:8a",
    "pci0000:8a",
    "pci0000:c5",
    "pci0000:c5",
  ];
  const data: TreeHca[] = roots.map((root, i) => {
    const bus = root.slice(-2);
    const sw = `0000:${bus}:01.0/0000:${(0x10 + Math.floor(i / 2)).toString(16)}:00.0`;
    const nic = `0000:${(0x50 + i).toString(16)}:00.0`;
    return {
      name: `mlx5_${i + 1}`,
      uverbs: i + 1,
      numaNode: i < 4 ? 0 : 1,
      pciPath: `/sys/devices/${root}/${sw}/0000:${(0x20 + Math.floor(i / 2)).toString(16)}:0${i % 2}.0/${nic}`,
      role: "data",
      netdev: `eth${i + 1}`,
    };
  });
  return [
    {
      name: "mlx5_0",
      uverbs: 0,
      numaNode: 0,
      pciPath: "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0",
      role: "management",
      netdev: "eth0",
    },
    ...data,
  ];
}

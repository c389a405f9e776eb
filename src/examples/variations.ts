/**
 * The example hosts other than the A100 RoCE example node. Most are a small declarative diff over it; the InfiniBand, H100 and
 * bond hosts differ in their whole layout and are the builder called with other parameters.
 */
import {
  buildHost,
  type GidSlot,
  gpuXmlSpecs,
  type HostSpec,
  ipv4Gid,
  ipv6Gid,
  limitsText,
  type NicSpec,
  ZERO_GID,
} from "./builder.js";
import { FABRIC_DIFFS, type SeedVariation } from "./fabric-variations.js";
import { renderNvidiaSmiXml } from "./nvidia-smi-xml.js";
import { roceNic, SEED_DATA_NICS, SEED_SWITCHES, seedSpec } from "./seed.js";
import type { HostDiff, HostTree } from "./tree.js";

const port1 = (ibdev: string) => `/sys/class/infiniband/${ibdev}/ports/1`;

/** The diff that rewrites slots of one port's GID table (null = empty slot: zero GID, EINVAL attributes). */
export function gidTableDiff(ibdev: string, slots: Record<number, Omit<GidSlot, "index"> | null>): HostDiff {
  const set: Record<string, string> = {};
  const errors: Record<string, string> = {};
  for (const [i, s] of Object.entries(slots)) {
    set[`${port1(ibdev)}/gids/${i}`] = `${s ? s.gid : ZERO_GID}\n`;
    if (s) set[`${port1(ibdev)}/gid_attrs/types/${i}`] = `${s.type}\n`;
    else errors[`${port1(ibdev)}/gid_attrs/types/${i}`] = "EINVAL";
    if (s?.ndev) set[`${port1(ibdev)}/gid_attrs/ndevs/${i}`] = `${s.ndev}\n`;
    else errors[`${port1(ibdev)}/gid_attrs/ndevs/${i}`] = "EINVAL";
  }
  return { set, errors };
}

const v1 = (gid: string, ndev: string) => ({ gid, type: "IB/RoCE v1" as const, ndev });
const v2 = (gid: string, ndev: string) => ({ gid, type: "RoCE v2" as const, ndev });

function merge(...diffs: HostDiff[]): HostDiff {
  const out: Required<HostDiff> = { set: {}, remove: [], links: {}, errors: {}, fsSizes: {}, commands: {} };
  for (const d of diffs) {
    Object.assign(out.set, d.set);
    out.remove.push(...(d.remove ?? []));
    Object.assign(out.links, d.links);
    Object.assign(out.errors, d.errors);
    Object.assign(out.fsSizes, d.fsSizes);
    Object.assign(out.commands, d.commands);
  }
  return out;
}

/** nvidia-smi XML of the example node with some GPUs changed. */
function seedXml(change: (gpus: ReturnType<typeof gpuXmlSpecs>) => void): HostDiff {
  const spec = seedSpec();
  const gpus = gpuXmlSpecs(spec);
  change(gpus);
  const stdout = renderNvidiaSmiXml({ driverVersion: spec.driverVersion, cudaVersion: spec.cudaVersion, gpus });
  return { commands: { "nvidia-smi -q -x": { exitCode: 0, stdout, stderr: "" } } };
}

/** `ofed_info -s` where no ofed_info is installed: what `collect` records for a command not on PATH. */
const OFED_INFO_NOT_INSTALLED = {
  exitCode: null,
  stdout: "",
  stderr: "",
  error: { code: "ENOENT", message: "ofed_info -s: not installed (ofed_info not found on PATH)" },
};

export const SEED_DIFFS: Record<string, SeedVariation> = {
  "port-down": {
    description: "mlx5_3 port 1 is `1: DOWN` / `3: Disabled` and eth3 has no carrier",
    diff: {
      set: {
        [`${port1("mlx5_3")}/state`]: "1: DOWN\n",
        [`${port1("mlx5_3")}/phys_state`]: "3: Disabled\n",
        "/sys/class/net/eth3/operstate": "down\n",
        "/sys/class/net/eth3/carrier": "0\n",
        "/sys/class/net/eth3/speed": "-1\n",
      },
    },
  },
  "half-rate": {
    description: "mlx5_6 trained at `100 Gb/sec (2X HDR)` while the other data ports run at 200",
    diff: {
      set: { [`${port1("mlx5_6")}/rate`]: "100 Gb/sec (2X HDR)\n", "/sys/class/net/eth6/speed": "100000\n" },
    },
  },
  "gid-index-5": {
    description: "mlx5_5 also carries a global IPv6 address, so its RoCE v2 IPv4 GID sits at index 5, not 3",
    diff: gidTableDiff("mlx5_5", {
      2: v1(ipv6Gid("fd00:25:11:128::130"), "eth5"),
      3: v2(ipv6Gid("fd00:25:11:128::130"), "eth5"),
      4: v1(ipv4Gid("25.11.128.130"), "eth5"),
      5: v2(ipv4Gid("25.11.128.130"), "eth5"),
    }),
  },
  "no-rocev2-gid": {
    description: "eth5 lost its IPv4 address: mlx5_5 has link-local GIDs only",
    diff: gidTableDiff("mlx5_5", { 2: null, 3: null }),
  },
  "sparse-gids": {
    description: "every data HCA: link-local at 0/1, empty slots 2/3, IPv4 at 4/5 (a re-added address)",
    diff: merge(
      ...SEED_DATA_NICS.map(([ibdev, netdev, , ip]) =>
        gidTableDiff(ibdev, { 2: null, 3: null, 4: v1(ipv4Gid(ip), netdev), 5: v2(ipv4Gid(ip), netdev) }),
      ),
    ),
  },
  "no-peermem": {
    description: "neither nvidia_peermem nor nv_peer_mem is loaded (driver 470: no DMA-BUF either)",
    diff: { remove: ["/sys/module/nvidia_peermem"] },
  },
  "gpu-no-near-nic": {
    description: "GPU7 sits behind its own root complex (pci0000:ce, NUMA 1): no data NIC within PXB of it",
    diff: (() => {
      const gpu = "/sys/devices/pci0000:ce/0000:ce:02.0/0000:cf:00.0";
      const port = "/sys/devices/pci0000:ce/0000:ce:02.0";
      const files = (p: string, cls: string, vendor: string, device: string) => ({
        [`${p}/class`]: `${cls}\n`,
        [`${p}/vendor`]: `${vendor}\n`,
        [`${p}/device`]: `${device}\n`,
        [`${p}/numa_node`]: "1\n",
        [`${p}/current_link_speed`]: "16.0 GT/s PCIe\n",
        [`${p}/max_link_speed`]: "16.0 GT/s PCIe\n",
        [`${p}/current_link_width`]: "16\n",
        [`${p}/max_link_width`]: "16\n",
      });
      return {
        remove: ["/sys/devices/pci0000:c3/0000:c3:02.0/0000:c4:00.0/0000:c5:03.0", "/sys/bus/pci/devices/0000:c5:03.0"],
        set: { ...files(port, "0x060400", "0x8086", "0x347a"), ...files(gpu, "0x030200", "0x10de", "0x20b2") },
        links: { "/sys/bus/pci/devices/0000:cf:00.0": gpu, "/sys/bus/pci/devices/0000:ce:02.0": port },
      };
    })(),
  },
  "no-ofed": {
    description:
      "`ofed_info` is not installed (inbox rdma-core): nvidia_peermem cannot load, and driver 470 has no DMA-BUF",
    diff: {
      commands: { "ofed_info -s": OFED_INFO_NOT_INSTALLED },
      // The inbox mlx5 driver: no OFED compat layer, no module version; its ib_core has no peer-memory API, so
      // nvidia_peermem is not loaded either.
      remove: ["/sys/module/mlx_compat", "/sys/module/mlx5_core/version", "/sys/module/nvidia_peermem"],
    },
  },
  "ofed-driver-container": {
    description:
      "its OFED comes from the NVIDIA Network Operator's driver container: no ofed_info on the host, OFED's mlx5 " +
      "drivers loaded (mlx_compat, mlx5_core 24.10-1.1.4)",
    diff: {
      commands: { "ofed_info -s": OFED_INFO_NOT_INSTALLED },
      set: { "/sys/module/mlx5_core/version": "24.10-1.1.4\n" },
    },
  },
  "ofed-not-loaded": {
    description:
      "the kernel was updated without rebuilding MLNX_OFED: ofed_info says 5.8-1.1.2.1, the inbox mlx5 driver runs " +
      "(no mlx_compat) and nvidia_peermem cannot load",
    diff: { remove: ["/sys/module/mlx_compat", "/sys/module/mlx5_core/version", "/sys/module/nvidia_peermem"] },
  },
  "nvidia-smi-timeout": {
    description: "`nvidia-smi -q -x` gave no answer within the 15 s timeout (wedged driver)",
    diff: {
      commands: {
        "nvidia-smi -q -x": {
          exitCode: null,
          stdout: "",
          stderr: "",
          error: { code: "ETIMEDOUT", message: "nvidia-smi -q -x: no answer within 15 s" },
          durationMs: 15000,
        },
      },
    },
  },
  "gpu-row-remap": {
    description: "GPU2 has a pending row remap after an uncorrectable ECC error",
    diff: seedXml((gpus) => {
      gpus[2]!.eccVolatileUncorrectable = 1;
      gpus[2]!.eccAggregateUncorrectable = 1;
      gpus[2]!.remapped = { corr: 0, unc: 1, pending: true, failure: false };
    }),
  },
  "gpu-pcie-x8": {
    description: "GPU3 trained its PCIe link at x8 of x16",
    diff: merge(
      {
        set: {
          "/sys/devices/pci0000:68/0000:68:02.0/0000:69:00.0/0000:6a:03.0/0000:73:00.0/current_link_width": "8\n",
        },
      },
      seedXml((gpus) => {
        gpus[3]!.pcieWidth = { max: 16, current: 8 };
      }),
    ),
  },
  "port-errors": {
    description: "mlx5_4 counted symbol errors and two link-down events",
    diff: {
      set: { [`${port1("mlx5_4")}/counters/symbol_error`]: "37\n", [`${port1("mlx5_4")}/counters/link_downed`]: "2\n" },
    },
  },
  "fw-mismatch": {
    description: "mlx5_8 runs older firmware (20.33.1048) than the other HCAs (20.35.1012)",
    diff: { set: { "/sys/class/infiniband/mlx5_8/fw_ver": "20.33.1048\n" } },
  },
  "pod-restricted": {
    description: "seen from a default pod: CapEff without IPC_LOCK, memlock 64 KiB, /dev/shm 64 MiB",
    diff: {
      set: {
        "/proc/self/status": seedStatus().replace(/^Cap(Prm|Eff|Bnd):\t.*$/gm, (_l, k) => `Cap${k}:\t00000000a80425fb`),
        "/proc/self/limits": limitsText("65536", "65536"),
      },
      fsSizes: { "/dev/shm": 67_108_864 },
    },
  },
  "no-uverbs": {
    description: "/dev/infiniband has no uverbs* devices (ib_uverbs not loaded or not mounted into the pod)",
    diff: { remove: Array.from({ length: 9 }, (_, i) => `/dev/infiniband/uverbs${i}`) },
  },
  ...FABRIC_DIFFS,
};

function seedStatus(): string {
  return buildHost(seedSpec()).files.get("/proc/self/status")!;
}

/** 8 InfiniBand HDR HCAs mlx5_0..7 (no netdevs, LIDs, IB GIDs); eth0 on an Intel NIC carries the default route. */
export function ib8xHdrSpec(): HostSpec {
  const s = seedSpec();
  s.hostname = "a100-ib-hdr-01";
  s.gidSlots = 128;
  s.standaloneNics = [];
  s.plainEthernet = {
    netdev: "eth0",
    bdf: "0000:17:00.0",
    rootBus: 0x16,
    numa: 0,
    mac: "b4:96:91:a4:2e:10",
    ipv4: "10.0.60.3",
  };
  let n = 0;
  for (const sw of s.switches) {
    sw.nics = sw.nics.map((nic): NicSpec => {
      const i = n++;
      return {
        ...nic,
        ibdev: `mlx5_${i}`,
        netdev: null,
        ipv4: [],
        interfaceId: `b859:9f03:00c8:${(0x1a20 + i).toString(16)}`,
        linkLayer: "InfiniBand",
        lid: `0x${(0x1a + i).toString(16)}`,
      };
    });
  }
  return s;
}

/** 8×H100 with 18 HCAs: mlx5_0 management, mlx5_1..16 four per switch (400 Gb/s), mlx5_17 a storage NIC. */
export function h100Spec(gidSlots = 255): HostSpec {
  const s = seedSpec();
  s.hostname = "h100-roce-01";
  s.gidSlots = gidSlots;
  s.fwVer = "28.39.1002";
  s.hcaType = "MT4129";
  s.nicDeviceId = "0x1021";
  s.boardId = "MT_0000000891";
  s.driverVersion = "535.161.08";
  s.cudaVersion = "12.2";
  s.ofedLine = "MLNX_OFED_LINUX-23.10-1.1.9.0:";
  s.kernelRelease = "5.15.0-105-generic";
  s.openKernelModule = true;
  const h100 = { name: "NVIDIA H100 80GB HBM3", deviceId: "0x2330", memoryMiB: 81559, linkSpeed: "32.0 GT/s PCIe" };
  let n = 1;
  s.switches = SEED_SWITCHES.map((sw, i) => ({
    rootBus: sw.rootBus,
    numa: sw.numa,
    gpus: sw.gpuBuses.map((bus, j) => ({ bdf: `0000:${bus.toString(16)}:00.0`, model: h100, minor: 2 * i + j })),
    nics: [0, 1, 2, 3].map((k) => {
      const id = n++;
      const iid = `5c25:73ff:fe${(0x10 + id).toString(16)}:${(0xa000 + id).toString(16)}`;
      return roceNic(
        `mlx5_${id}`,
        `eth${id}`,
        iid,
        `25.11.${127 + id}.2`,
        sw.gpuBuses[0] + 1 + k,
        "400 Gb/sec (4X NDR)",
      );
    }),
  }));
  s.standaloneNics = [
    {
      rootBus: 0x16,
      numa: 0,
      nic: roceNic("mlx5_0", "eth0", "f820:20ff:fe28:c769", "10.0.60.3", 0x17, "25 Gb/sec (1X EDR)"),
    },
    {
      rootBus: 0xe0,
      numa: 1,
      nic: roceNic("mlx5_17", "eth17", "5c25:73ff:fe21:a011", "25.11.144.2", 0xe1, "400 Gb/sec (4X NDR)"),
    },
  ];
  return s;
}

/** Management is a RoCE LAG bond `mlx5_bond_0` on bond0 (slaves eth0, eth1); data HCAs are mlx5_2..9. */
export function bondSpec(): HostSpec {
  const s = seedSpec();
  s.hostname = "cce-a100-roce-bond-01";
  for (const sw of s.switches) {
    sw.nics = sw.nics.map((nic) => {
      const i = Number(nic.ibdev.slice(5)) + 1;
      return { ...nic, ibdev: `mlx5_${i}`, netdev: `eth${i}` };
    });
  }
  s.standaloneNics = [
    {
      rootBus: 0x16,
      numa: 0,
      nic: roceNic("mlx5_bond_0", "bond0", "f820:20ff:fe28:c769", "10.0.60.3", 0x17, "50 Gb/sec (2X EDR)"),
    },
  ];
  s.bonds = { bond0: { slaves: ["eth0", "eth1"], mac: "fa:20:20:28:c7:69" } };
  s.defaultRoute = { netdev: "bond0", gateway: "10.0.60.1" };
  return s;
}

/**
 * An IPv6-only RoCE fabric: the example node with every data NIC on its own rail /64, `fd00:10:0:N::2` on ethN, and no IPv4
 * address (so no IPv4 route either); GIDs 0/1 link-local, 2/3 the global IPv6 address. mlx5_0 keeps its IPv4.
 */
export function ipv6OnlySpec(): HostSpec {
  const s = seedSpec();
  s.hostname = "cce-a100-roce-v6-01";
  for (const sw of s.switches) {
    sw.nics = sw.nics.map((nic) => ({ ...nic, ipv4: [], ipv6: [`fd00:10:0:${nic.ibdev.slice(5)}::2`] }));
  }
  return s;
}

export function applySeedDiff(tree: HostTree, name: string): HostTree {
  const v = SEED_DIFFS[name];
  if (!v) throw new Error(`no example variation ${name}`);
  return tree.apply(v.diff);
}

/**
 * The A100 RoCE example node (the Baidu CCE reference setup's node): 8×A100-SXM4-80GB at its bus ids, driver 470.141.03,
 * CUDA 11.4, MLNX_OFED_LINUX-5.8-1.1.2.1; mlx5_0 on eth0 (10.0.60.3, default route) and mlx5_1..8 on eth1..8
 * (25.11.128.x, 200 Gb/sec) with the link-local GIDs of the reference show_gids table; 4 PCIe switches each with
 * 2 GPUs + 2 data NICs; NUMA 0 for GPU0–3, NUMA 1 for GPU4–7.
 */
import type { GpuModel, HostSpec, NicSpec, SwitchSpec } from "./builder.js";

export const A100_80GB: GpuModel = {
  name: "NVIDIA A100-SXM4-80GB",
  deviceId: "0x20b2",
  memoryMiB: 81251,
  linkSpeed: "16.0 GT/s PCIe",
};

/** The example node's data NICs: [ibdev, netdev, link-local interface id (from show_gids), IPv4]. */
export const SEED_DATA_NICS: readonly (readonly [string, string, string, string])[] = [
  ["mlx5_1", "eth1", "eaeb:d3ff:fecc:c920", "25.11.128.2"],
  ["mlx5_2", "eth2", "eaeb:d3ff:fecc:c921", "25.11.128.34"],
  ["mlx5_3", "eth3", "eaeb:d3ff:fe6c:51d2", "25.11.128.66"],
  ["mlx5_4", "eth4", "eaeb:d3ff:fe6c:51d3", "25.11.128.98"],
  ["mlx5_5", "eth5", "eaeb:d3ff:fe33:1366", "25.11.128.130"],
  ["mlx5_6", "eth6", "eaeb:d3ff:fe33:1367", "25.11.128.162"],
  ["mlx5_7", "eth7", "eaeb:d3ff:fe6c:68ae", "25.11.128.194"],
  ["mlx5_8", "eth8", "eaeb:d3ff:fe6c:68af", "25.11.128.226"],
];

/** Per switch: root bus, NUMA node, GPU bus numbers, NIC bus numbers (GPU0,1 and mlx5_1,2 under the first). */
export const SEED_SWITCHES: readonly {
  rootBus: number;
  numa: number;
  gpuBuses: [number, number];
  nicBuses: [number, number];
}[] = [
  { rootBus: 0x4e, numa: 0, gpuBuses: [0x53, 0x59], nicBuses: [0x55, 0x57] },
  { rootBus: 0x68, numa: 0, gpuBuses: [0x6e, 0x73], nicBuses: [0x70, 0x71] },
  { rootBus: 0x87, numa: 1, gpuBuses: [0x8d, 0x92], nicBuses: [0x8f, 0x90] },
  { rootBus: 0xc3, numa: 1, gpuBuses: [0xc9, 0xcf], nicBuses: [0xcb, 0xcc] },
];

const bdf = (bus: number) => `0000:${bus.toString(16).padStart(2, "0")}:00.0`;

export function roceNic(
  ibdev: string,
  netdev: string,
  interfaceId: string,
  ipv4: string,
  bus: number,
  rate: string,
): NicSpec {
  return { ibdev, netdev, bdf: bdf(bus), interfaceId, ipv4: [ipv4], ipv6: [], rate, linkLayer: "Ethernet" };
}

export function seedSpec(): HostSpec {
  const switches: SwitchSpec[] = SEED_SWITCHES.map((s, i) => ({
    rootBus: s.rootBus,
    numa: s.numa,
    gpus: s.gpuBuses.map((bus, j) => ({ bdf: bdf(bus), model: A100_80GB, minor: 2 * i + j })),
    nics: s.nicBuses.map((bus, j) => {
      const [ibdev, netdev, iid, ip] = SEED_DATA_NICS[2 * i + j]!;
      return roceNic(ibdev, netdev, iid, ip, bus, "200 Gb/sec (4X HDR)");
    }),
  }));
  return {
    hostname: "cce-a100-roce-01",
    switches,
    standaloneNics: [
      {
        rootBus: 0x16,
        numa: 0,
        nic: {
          ...roceNic("mlx5_0", "eth0", "f820:20ff:fe28:c769", "10.0.60.3", 0x17, "25 Gb/sec (1X EDR)"),
          mtu: 1500,
        },
      },
    ],
    defaultRoute: { netdev: "eth0", gateway: "10.0.60.1" },
    gidSlots: 255,
    fwVer: "20.35.1012",
    hcaType: "MT4123",
    nicDeviceId: "0x101b",
    boardId: "MT_0000000223",
    driverVersion: "470.141.03",
    cudaVersion: "11.4",
    ofedLine: "MLNX_OFED_LINUX-5.8-1.1.2.1:",
    peermem: true,
    shmBytes: 549_755_813_888,
    kernelRelease: "5.4.0-126-generic",
    openKernelModule: false,
  };
}

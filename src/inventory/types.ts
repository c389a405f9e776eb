import type { Problem } from "../core/result.js";

/** Kernel port states (`/sys/class/infiniband/<dev>/ports/<n>/state`). */
export type PortState = "NOP" | "DOWN" | "INIT" | "ARMED" | "ACTIVE" | "ACTIVE_DEFER" | "UNKNOWN";
/** Kernel physical states (`phys_state`), with spaces removed from `Phy Test`. */
export type PhysState =
  | "Sleep"
  | "Polling"
  | "Disabled"
  | "PortConfigurationTraining"
  | "LinkUp"
  | "LinkErrorRecovery"
  | "PhyTest"
  | "UNKNOWN";
export type LinkLayer = "InfiniBand" | "Ethernet" | "Unknown";

/** What a GID slot holds, in NCCL's terms (configured/valid/link-local, IPv4-mapped or not). */
export type GidKind = "link_local" | "ipv4" | "ipv6_global" | "ib";

export type GidEntry = {
  index: number;
  /** Uncompressed, as sysfs prints it: `0000:0000:0000:0000:0000:ffff:190b:8002`. */
  gid: string;
  kind: GidKind;
  /** Decoded IPv4 for IPv4-mapped GIDs, else null. */
  ipv4: string | null;
  /** Raw `gid_attrs/types/N` (`IB/RoCE v1`, `RoCE v2`), null when unreadable. */
  type: string | null;
  version: "v1" | "v2" | null;
  /** `gid_attrs/ndevs/N`, null on IB or when unreadable. */
  netdev: string | null;
};

export type Port = {
  port: number;
  state: PortState;
  physState: PhysState;
  /** Parsed number from `rate` (`200 Gb/sec (4X HDR)` → 200); null when unreadable. */
  rateGbps: number | null;
  /** Raw `rate` text (on RoCE the label is synthetic). */
  rateText: string | null;
  linkLayer: LinkLayer;
  lid: string | null;
  /** The subnet manager's LID (`sm_lid`, `0x1`) and the port's LMC (`lid_mask_count`); null unreadable, absent not read. */
  smLid?: string | null;
  lmc?: number | null;
  /** Number of slots in `gids/` (gid_tbl_len). */
  gidTableLength: number;
  /** Configured GIDs only (all-zero and bare fe80:: slots skipped), in index order. */
  gids: GidEntry[];
  /** Netdevs named by this port's GIDs (RoCE) or by the PCI function (IPoIB). */
  netdevs: string[];
  counters: Record<string, number>;
  hwCounters: Record<string, number>;
  /** Lowest index of a RoCE v2 GID with an IPv4 address, or null. */
  roceV2Ipv4Index: number | null;
  /** Lowest index of a RoCE v2 GID with a global IPv6 address, or null. */
  roceV2Ipv6Index: number | null;
};

export type HcaRole = "management" | "data" | "excluded";

export type Hca = {
  name: string;
  nodeGuid: string | null;
  sysImageGuid: string | null;
  fwVer: string | null;
  /** `MT4123` etc. */
  hcaType: string | null;
  boardId: string | null;
  /** `0000:55:00.0`, from the `device` link. */
  pciAddress: string | null;
  /** Resolved `/sys/devices/pci0000:4e/.../0000:55:00.0`. */
  pciPath: string | null;
  vendorId: string | null;
  deviceId: string | null;
  numaNode: number | null;
  /** The PCI function's trained link (`current_link_*` / `max_link_*`); null when unreadable. */
  link?: PcieLink | null;
  /** PCI Express Device Control from the function's config space; null: not readable (needs root); absent: not read. */
  pcieControl?: PcieControl | null;
  ports: Port[];
  /** All netdevs of this HCA (union over ports). */
  netdevs: string[];
  /** `mlx5_bond_0` style devices (RoCE LAG). */
  isBond: boolean;
  /** `/dev/infiniband/uverbsN` names (`uverbs3`) belonging to this HCA. */
  uverbs: string[];
  role: HcaRole;
  /**
   * The kernel's node type word from `node_type` (`1: CA` → `CA`; iWARP devices say `RNIC`, usNIC `usNIC`);
   * null when unreadable. Absent: not read.
   */
  nodeType?: string | null;
  /** Why the role was given (`carries the default route via eth0`). */
  roleReason: string;
  /**
   * Set when the device's directory could not be read (its `ports` listing failed: a symlink loop, EACCES): its
   * ports and role are unknown, so it is named rather than silently left out of the data NICs.
   */
  unreadable?: { path: string; code: string; message: string };
};

/** What a PCIe function may do on its link (Device Control): relaxed ordering, largest read request and payload. */
export type PcieControl = { relaxedOrdering: boolean; maxReadRequestBytes: number; maxPayloadBytes: number };

export type Netdev = {
  name: string;
  operstate: string | null;
  mtu: number | null;
  address: string | null;
  pciAddress: string | null;
  /** The ibdev on the same PCI function / named by a GID, if any. */
  hca: string | null;
  isDefaultRoute: boolean;
  /** Bond master/slaves where `bonding/` exists. */
  bondSlaves: string[];
  /** IPv4 subnets routed directly on this interface (connected routes of /proc/net/route), e.g. `25.11.128.0/27`. */
  ipv4Subnets: string[];
  /** `carrier_changes`: link transitions since the netdev was created; null unreadable, absent not read. */
  carrierChanges?: number | null;
};

export type PcieLink = {
  currentSpeed: string | null;
  maxSpeed: string | null;
  currentWidth: number | null;
  maxWidth: number | null;
};

export type Gpu = {
  index: number;
  name: string;
  /**
   * Where `name` came from when nvidia-smi gave no GPUs: the kernel module's /proc/driver/nvidia/gpus/ADDR/information
   * (`driver`: the real name), or only the PCI device id (`pci`: a placeholder). Absent: from nvidia-smi.
   */
  nameFrom?: "driver" | "pci";
  /** Normalised PCI address, lower case, 4-digit domain: `0000:53:00.0`. */
  pciAddress: string;
  uuid: string | null;
  memoryTotalMiB: number | null;
  persistenceMode: boolean | null;
  migMode: "Enabled" | "Disabled" | null;
  eccVolatileUncorrected: number | null;
  eccAggregateUncorrected: number | null;
  retiredPagesPending: boolean | null;
  remappedRows: { correctable: number; uncorrectable: number; pending: boolean; failure: boolean } | null;
  /** From nvidia-smi (generation) — null when not reported. */
  pcieGen: { current: number | null; max: number | null };
  pcieWidth: { current: number | null; max: number | null };
  /** From sysfs (`current_link_speed` …), null when unreadable. */
  link: PcieLink | null;
  numaNode: number | null;
  pciPath: string | null;
  /**
   * NVLink fabric registration (`nvidia-smi -q` Fabric: State `Completed`, Status `Success` when the Fabric Manager
   * set up the NVSwitch fabric). Null: not reported (N/A: no fabric, or a GPU generation that does not report it).
   * Absent: not read.
   */
  fabric?: { state: string; status: string | null } | null;
  /**
   * Clock event (throttle) reasons nvidia-smi marks Active (`sw_thermal_slowdown`, `hw_power_brake_slowdown`, `gpu_idle`);
   * null: not reported. Absent: not read.
   */
  clockEvents?: string[] | null;
};

/** NCCL's path types between a GPU and a NIC. nvidia-smi's NODE is PHB for NCCL. */
export type NcclDistance = "PIX" | "PXB" | "PHB" | "SYS";
export type NvsmiDistance = "PIX" | "PXB" | "PHB" | "NODE" | "SYS";

export type GpuNicPath = {
  gpu: number;
  hca: string;
  distance: NcclDistance;
  nvsmi: NvsmiDistance;
};

export type GpuDirect = {
  /** Loaded peer-memory module, if any. */
  peermem: "nvidia_peermem" | "nv_peer_mem" | null;
  nvidiaLoaded: boolean;
  /** DMA-BUF is possible: the open GPU kernel module, driver ≥ 515, kernel ≥ 5.12. Best-effort. */
  dmabufPossible: boolean;
  /** The GPU kernel module's flavour, from /proc/driver/nvidia/version; null when unknown. */
  kernelModule?: "open" | "proprietary" | null;
  mechanism: "peermem" | "dmabuf" | null;
  reasons: string[];
};

export type OfedInfo = {
  /**
   * What `ofed_info -s` said: an OFED version (`present`), not installed (`absent`), something else (`error`); or it
   * could not be asked (`unavailable`: a snapshot without its record — `error` and `errorCode` say why).
   */
  status: "present" | "absent" | "error" | "unavailable";
  flavor: "MLNX_OFED" | "DOCA-OFED" | "OFED" | null;
  version: string | null;
  raw: string | null;
  /** With `unavailable`: why ofed_info could not be asked, and its code (NOT_RECORDED). */
  error?: string;
  errorCode?: string;
  /**
   * The mlx5 driver the kernel runs, when /sys/module shows mlx5_core: OFED's (MLNX_OFED and DOCA-OFED load their
   * compat layer `mlx_compat`; the distribution's inbox drivers have none) or the inbox one, with mlx5_core's module
   * version (`5.8-1.1.2`; null when it has none). Absent when mlx5_core is not loaded or not recorded.
   */
  loadedDriver?: LoadedMlx5Driver;
};

export type LoadedMlx5Driver = { from: "ofed" | "inbox"; version: string | null };

export type DriverInfo = {
  /**
   * nvidia-smi answered (`ok`); is not installed and no NVIDIA kernel module is loaded (`absent`); failed or hung
   * (`error`, `timeout`: the driver); or could not run in this environment (`unavailable`: the host's binary in a
   * collector pod without the NVIDIA runtime — its library or device nodes are missing here — or no nvidia-smi where
   * it was looked for while /proc says the module is loaded; neither says anything about the driver).
   * `driverVersion` then comes from /proc/driver/nvidia/version when that is readable.
   */
  status: "ok" | "absent" | "error" | "timeout" | "unavailable";
  driverVersion: string | null;
  cudaVersion: string | null;
  error: string | null;
  /** With `unavailable` when nvidia-smi was not asked at all: NOT_RECORDED (a snapshot without its record). */
  errorCode?: string;
};

export type Limit = number | "unlimited" | null;

/** A PCIe bridge above a GPU or an RDMA NIC, from its config space. */
export type PcieBridge = {
  address: string;
  /** From the PCI Express capability; null when it could not be read. */
  portType: "endpoint" | "root_port" | "upstream_port" | "downstream_port" | "pcie_bridge" | "other" | null;
  /**
   * How much config space was read: `full` (4096 bytes, as root), `no_extended` (256: no extended space),
   * `header_only` (64 bytes: the kernel shows the rest to root only), `unreadable`.
   */
  config: "full" | "no_extended" | "header_only" | "unreadable";
  /** The ACS Control register and the redirecting bits set in it (`SrcValid`, `ReqRedir`, `CmpltRedir`); null: no ACS. */
  acs: { control: number; redirects: string[] } | null;
};

export type IommuState = {
  /**
   * `off`: no IOMMU groups; `passthrough`: identity domains (`iommu=pt`); `translated`: DMA domains, every
   * GPUDirect transfer goes through the IOMMU's page tables; `unknown`: not enough could be read.
   */
  mode: "off" | "passthrough" | "translated" | "unknown";
  /** `/sys/class/iommu` entries (`dmar0`, `ivhd0`). */
  units: string[];
  cmdline: string | null;
  /** The group domain types seen (`DMA-FQ`, `identity`), deduplicated. */
  groupTypes: string[];
  /** Why the mode was given. */
  reason: string;
};

/** One RoCE netdev's lossless settings. null fields were not exposed by this host (inbox driver, no MLNX_OFED tool). */
export type RoceQos = {
  netdev: string;
  hca: string;
  /** ECN (DCQCN) enabled per priority 0..7, as notification point and as reaction point. */
  ecnNp: boolean[] | null;
  ecnRp: boolean[] | null;
  /** The HCA's global traffic class (the IP ToS byte every RoCE QP uses); null when unset or not exposed. */
  trafficClass: number | null;
  trafficClassExposed: boolean;
  /** rdma_cm's default RoCE ToS for this HCA (configfs); null: not set (no configfs directory). Absent: not read. */
  cmaRoceTos?: number | null;
  /** From `mlnx_qos -i`: trust mode, DSCP → priority map, PFC-enabled priorities. */
  trust: "dscp" | "pcp" | null;
  dscpToPriority: Record<number, number> | null;
  pfcEnabled: number[] | null;
  /** Set when `mlnx_qos -i` ran and failed (`exited with 1: …`): why trust, DSCP map and PFC are unknown (not when it is not installed). */
  qosError?: string;
  /** Where pfcEnabled came from when not from `mlnx_qos`: iproute2's `dcb pfc show` (inbox drivers). */
  pfcFrom?: "dcb";
  /**
   * The port-level `ethtool -S` counters by name (`rx_prio3_pause`, `rx_discards_phy`, `rx_crc_errors_phy`); null
   * when they could not be read (`portCountersError` says why). Absent: not read (inventories built by hand).
   */
  portCounters?: Record<string, number> | null;
  portCountersError?: string;
  /** MLNX_OFED's CNP marking (`ecn/roce_np/cnp_802p_prio`, `cnp_dscp`); null where the file is not there. */
  cnp?: { prio: number | null; dscp: number | null };
};

export type NodeInventory = {
  hostname: string;
  /** Where the facts came from (`live host /`, `snapshot node1.json`, `example a100-8x-roce`). */
  source: string;
  ofed: OfedInfo;
  driver: DriverInfo;
  hcas: Hca[];
  netdevs: Netdev[];
  gpus: Gpu[];
  /** One entry per GPU × HCA pair with a resolvable PCIe path. */
  paths: GpuNicPath[];
  gpuDirect: GpuDirect;
  roles: {
    defaultRouteInterface: string | null;
    managementHca: string | null;
    /** Data HCAs in natural order. */
    dataHcas: string[];
  };
  devices: { infiniband: string[]; rdmaCm: boolean };
  /**
   * The kernel's RDMA network-namespace mode (ib_core netns_mode): `shared`, every namespace sees every RDMA device;
   * `exclusive`, a device is seen only in the namespace it was moved to. Absent when not read.
   */
  rdmaNetns?: "shared" | "exclusive";
  process: { capEff: string | null; ipcLock: boolean | null; memlockSoft: Limit; memlockHard: Limit };
  shmBytes: number | null;
  /** PCIe bridges on the GPUs' and RDMA NICs' paths (absent in inventories built by hand). */
  bridges?: PcieBridge[];
  iommu?: IommuState;
  /** Lossless-RoCE settings per RoCE netdev. */
  roceQos?: RoceQos[];
  problems: Problem[];
  /**
   * Facts some check needs that this host did not give (a listing unreadable or empty, a link unresolved): each is
   * a check that could not run, and the report says so (CHECK_SKIPPED) instead of passing it silently.
   */
  missing?: MissingFact[];
  /**
   * PCI addresses of the GPUs the NVIDIA driver excludes (`GPU Excluded: Yes` in /proc/driver/nvidia/gpus/ADDR/
   * information: NVreg_ExcludedGpus): nvidia-smi does not list them and no process can use them. Absent when none.
   */
  gpusExcluded?: string[];
  /** Only on hosts whose PCI bus shows NVSwitches (HGX/DGX boards). */
  nvswitch?: NvSwitchState;
  /** Absent in inventories built by hand. */
  netConf?: NetConf;
};

/** An NVSwitch system's switches and each GPU's NVLinks (`nvidia-smi nvlink -s`). */
export type NvSwitchState = {
  /** PCI addresses of the NVSwitch functions. */
  switches: string[];
  /** Per GPU: its links and the inactive ones; null when `nvidia-smi nvlink -s` gave nothing (nvlinkError says why). */
  nvlink: { gpu: number; name: string; links: number; inactive: number[] }[] | null;
  nvlinkError: string | null;
};

/** Effective IPv4 switches of a netdev (the larger of conf/all and conf/IF); null when unreadable. */
export type NetSysctls = { arpIgnore: number | null; arpAnnounce: number | null; rpFilter: number | null };

/** ARP and routing settings that decide which NIC answers for and sends from which address. */
export type NetConf = {
  sysctls: Record<string, NetSysctls>;
  /** `ip -4 rule show`; null when it could not be read (ipRuleError says why). */
  ipRules: { priority: number; from: string; table: string | null; text: string }[] | null;
  ipRuleError: string | null;
};

/** A fact a check needs and could not have: what it is, where it is read, why not, and which checks went without. */
export type MissingFact = { fact: string; path: string; why: string; checks: string };

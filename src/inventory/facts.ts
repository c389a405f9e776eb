import type { CommandOutcome, ReadError, ReadOutcome } from "../host/types.js";

/** A raw sysfs/proc read: its text or why it failed. */
export type Fact = ReadOutcome<string>;

/** Every file of a directory (a port's counters): names in natural order, each with its read. */
export type DirFacts = { names: readonly string[]; values: readonly Fact[] };

export type GidFact = { index: number; gid: Fact; type?: Fact; ndev?: Fact };

export type PortFacts = {
  port: number;
  dir: string;
  state: Fact;
  physState: Fact;
  rate: Fact;
  linkLayer: Fact;
  lid: Fact;
  /** Files in `gids/` (gid_tbl_len), or why the directory could not be listed. */
  gidSlots: ReadOutcome<number>;
  /**
   * The slots that are not empty (`0000:…:0000`) or could not be read, in slot order; `type`/`ndev` only read for
   * configured slots (as show_gids). Empty slots are only counted, in gidSlots.
   */
  gids: GidFact[];
  counters: DirFacts;
  hwCounters: DirFacts;
  /** `sm_lid` and `lid_mask_count` (the subnet manager's LID, the port's LMC); absent in facts built by hand. */
  smLid?: Fact;
  lmc?: Fact;
};

export type PciFacts = {
  address: string;
  /** Resolved `/sys/devices/pci0000:4e/…/0000:55:00.0`. */
  path: ReadOutcome<string>;
  class: Fact;
  vendor: Fact;
  device: Fact;
  numaNode: Fact;
  currentLinkSpeed: Fact;
  maxLinkSpeed: Fact;
  currentLinkWidth: Fact;
  maxLinkWidth: Fact;
};

export type HcaFacts = {
  name: string;
  nodeGuid: Fact;
  sysImageGuid: Fact;
  fwVer: Fact;
  hcaType: Fact;
  boardId: Fact;
  /** realpath of `device`. */
  device: ReadOutcome<string>;
  pci: PciFacts | null;
  /** The PCI function's config space as hex (readBinaryHex): Device Control for relaxed ordering and MaxReadReq. */
  pciConfig?: Fact;
  ports: PortFacts[];
  portsError?: ReadError;
  /** `node_type` (`1: CA`, `4: RNIC` for iWARP); absent in facts built by hand. */
  nodeType?: Fact;
};

export type NetdevFacts = {
  name: string;
  operstate: Fact;
  mtu: Fact;
  address: Fact;
  device: ReadOutcome<string>;
  bondSlaves: Fact;
  /** `carrier_changes` (Linux 3.15+): link up/down transitions since the netdev was created. Absent: not read. */
  carrierChanges?: Fact;
};

/** A PCIe bridge above a GPU or an RDMA NIC: its config space as hex text (readBinaryHex). */
export type BridgeFacts = { address: string; config: Fact };

/** IOMMU state: the units, the kernel command line, and each GPU's / NIC's group and its domain type. */
export type IommuFacts = {
  units: ReadOutcome<string[]>;
  cmdline: Fact;
  /** `iommu_group` resolved (`/sys/kernel/iommu_groups/17`), and that group's `type` (`identity`, `DMA`, `DMA-FQ`). */
  devices: { address: string; group: ReadOutcome<string>; type: Fact | null }[];
};

/** Lossless-RoCE settings of one RoCE netdev and its HCA (MLNX_OFED sysfs, `mlnx_qos`). */
export type RoceQosFacts = {
  netdev: string;
  hca: string;
  /** `ecn/roce_np/enable/0..7` and `ecn/roce_rp/enable/0..7`. */
  ecnNp: readonly Fact[];
  ecnRp: readonly Fact[];
  /** `/sys/class/infiniband/<hca>/tc/1/traffic_class` (`Global tclass=106`, empty when unset). */
  trafficClass: Fact;
  /** `/sys/kernel/config/rdma_cm/<hca>/ports/1/default_roce_tos`; absent in facts built by hand. */
  cmaRoceTos?: Fact;
  mlnxQos: CommandOutcome;
  /** `dcb pfc show dev IF`, run only where mlnx_qos is not installed. */
  dcbPfc?: CommandOutcome;
  /** `ethtool -S IF`, its port-level lines only (pause, discard, PHY counters); absent in facts built by hand. */
  ethtoolStats?: CommandOutcome;
  /** MLNX_OFED's `ecn/roce_np/cnp_802p_prio` and `ecn/roce_np/cnp_dscp`: how this NIC marks the CNPs it sends. */
  cnp?: { prio: Fact; dscp: Fact };
};

/** The NVSwitch PCI functions (NVIDIA, class 0x0680) and, where there are some, `nvidia-smi nvlink -s`. */
export type NvlinkFacts = { switches: string[]; status?: CommandOutcome };

/** Per netdev (and `all`): arp_ignore, arp_announce, rp_filter in that order; and `ip -4 rule show`. */
export type NetConfFacts = { conf: { name: string; values: readonly Fact[] }[]; ipRule: CommandOutcome };

/** Everything read from one host, before interpretation. `buildInventory` turns it into the node model. */
export type HostFacts = {
  source: string;
  hostname: Fact;
  kernelRelease: Fact;
  nvidiaDriverProc: Fact;
  hcaList: ReadOutcome<string[]>;
  hcas: HcaFacts[];
  netList: ReadOutcome<string[]>;
  netdevs: NetdevFacts[];
  /** NVIDIA display-class PCI functions found in /sys/bus/pci/devices. */
  gpuPci: PciFacts[];
  /** /proc/driver/nvidia/gpus/<address>/information per GPU of `gpuPci`, same order: names where nvidia-smi is mute. */
  gpuDriverInfo: Fact[];
  pciList: ReadOutcome<string[]>;
  modules: {
    nvidia: boolean;
    nvidiaPeermem: boolean;
    nvPeerMem: boolean;
    memoryPeersNvMem: boolean;
    /** /sys/module/mlx5_core: the mlx5 driver is loaded (or built in). */
    mlx5Core: boolean;
    /** /sys/module/mlx_compat: MLNX_OFED / DOCA-OFED's compat layer, which every OFED mlx5 module needs. */
    mlxCompat: boolean;
    /** /sys/module/mlx5_core/version: OFED's modules carry one (`5.8-1.1.2`); recent inbox drivers do not. */
    mlx5CoreVersion: Fact;
    /** /sys/module/ib_core/parameters/netns_mode: `Y` shared (the default), `N` exclusive (`rdma system set netns`). */
    ibCoreNetnsMode?: Fact;
  };
  route: Fact;
  status: Fact;
  limits: Fact;
  devInfiniband: ReadOutcome<string[]>;
  uverbs: { name: string; ibdev: Fact }[];
  shm: ReadOutcome<number>;
  ofed: CommandOutcome;
  nvidiaSmi: CommandOutcome;
  /** Bridges on the PCIe paths of the GPUs and RDMA NICs, in address order. */
  bridges: BridgeFacts[];
  iommu: IommuFacts;
  roceQos: RoceQosFacts[];
  /** Absent in facts built by hand. */
  nvlink?: NvlinkFacts;
  /** Absent in facts built by hand. */
  netConf?: NetConfFacts;
};

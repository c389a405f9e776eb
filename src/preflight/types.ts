/** One pod's facts, as `kube-rdma preflight --facts-only -o json` prints them and the gang publishes them. */

/** `ok`, an errno code (`EPERM`, `EACCES`, `ENOENT`, …), or `not-tried` when a snapshot never recorded an attempt. */
export type OpenResult = "ok" | "not-tried" | string;

export type PodHca = {
  name: string;
  role: "management" | "data" | "excluded";
  linkLayer: string;
  /** `/dev/infiniband/uverbsN` of this HCA present in the pod, with the outcome of opening it read-write. */
  uverbs: { device: string; open: OpenResult }[];
  roceV2Ipv4Index: number | null;
  roceV2Ipv6Index: number | null;
  /** The RoCE v2 address NCCL would use (IPv4 first), null on InfiniBand or without one. */
  address: string | null;
  netdev: string | null;
  /** The connected IPv4 subnet of that netdev (`25.11.128.64/27`), null when unknown. */
  subnet: string | null;
};

export type NcclLibrary = {
  path: string;
  /** `2.21.5`, or null when neither the name, the package nor the library's text says. */
  version: string | null;
  /** Where the version came from. */
  versionFrom: "file name" | "link target" | "package" | "library text" | null;
};

export type PodFacts = {
  kind: "kube-rdma/preflight-facts";
  schemaVersion: 1;
  /** The pod's name (POD_NAME from the downward API), else the host name. */
  pod: string;
  hostname: string;
  source: string;
  hcas: PodHca[];
  /** Data HCAs whose uverbs device is present in the pod, natural order. */
  dataHcas: string[];
  defaultRouteInterface: string | null;
  netdevs: { name: string; operstate: string | null; mtu: number | null; ipv4Subnets: string[] }[];
  memlock: { soft: number | "unlimited" | null; hard: number | "unlimited" | null };
  ipcLock: boolean | null;
  shmBytes: number | null;
  gpus: { visibleDevices: string | null; deviceNodes: string[]; count: number };
  gpuDirect: "peermem" | "dmabuf" | null;
  nccl: { library: NcclLibrary | null; libraries: NcclLibrary[]; netPlugins: NcclLibrary[] };
  /** Every NCCL_* variable the container sees. */
  env: Record<string, string>;
  /** Facts that could not be read, in words. */
  problems: string[];
};

/** A pod's facts with the label a comparison names it by (its pod name, or the file it came from). */
export type Member = { name: string; facts: PodFacts };

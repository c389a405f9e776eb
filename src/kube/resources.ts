/**
 * Extended-resource names of GPU and RDMA device plugins across providers (managed Kubernetes services and the NVIDIA
 * operators), and the Kubernetes quantity arithmetic needed to compare them.
 */

/** GPU resources: NVIDIA's plugin, Baidu's GPU Manager (`baidu.com/a100_80g_cgpu`, `baidu.com/cgpu`), AMD. */
export function isGpuResource(name: string): boolean {
  return name === "nvidia.com/gpu" || name === "amd.com/gpu" || /^baidu\.com\/(?:[a-z0-9_]+_)?cgpu$/.test(name);
}

/** Provider RDMA resources other than the `rdma/*` family. */
const OTHER_RDMA_RESOURCES = new Set([
  "vke.volcengine.com/rdma",
  "tke.cloud.tencent.com/rdma-hca",
  "vpc.amazonaws.com/efa",
  "cce.baidubce.com/rdmaeni",
]);

/**
 * SR-IOV RDMA VFs of the NVIDIA Network Operator: the admin names the resource in the SriovNetworkNodePolicy /
 * sriov-device-plugin config, under the `nvidia.com/` prefix (`nvidia.com/mlnxnics`, `nvidia.com/sriov_rdma_vf`,
 * https://docs.nvidia.com/networking/display/kubernetes2410/getting-started-with-kubernetes.html). GPU names
 * (`nvidia.com/gpu`, MIG `nvidia.com/mig-…`) are not matched.
 */
const NVIDIA_SRIOV_RDMA = /^nvidia\.com\/(?!gpu|mig-).*(?:rdma|sriov|mlnx|hca)/i;

/** RDMA resources: `rdma/hca` (Baidu CCE, Alibaba ACK), `rdma/shared_ib` (Azure), `rdma/rdma_shared_device_a`
 * (NVIDIA Network Operator), `rdma/ib` (CoreWeave), Volcano Engine, Tencent, AWS EFA. */
export function isRdmaResource(name: string): boolean {
  return isRdmaDevicePluginResource(name) || NVIDIA_SRIOV_RDMA.test(name);
}

/**
 * Resources that are an RDMA device by what they are (an RDMA device plugin's): an SR-IOV / host-device resource is
 * one only when its network carries RDMA, which the manifest alone does not show (lint asks for the network).
 */
export function isRdmaDevicePluginResource(name: string): boolean {
  return name.startsWith("rdma/") || OTHER_RDMA_RESOURCES.has(name);
}

/**
 * Device resources of SR-IOV / host-device networks: a VF or a whole PF handed to the pod with its netdev and, when
 * the network is RDMA-capable, its RDMA device. The NVIDIA Network Operator names them `nvidia.com/<resourceName>`
 * (SriovNetworkNodePolicy `resourceName: sriov_resource`, host-device `nvidia.com/hostdev`); the SR-IOV network
 * device plugin's default prefix is `intel.com/`, OpenShift's SR-IOV operator uses `openshift.io/`.
 */
export function isNetworkDeviceResource(name: string): boolean {
  const m = /^(nvidia\.com|intel\.com|openshift\.io)\/(.+)$/.exec(name);
  if (!m) return false;
  return !isGpuResource(name) && !/^(gpu|mig-|vgpu|shared-gpu)/.test(m[2]!);
}

const SUFFIX: Record<string, number> = {
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
  Pi: 1024 ** 5,
  Ei: 1024 ** 6,
  m: 1e-3,
};

/**
 * A Kubernetes quantity, by the grammar of k8s.io/apimachinery/pkg/api/resource/quantity.go
 * (https://github.com/kubernetes/apimachinery/blob/master/pkg/api/resource/quantity.go):
 * `<signedNumber><suffix>`, number `<digits>`, `<digits>.<digits>`, `<digits>.` or `.<digits>`; suffix one of the
 * binary SI (`Ki`…`Ei`), a decimal exponent (`e<signedNumber>`, `E…`) or the decimal SI (`m`, ``, `k`, `M`…`E`).
 * No white space: the API server refuses `1 ` and `lots` alike.
 */
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|[kMGTPEm])|[eE]([+-]?\d+))?$/;

/** Parses a Kubernetes quantity (`1k`, `8`, `10Gi`, `500m`, `1e3`); null when it is not one. */
export function parseQuantity(q: string | number | undefined | null): number | null {
  if (typeof q === "number") return Number.isFinite(q) ? q : null;
  if (typeof q !== "string") return null;
  const m = QUANTITY.exec(q);
  if (!m) return null;
  const factor = m[3] !== undefined ? 10 ** Number(m[3]) : SUFFIX[m[2] ?? ""];
  return factor === undefined ? null : Number(m[1]) * factor;
}

/** Resources of one kind picked from a resource map (capacity, allocatable, limits). */
export function pickResources(
  map: Record<string, string | number> | undefined,
  keep: (name: string) => boolean,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(map ?? {})) {
    if (!keep(k)) continue;
    const n = parseQuantity(v);
    if (n !== null) out[k] = n;
  }
  return out;
}

export function formatBytes(n: number): string {
  for (const [unit, f] of [
    ["Gi", 1024 ** 3],
    ["Mi", 1024 ** 2],
  ] as const) {
    if (n >= f && n % f === 0) return `${n / f}${unit}`;
  }
  return String(n);
}

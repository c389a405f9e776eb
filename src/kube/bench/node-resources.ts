/**
 * What a bench job may ask of the selected nodes, read from the nodes themselves: the GPU resource and how many each
 * node can give (allocatable), the RDMA resource they advertise and how many units a pod asks for, and the NVIDIA
 * driver the bench image must run on. Pure.
 *
 * The driver comes from NVIDIA GPU Feature Discovery's node labels (`nvidia.com/cuda.driver-version.full`, or its
 * `.major`/`.minor`/`.revision` parts, or the older `nvidia.com/cuda.driver.major`/`.minor`/`.rev`), as documented
 * under "Generated Labels" in https://github.com/NVIDIA/k8s-device-plugin/tree/main/docs/gpu-feature-discovery.
 * A node without them has no driver this can see: the image is then chosen as for an unknown driver, and said so.
 */
import type { V1Node } from "@kubernetes/client-node";
import type { DriverInfo } from "../../inventory/types.js";
import { compareVersions, parseVersion } from "../job/cuda-driver.js";
import { isGpuResource, isRdmaResource, pickResources } from "../resources.js";

export type BenchResources = {
  gpuResource: string;
  gpusPerNode: number;
  rdmaResource: string;
  /** Units of the RDMA resource each worker asks for. */
  rdmaCount: number;
  /** The oldest driver among the nodes (the image must run on each), null when no node names its driver. */
  driver: DriverInfo | null;
  /** What was assumed or could not be read, for the budget text. */
  notes: string[];
};

const nameOf = (n: V1Node) => n.metadata?.name ?? "";

/** The driver version GPU Feature Discovery labels a node with, or null. */
export function driverOfNode(n: V1Node): string | null {
  const l = n.metadata?.labels ?? {};
  const full = l["nvidia.com/cuda.driver-version.full"];
  if (full && parseVersion(full)) return full;
  for (const [maj, min, rev] of [
    [
      "nvidia.com/cuda.driver-version.major",
      "nvidia.com/cuda.driver-version.minor",
      "nvidia.com/cuda.driver-version.revision",
    ],
    ["nvidia.com/cuda.driver.major", "nvidia.com/cuda.driver.minor", "nvidia.com/cuda.driver.rev"],
  ] as const) {
    if (l[maj] && l[min]) {
      const v = [l[maj], l[min], l[rev]].filter((x) => x !== undefined && x !== "").join(".");
      if (parseVersion(v)) return v;
    }
  }
  return null;
}

const list = (names: readonly string[]) =>
  names.length <= 5 ? names.join(", ") : `${names.slice(0, 5).join(", ")} and ${names.length - 5} more`;

/**
 * The resources and driver of `nodes`, or a message saying what is missing. `given` are the user's overrides
 * (--gpus, --rdma-resource, --rdma-count); `rails` is the number of data HCAs a rail test uses.
 */
export function benchResources(
  nodes: readonly V1Node[],
  rails: number,
  given: { gpus?: number | undefined; rdmaResource?: string | undefined; rdmaCount?: number | undefined } = {},
): BenchResources | string {
  const notes: string[] = [];
  const gpus = nodes.map((n) => pickResources(n.status?.allocatable, isGpuResource));
  const gpuNames = [...new Set(gpus.flatMap((g) => Object.keys(g).filter((k) => g[k]! > 0)))].sort();
  if (gpuNames.length === 0)
    return "none of the selected nodes has an allocatable GPU resource (nvidia.com/gpu, amd.com/gpu): select GPU nodes with -l or --node.";
  if (gpuNames.length > 1)
    return `the selected nodes advertise different GPU resources (${gpuNames.join(", ")}): select nodes of one kind.`;
  const gpuResource = gpuNames[0]!;
  const without = nodes.filter((_, i) => !(gpus[i]![gpuResource]! > 0)).map(nameOf);
  if (without.length)
    return `${list(without)} ha${without.length > 1 ? "ve" : "s"} no allocatable ${gpuResource}: leave them out of the selection.`;
  const fewest = Math.min(...gpus.map((g) => g[gpuResource]!));
  const gpusPerNode = given.gpus ?? fewest;
  if (gpusPerNode > fewest)
    return `--gpus ${gpusPerNode}: a selected node has only ${fewest} allocatable ${gpuResource}; give at most ${fewest}.`;
  if (given.gpus === undefined && gpus.some((g) => g[gpuResource] !== fewest))
    notes.push(
      `the nodes have different numbers of allocatable ${gpuResource}: each job asks for the fewest, ${fewest}`,
    );

  const rdma = nodes.map((n) => pickResources(n.status?.allocatable, (k) => isRdmaResource(k)));
  let rdmaResource = given.rdmaResource;
  if (rdmaResource === undefined) {
    const common = [...new Set(rdma.flatMap((r) => Object.keys(r).filter((k) => r[k]! > 0)))]
      .filter((k) => rdma.every((r) => (r[k] ?? 0) > 0))
      .sort();
    if (common.length === 0)
      return "the selected nodes advertise no RDMA resource in common (rdma/hca, rdma/rdma_shared_device_a, …): install an RDMA device plugin, or name the resource with --rdma-resource.";
    rdmaResource = common.includes("rdma/hca") ? "rdma/hca" : common[0]!;
    if (common.length > 1)
      notes.push(
        `RDMA resources ${common.join(", ")} on every node: the jobs ask for ${rdmaResource} (--rdma-resource to choose)`,
      );
  }
  const units = rdma.map((r) => r[rdmaResource!] ?? 0);
  const lacking = nodes.filter((_, i) => !(units[i]! > 0)).map(nameOf);
  if (lacking.length)
    return `${list(lacking)} advertise${lacking.length > 1 ? "" : "s"} no allocatable ${rdmaResource}: leave them out, or name another --rdma-resource.`;
  const least = Math.min(...units);
  let rdmaCount = given.rdmaCount;
  if (rdmaCount === undefined) {
    // One unit per HCA (an exclusive plugin, SR-IOV VFs) when a node has as many units as rails; more units than
    // rails is a shared pool whose one unit gives every HCA. Fewer cannot give each rail its NIC.
    if (least < rails)
      return `a selected node has ${least} allocatable ${rdmaResource}, fewer than the ${rails} rails a rail test uses: give --hcas for the HCAs it has, or --rdma-count if one unit gives several HCAs.`;
    rdmaCount = least === rails ? rails : 1;
    notes.push(
      rdmaCount === 1
        ? `${rdmaResource}: 1 per worker (a shared pool of ${least}+ units, each giving every HCA; --rdma-count to change)`
        : `${rdmaResource}: ${rails} per worker (one unit per HCA; --rdma-count to change)`,
    );
  } else if (rdmaCount > least) {
    return `--rdma-count ${rdmaCount}: a selected node has only ${least} allocatable ${rdmaResource}.`;
  }

  const versions = nodes.map((n) => [nameOf(n), driverOfNode(n)] as const);
  const known = versions.filter((v): v is readonly [string, string] => v[1] !== null);
  const unlabelled = versions.filter((v) => v[1] === null).map((v) => v[0]);
  let driver: DriverInfo | null = null;
  if (known.length) {
    const oldest = known.reduce((a, b) => (compareVersions(parseVersion(b[1])!, parseVersion(a[1])!) < 0 ? b : a));
    driver = { status: "ok", driverVersion: oldest[1], cudaVersion: null, error: null };
    if (new Set(known.map((k) => k[1])).size > 1)
      notes.push(`drivers differ: the image must run on the oldest, ${oldest[1]} (${oldest[0]})`);
  }
  if (unlabelled.length && known.length)
    notes.push(
      `no driver label (GPU Feature Discovery) on ${list(unlabelled)}: the image was checked against the other nodes only`,
    );
  return { gpuResource, gpusPerNode, rdmaResource, rdmaCount, driver, notes };
}

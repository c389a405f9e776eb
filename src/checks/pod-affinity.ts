/**
 * GPU↔NIC affinity of an exclusive allocation, seen from inside the pod (`verify --pod`, preflight): the pod was
 * given some of the node's data HCAs (its /dev/infiniband holds only their uverbs) and its GPUs (nvidia-smi lists
 * only those). A GPU of the pod that has a data NIC at PIX/PXB on the node, while none of the pod's NICs is that
 * near, sends its traffic across the CPU's PCIe root or socket. The kubelet cannot prevent it from the device
 * plugin alone: GetPreferredAllocation is told the available and must-include IDs and the size, never the GPUs the
 * pod got (https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/device-plugins/); only the
 * Topology Manager aligns the two, by NUMA node
 * (https://kubernetes.io/docs/tasks/administer-cluster/topology-manager/).
 */
import type { Finding } from "../core/finding.js";
import type { NcclDistance } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import { gpuSubject } from "./gpus.js";
import { dataHcas } from "./select.js";
import type { Check } from "./types.js";

const RANK: Record<NcclDistance, number> = { PIX: 0, PXB: 1, PHB: 2, SYS: 3 };
const NEAR = RANK.PXB;

export const podNicAffinityCheck: Check = {
  name: "pod-nic-affinity",
  codes: ["POD_NIC_NOT_NEAR_GPU", "CHECK_SKIPPED"],
  run(inv, opts) {
    if (!opts.pod) return [];
    const present = new Set(inv.devices.infiniband);
    const data = dataHcas(inv).filter((h) => h.uverbs.length > 0);
    const given = data.filter((h) => h.uverbs.some((u) => present.has(u)));
    // Every data HCA (shared mode) or none (NO_UVERBS says so): no allocation to judge.
    if (given.length === 0 || given.length === data.length) return [];
    if (inv.gpus.length === 0) return [];
    if (inv.gpus.some((g) => g.nameFrom !== undefined)) {
      return [
        finding("CHECK_SKIPPED", "pod-nic-affinity", {
          checks: `Whether the pod's ${given.length} RDMA NIC(s) sit near its GPUs`,
          why: "nvidia-smi listed no GPU here, so which GPUs this pod was given is not known",
          fix: "Run `nvidia-smi topo -m` in the pod: each GPU should have one of the pod's NICs at PIX or PXB.",
        }),
      ];
    }
    const givenNames = new Set(given.map((h) => h.name));
    const dataNames = new Set(data.map((h) => h.name));
    const out: Finding[] = [];
    for (const gpu of inv.gpus) {
      const paths = inv.paths.filter((p) => p.gpu === gpu.index && dataNames.has(p.hca));
      const nodeNear = paths.filter((p) => RANK[p.distance] <= NEAR);
      if (nodeNear.length === 0) continue; // GPU_NO_NEAR_NIC: the node itself has none.
      const mine = paths.filter((p) => givenNames.has(p.hca)).sort((a, b) => RANK[a.distance] - RANK[b.distance]);
      if (mine.length === 0 || RANK[mine[0]!.distance] <= NEAR) continue;
      out.push(
        finding("POD_NIC_NOT_NEAR_GPU", gpuSubject(gpu), {
          busId: gpu.pciAddress,
          nearOnNode: nodeNear.map((p) => `${p.hca} (${p.distance})`).join(", "),
          given: given.map((h) => h.name).join(", "),
          nearestGiven: mine[0]!.hca,
          distance: mine[0]!.distance,
        }),
      );
    }
    return out;
  },
};

/** Words for GPU findings: count, model, PCIe link, memory health, distance to the NICs. */
import { defineCatalogue } from "../core/finding.js";

export type PcieEvidence = {
  busId: string;
  source: "nvidia-smi" | "sysfs";
  currentWidth: number | null;
  maxWidth: number | null;
  currentGen: number | null;
  maxGen: number | null;
  widthDegraded: boolean;
};

const gen = (g: number | null) => (g === null ? "Gen?" : `Gen${g}`);
const width = (w: number | null) => (w === null ? "x?" : `x${w}`);

export const GPU_CATALOGUE = defineCatalogue({
  GPU_COUNT: {
    severity: "error",
    title: "GPU count",
    message: (e: { found: number; expected: number | null }) =>
      e.expected === null
        ? "nvidia-smi answered but lists no GPU."
        : `nvidia-smi lists ${e.found} GPU(s), expected ${e.expected} (--expect-gpus ${e.expected}).`,
    fix: () =>
      "Compare with `lspci -d 10de:`: a GPU on PCIe but missing from nvidia-smi fell off the bus (`dmesg -T | grep -i " +
      "xid`); drain the node and reboot, reseat or RMA it. If the count is right, fix --expect-gpus.",
  },
  GPU_EXCLUDED: {
    severity: "warning",
    title: "A GPU the NVIDIA driver excludes",
    message: (_e: Record<string, never>, subject: string) =>
      `The NVIDIA driver excludes the GPU at ${subject} (GPU Excluded: Yes in /proc/driver/nvidia/gpus/${subject}/` +
      "information): nvidia-smi does not list it and no process can use it, so this node serves one GPU fewer than " +
      "it carries.",
    fix: () =>
      "If it should serve: remove it from NVreg_ExcludedGpus (`grep -r ExcludedGpus /etc/modprobe.d`) and reload the " +
      "NVIDIA driver or reboot. If it was excluded for a fault, keep it so, label the node for its real GPU count, " +
      "and follow the hardware procedure (`dmesg -T | grep -i xid`).",
  },
  GPU_MODEL: {
    severity: "error",
    title: "GPU model",
    message: (e: { name: string; expected: string; busId: string }, subject: string) =>
      `${subject} (${e.busId}) is "${e.name}", which does not contain the expected "${e.expected}".`,
    fix: () =>
      "Check the node's instance type and labels and schedule the job on the right GPU pool, or correct " +
      "--expect-gpu-model.",
  },
  GPU_PCIE_DEGRADED: {
    severity: "error",
    title: "GPU PCIe link degraded",
    message: (e: PcieEvidence, subject: string) =>
      e.widthDegraded
        ? `${subject} (${e.busId}) trained at PCIe ${width(e.currentWidth)} of ${width(e.maxWidth)} ` +
          `(${gen(e.currentGen)} of ${gen(e.maxGen)}, from ${e.source}): host↔GPU and GPUDirect traffic through this ` +
          "link get a fraction of its bandwidth."
        : `${subject} (${e.busId}) runs PCIe ${gen(e.currentGen)} of ${gen(e.maxGen)} at full width ` +
          `${width(e.currentWidth)} (from ${e.source}). GPUs lower the link generation when idle to save power, so ` +
          "this is expected at rest; it matters only if it stays low under load.",
    fix: (e: PcieEvidence, subject: string) =>
      e.widthDegraded
        ? `Check the trained link (\`lspci -vv -s ${e.busId} | grep -E 'LnkCap|LnkSta'\`); reseat the GPU/riser or ` +
          "reboot to retrain; if it stays narrow, RMA the board or the baseboard slot."
        : `Look again under load: \`nvidia-smi -q -d PCIE -i ${subject.replace(/^GPU/, "")}\` while a job runs.`,
  },
  GPU_ROW_REMAP: {
    severity: "error",
    title: "GPU memory row remapping",
    message: (
      e: { busId: string; pending: boolean; failure: boolean; uncorrectable: number; correctable: number },
      subject: string,
    ) =>
      e.failure
        ? `${subject} (${e.busId}) reports a row-remapping failure: it ran out of spare memory rows ` +
          `(${e.uncorrectable} rows remapped for uncorrectable errors); its memory can no longer be trusted.`
        : `${subject} (${e.busId}) has a pending row remap (${e.uncorrectable} uncorrectable, ${e.correctable} ` +
          "correctable rows): the remap takes effect only after a GPU reset; until then jobs may hit the faulty rows.",
    fix: (e: { failure: boolean }, subject: string) =>
      e.failure
        ? "Drain the node and RMA the GPU (attach `nvidia-bug-report.sh`)."
        : `Drain the node, then reset the GPU (\`nvidia-smi -r -i ${subject.replace(/^GPU/, "")}\`) or reboot; ` +
          `check it cleared with \`nvidia-smi -q -d ROW_REMAPPER -i ${subject.replace(/^GPU/, "")}\`.`,
  },
  GPU_ECC_UNCORRECTABLE: {
    severity: "error",
    title: "Uncorrectable ECC errors",
    message: (e: { busId: string; volatile: number | null; aggregate: number | null }, subject: string) =>
      (e.volatile ?? 0) > 0
        ? `${subject} (${e.busId}) counted ${e.volatile} uncorrectable ECC error(s) since the driver loaded: running ` +
          "jobs on it crash (Xid 48/94/95) or compute on corrupted memory."
        : `${subject} (${e.busId}) counted ${e.aggregate} uncorrectable ECC error(s) over its lifetime (none since ` +
          "the driver loaded): watch it.",
    fix: (_e: unknown, subject: string) =>
      `Inspect \`nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT -i ${subject.replace(/^GPU/, "")}\`; drain and ` +
      "reset the GPU (row remaps and page retirements apply at reset); recurring errors mean RMA.",
  },
  GPU_RETIRED_PAGES_PENDING: {
    severity: "error",
    title: "Retired pages pending",
    message: (e: { busId: string }, subject: string) =>
      `${subject} (${e.busId}) has retired memory pages pending: they are taken out of use only after a GPU reset.`,
    fix: (_e: unknown, subject: string) =>
      `Drain the node and reset the GPU (\`nvidia-smi -r -i ${subject.replace(/^GPU/, "")}\`) or reboot.`,
  },
  GPU_NO_NEAR_NIC: {
    severity: "warning",
    title: "GPU without a near data NIC",
    message: (
      e: { busId: string | null; nearestHca: string; distance: string; nvsmi: string; gpuNuma: number | null },
      subject: string,
    ) =>
      `${subject}${e.busId === null ? "" : ` (${e.busId}${e.gpuNuma === null ? "" : `, NUMA ${e.gpuNuma}`})`} has no data NIC at PIX or PXB: ` +
      `the nearest is ${e.nearestHca} at ${e.distance}${e.nvsmi !== e.distance ? ` (nvidia-smi: ${e.nvsmi})` : ""}. ` +
      "Beyond NCCL's default NCCL_NET_GDR_LEVEL=PXB this GPU does not use GPUDirect RDMA to that NIC directly; NCCL " +
      "2.12 and later (PXN) move its traffic over NVLink to a GPU near a NIC, so on NVLink servers the cost is small.",
    fix: () =>
      "Check the layout with `nvidia-smi topo -m`: on a server built with GPUs and NICs under shared PCIe switches, " +
      "re-slot the card or fix the BIOS PCIe settings. On a server without NVLink, measure nccl-tests with " +
      "NCCL_NET_GDR_LEVEL=PHB (kube-rdma nccl-env --raise-gdr-level); across sockets (SYS) it is usually slower.",
  },
  // The device-plugin API tells GetPreferredAllocation the available and must-include IDs and the size only
  // (https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/device-plugins/); the Topology Manager
  // aligns devices of several plugins by NUMA node with the single-numa-node or restricted policy
  // (https://kubernetes.io/docs/tasks/administer-cluster/topology-manager/).
  POD_NIC_NOT_NEAR_GPU: {
    severity: "warning",
    title: "The pod's RDMA NICs are not near its GPU",
    message: (
      e: { busId: string; nearOnNode: string; given: string; nearestGiven: string; distance: string },
      subject: string,
    ) =>
      `${subject} (${e.busId}) of this pod has ${e.nearOnNode} near it on the node, but the pod was given ` +
      `${e.given}: the nearest of those, ${e.nearestGiven}, is at ${e.distance}, beyond NCCL's default ` +
      "NCCL_NET_GDR_LEVEL (PXB), so this GPU's RDMA traffic crosses the CPU instead of its PCIe switch. A device " +
      "plugin is not told which GPUs a pod got; only the kubelet's Topology Manager aligns them, by NUMA node.",
    fix: () =>
      "Align the allocation: set the kubelet's Topology Manager to `topologyManagerPolicy: single-numa-node` (or " +
      "`restricted`) with `topologyManagerScope: pod`, so GPUs and RDMA HCAs of a pod come from one NUMA node; or " +
      "request every GPU and HCA of the node per pod; or allocate both with DRA and a shared PCIe-root constraint. " +
      "Rerun `kube-rdma preflight` in the new pod.",
  },
  // NVML: the fabric state must be checked for `Completed` and then the status for `Success`
  // (https://docs.nvidia.com/deploy/nvml-api/structnvmlGpuFabricInfo__v2__t.html); until then CUDA does not start on
  // an NVSwitch system (Fabric Manager user guide: cudaErrorSystemNotReady, "system not yet initialized").
  NVSWITCH_FABRIC_NOT_READY: {
    severity: "error",
    title: "NVSwitch fabric not set up",
    message: (e: { gpus: string; state: string; status: string | null; switches: number }) =>
      `${e.gpus} report NVLink Fabric State "${e.state}"${e.status === null ? "" : `, Status "${e.status}"`} ` +
      `(nvidia-smi -q) on a board with ${e.switches} NVSwitch(es): the GPUs are not registered with the NVSwitch ` +
      'fabric, so CUDA fails to start ("system not yet initialized") or the GPUs cannot reach each other over NVLink.',
    fix: () =>
      "Check the Fabric Manager on the host: `systemctl status nvidia-fabricmanager` and " +
      "`journalctl -u nvidia-fabricmanager`; its version must equal the driver's (`nvidia-smi -q | grep 'Driver Version'`). " +
      "Restart it, or drain the node and reboot; `nvidia-smi -q | grep -A2 Fabric` must show Completed / Success.",
  },
  NVLINK_INACTIVE: {
    severity: "error",
    title: "NVLink links inactive",
    message: (e: { inactive: number[]; links: number; name: string }, subject: string) =>
      `${subject} (${e.name}) has ${e.inactive.length} of its ${e.links} NVLink links inactive ` +
      `(link${e.inactive.length === 1 ? "" : "s"} ${e.inactive.join(", ")} in \`nvidia-smi nvlink -s\`): ` +
      "its NVLink bandwidth to the other GPUs drops by as much, and NCCL's intra-node rings and all-to-all slow the whole job.",
    fix: (_e: unknown, subject: string) =>
      `See the link errors with \`nvidia-smi nvlink -e -i ${subject.replace(/^GPU/, "")}\` and \`dmesg -T | grep -i xid\`; ` +
      "drain the node, reset the GPUs or reboot, and if the link stays down follow the vendor's hardware procedure.",
  },
  // nvidia-smi -q "Clocks Event Reasons" (driver 535 and earlier "Clocks Throttle Reasons"; XML <clocks_event_reasons>):
  // https://docs.nvidia.com/deploy/nvidia-smi/index.html. Idle and application-clock settings are not faults.
  GPU_CLOCKS_THROTTLED: {
    severity: "warning",
    title: "GPU clocks held down",
    message: (e: { reasons: string[] }, subject: string) =>
      `${subject} reports clock event reason(s) ${e.reasons.join(", ")} as Active (nvidia-smi -q, Clocks Event ` +
      "Reasons): its clocks are held below what it can run, so it finishes its share of each step late and every " +
      "collective waits for it.",
    fix: (_e: unknown, subject: string) =>
      `Look at \`nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i ${subject.replace(/^GPU/, "")}\`: thermal slowdown ` +
      "means cooling (fans, airflow, inlet temperature); power cap or power brake means the power limit or the " +
      "chassis power supply (`nvidia-smi -q -d POWER`); HW slowdown with neither asks for the BMC's event log.",
  },
});

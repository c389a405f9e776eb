import { REPORT_OUTPUT_OPTION, SOURCE_OPTIONS, STRICT_OPTION, VM_HOST_OPTION } from "../shared-options.js";
import { inventoriesFromFlags, inventoryFromFlags } from "../source.js";
import { type CommandSpec, num, UsageError } from "../spec.js";
import { checkOptionsFromFlags, writeVerifyReport } from "../verify-output.js";

export const command: CommandSpec = {
  name: "verify",
  noArguments: {
    hint: "It checks this host (or --root DIR, --snapshot FILE, --example NAME); for another node run `kube-rdma collect -o node.json` there and `verify --snapshot node.json`, or `kube-rdma fleet verify --node NAME`.",
  },
  summary: "Check an RDMA GPU node: OFED, driver, GPUs, HCAs, ports, GIDs, GPUDirect, pod limits",
  usage: "kube-rdma verify [--root DIR | --snapshot FILE | --example NAME] [--pod] [--expect-gpus N] [-o FORMAT]",
  description: `
Automates the usual RDMA host checks (ofed_info -s, nvidia-smi, show_gids) and goes deeper: OFED or inbox rdma-core,
and whether the kernel runs the installed OFED's mlx5 driver (or a driver container's); the NVIDIA driver answers;
GPU count, model (named by the kernel module where nvidia-smi cannot run), PCIe link, memory health (ECC, row
remapping) and GPUs the driver excludes; at least one data HCA with /dev/infiniband/uverbs*, its PCIe link trained
at full width and speed; every data port ACTIVE/LinkUp at the same rate and RoCE MTU; a RoCE v2 GID with an IPv4 or
global IPv6 address on every RoCE data port, at the same index on every HCA (else one NCCL_IB_GID_INDEX cannot
work); holes in GID tables; firmware consistency; GPUDirect (nvidia_peermem or DMA-BUF) and a data NIC at PIX/PXB
for each GPU; error counters; PCIe ACS on the switch ports between GPUs and NICs (needs root), the IOMMU mode,
ECN/PFC for the priority NCCL's RoCE traffic uses, alike on every data NIC. With --watch SECONDS it reads the
host twice and names ports that flapped in between. With --pod it also checks what a training container needs: memlock unlimited,
IPC_LOCK, /dev/shm size.

The management NIC (the one carrying the default route, mlx5_0 on eth0 on the A100 RoCE example node) is told apart from the data
NICs. Every finding names its subject, the evidence and the command that fixes it.

Exit codes: 0 no errors (warnings allowed), 1 errors found (or warnings with --strict), 2 could not run.`,
  options: [
    ...SOURCE_OPTIONS,
    REPORT_OUTPUT_OPTION,
    STRICT_OPTION,
    { name: "pod", type: "boolean", description: "Also check a container's limits: memlock, IPC_LOCK, /dev/shm" },
    { name: "expect-gpus", type: "number", valueName: "N", description: "Number of GPUs the node must have" },
    {
      name: "expect-gpu-model",
      type: "string",
      valueName: "TEXT",
      description: "Text every GPU name must contain (case-insensitive), e.g. A100-SXM4-80GB",
    },
    VM_HOST_OPTION,
    {
      name: "shm-min",
      type: "string",
      valueName: "SIZE",
      default: "1Gi",
      description: "Smallest acceptable /dev/shm with --pod (1Gi, 512Mi, bytes)",
    },
    {
      name: "watch",
      type: "number",
      valueName: "SECONDS",
      description:
        "Read the host twice, SECONDS apart, and report ports whose link went down meanwhile (PORT_FLAPPING)",
    },
  ],
  examples: [
    ["kube-rdma verify --example a100-8x-roce", "verify the A100 RoCE example node (8×A100 + 9×mlx5)"],
    ["kube-rdma verify --expect-gpus 8 --expect-gpu-model A100", "verify this host and its GPUs"],
    ["kube-rdma verify --root /host -o json", "verify the host mounted at /host (DaemonSet pod), as JSON"],
    ["kube-rdma verify --pod --shm-min 8Gi", "inside a training pod: also memlock, IPC_LOCK and /dev/shm"],
    ["kube-rdma verify --snapshot node7.json --strict", "replay a collected snapshot; warnings fail too"],
    ["kube-rdma verify --watch 60", "also watch the data ports' link_downed / link_error_recovery for a minute"],
  ],
  async run({ values, io }) {
    const opts = checkOptionsFromFlags(values);
    const watch = num(values, "watch");
    if (watch === undefined) return writeVerifyReport(await inventoryFromFlags(values), opts, values, io);
    if (!(watch > 0 && watch <= 3600)) {
      throw new UsageError(`--watch expects a number of seconds between 0 and 3600; got ${watch}.`);
    }
    const { before, after } = await inventoriesFromFlags(values, watch);
    return writeVerifyReport(after, { ...opts, earlier: { inventory: before, seconds: watch } }, values, io);
  },
};

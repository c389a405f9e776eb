import { OUTPUT_OPTION, SOURCE_OPTIONS, STRICT_OPTION } from "../shared-options.js";
import { inventoryFromFlags } from "../source.js";
import type { CommandSpec } from "../spec.js";
import { checkOptionsFromFlags, writeVerifyReport } from "../verify-output.js";

export const command: CommandSpec = {
  name: "verify",
  summary: "Check an RDMA GPU node: OFED, driver, GPUs, HCAs, ports, GIDs, GPUDirect, pod limits",
  usage: "kube-rdma verify [--root DIR | --snapshot FILE | --example NAME] [--pod] [--expect-gpus N] [-o FORMAT]",
  description: `
Automates the Baidu CCE reference setup's host checks (ofed_info -s, nvidia-smi, show_gids) and goes deeper: OFED or inbox rdma-core;
the NVIDIA driver answers; GPU count, model, PCIe link and memory health (ECC, row remapping); at least one data
HCA with /dev/infiniband/uverbs*; every data port ACTIVE/LinkUp at the same rate; a RoCE v2 GID with an IPv4 or
global IPv6 address on every RoCE data port, at the same index on every HCA (else one NCCL_IB_GID_INDEX cannot
work); holes in GID tables; firmware consistency; GPUDirect (nvidia_peermem or DMA-BUF) and a data NIC at PIX/PXB
for each GPU; error counters. With --pod it also checks what a training container needs: memlock unlimited,
IPC_LOCK, /dev/shm size.

The management NIC (the one carrying the default route, mlx5_0 on eth0 on the A100 RoCE example node) is told apart from the data
NICs. Every finding names its subject, the evidence and the command that fixes it.

Exit codes: 0 no errors (warnings allowed), 1 errors found (or warnings with --strict), 2 could not run.`,
  options: [
    ...SOURCE_OPTIONS,
    OUTPUT_OPTION,
    STRICT_OPTION,
    { name: "pod", type: "boolean", description: "Also check a container's limits: memlock, IPC_LOCK, /dev/shm" },
    { name: "expect-gpus", type: "number", valueName: "N", description: "Number of GPUs the node must have" },
    {
      name: "expect-gpu-model",
      type: "string",
      valueName: "TEXT",
      description: "Text every GPU name must contain (case-insensitive), e.g. A100-SXM4-80GB",
    },
    {
      name: "shm-min",
      type: "string",
      valueName: "SIZE",
      default: "1Gi",
      description: "Smallest acceptable /dev/shm with --pod (1Gi, 512Mi, bytes)",
    },
  ],
  examples: [
    ["kube-rdma verify --example a100-8x-roce-seed", "verify the A100 RoCE example node (8×A100 + 9×mlx5)"],
    ["kube-rdma verify --expect-gpus 8 --expect-gpu-model A100", "verify this host and its GPUs"],
    ["kube-rdma verify --root /host -o json", "verify the host mounted at /host (DaemonSet pod), as JSON"],
    ["kube-rdma verify --pod --shm-min 8Gi", "inside a training pod: also memlock, IPC_LOCK and /dev/shm"],
    ["kube-rdma verify --snapshot node7.json --strict", "replay a collected snapshot; warnings fail too"],
  ],
  async run({ values, io }) {
    const opts = checkOptionsFromFlags(values);
    const inv = await inventoryFromFlags(values);
    return writeVerifyReport(inv, opts, values, io);
  },
};

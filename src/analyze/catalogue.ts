import { defineCatalogue, type FindingSpec } from "../core/finding.js";

type Spec<E> = FindingSpec<E>;

const portPhrase = (e: { port: number }) => (e.port === 1 ? "port 1" : `port ${e.port}`);

/**
 * Findings `analyze` draws from pasted captures. Codes shared with `verify` (docs/CONTRACTS.md) keep the same
 * meaning: PORT_DOWN, RATE_MISMATCH, NO_ROCEV2_GID, GID_INDEX_DIFFERS, GID_TABLE_SPARSE, GPU_NO_NEAR_NIC, …
 */
export const ANALYZE_CATALOGUE = defineCatalogue({
  NO_ROCEV2_GID: {
    severity: "error",
    title: "RoCE device without a RoCE v2 IPv4/IPv6 GID",
    message: (e, s) =>
      `${s}${e.netdev ? ` (${e.netdev})` : ""} has no RoCE v2 GID with an IPv4 or global IPv6 address` +
      (e.linkLocalOnly ? ": only link-local (fe80::) GIDs." : "."),
    fix: (e) =>
      `Give ${e.netdev ?? "its netdev"} an IP address (check \`ip addr show ${e.netdev ?? "<netdev>"}\` and the CNI/netplan ` +
      "config); NCCL over RoCE v2 needs one. Until then exclude the HCA from NCCL_IB_HCA.",
  } satisfies Spec<{ netdev: string | null; linkLocalOnly: boolean }>,
  GID_LINK_LOCAL_ONLY: {
    severity: "info",
    title: "Link-local GIDs only (management NIC)",
    message: (e, s) =>
      `${s}${e.netdev ? ` (${e.netdev})` : ""}, the management NIC, holds only link-local fe80:: GIDs: fine for TCP ` +
      "bootstrap, but it cannot carry routable RoCE v2 traffic.",
    fix: (e) => `Nothing to do unless it should carry RDMA; then give ${e.netdev ?? "its netdev"} an IP address.`,
  } satisfies Spec<{ netdev: string | null }>,
  GID_INDEX_UNIFORM: {
    severity: "info",
    title: "RoCE v2 IPv4 GID index is uniform",
    message: (e) => `RoCE v2 IPv4 GIDs sit at index ${e.index} on all ${e.devices} RoCE devices.`,
    fix: (e) =>
      `NCCL ≥ 2.21 selects it by itself (leave NCCL_IB_GID_INDEX unset); older NCCL needs NCCL_IB_GID_INDEX=${e.index}.`,
  } satisfies Spec<{ index: number; devices: number }>,
  GID_TABLE_SPARSE: {
    severity: "warning",
    title: "Holes in the GID table",
    message: (e, s) =>
      e.devices.length > 1
        ? `The GID tables of ${e.devices.join(", ")} have empty slots before used ones (indices ${e.indices.join(", ")} in use).`
        : `${s}'s GID table has empty slots before used ones (indices ${e.indices.join(", ")} in use).`,
    fix: () =>
      "Holes appear after addresses are removed or links flap while a GID is referenced; a fixed NCCL_IB_GID_INDEX " +
      "may point at the wrong slot. Prefer NCCL ≥ 2.21 auto-selection, or re-apply the addresses to compact the table.",
  } satisfies Spec<{ indices: number[]; devices: string[] }>,
  GID_TABLE_EMPTY: {
    severity: "error",
    title: "No GIDs at all",
    message: () => "The capture lists no GID at all (n_gids_found=0 or no rows).",
    fix: () => "Check that the RDMA devices exist (`ibv_devinfo`) and their netdevs are up with IP addresses.",
  } satisfies Spec<Record<string, never>>,
  PORT_DOWN: {
    severity: "error",
    title: "RDMA port not ACTIVE",
    message: (e, s) =>
      `${s} ${portPhrase(e)} is ${e.state}${e.physState ? ` (${e.physState})` : ""}${e.netdev ? `; ${e.netdev} is ${e.link}` : ""}.`,
    fix: (e, s) =>
      `Check the cable/transceiver and switch port of ${s}` +
      (e.netdev ? ` and bring ${e.netdev} up (\`ip link set ${e.netdev} up\`)` : "") +
      "; NCCL only uses ACTIVE ports, so this HCA's rail is lost.",
  } satisfies Spec<{
    port: number;
    state: string;
    physState: string | null;
    netdev: string | null;
    link: string | null;
  }>,
  PORT_NOT_LINKUP: {
    severity: "error",
    title: "Physical link not LinkUp",
    message: (e, s) => `${s} ${portPhrase(e)} is ${e.state} but its physical state is ${e.physState}.`,
    fix: (_e, s) =>
      `Check the cable, transceiver and switch port of ${s}; \`mlxlink -d ${s}\` shows why the link is not up.`,
  } satisfies Spec<{ port: number; state: string; physState: string }>,
  RATE_MISMATCH: {
    severity: "error",
    title: "Port rate differs",
    message: (e, s) =>
      `${s} ${portPhrase(e)} runs at ${e.rateGbps} Gb/s, the other ports at ${e.usual} Gb/s` +
      (e.management
        ? e.named
          ? " (the management NIC, per the node model)."
          : " (likely the management NIC, which is usually slower)."
        : "."),
    fix: (e, s) =>
      e.management
        ? `Nothing to do if ${s} is the management/bootstrap NIC; keep it out of NCCL_IB_HCA.`
        : `A port at reduced rate slows every collective to its speed: check the cable/transceiver and the switch ` +
          `port's speed (\`mlxlink -d ${s}\`), then reseat or replace.`,
  } satisfies Spec<{ port: number; rateGbps: number; usual: number; management: boolean; named: boolean }>,
  MTU_MISMATCH: {
    severity: "warning",
    title: "Active MTU lower than on the other ports",
    message: (e, s) =>
      `${s} port ${e.port} runs with an active MTU of ${e.activeMtu}, the other data ports ${e.usual}.`,
    fix: (_e, s) =>
      `On RoCE the active MTU follows the netdev's MTU (1500 → 1024, 4200/9000 → 4096): set the same MTU on ${s}'s ` +
      "netdev as on the others (and on its switch port); smaller packets cost bandwidth on that rail.",
  } satisfies Spec<{ port: number; activeMtu: number; usual: number }>,
  FW_MISMATCH: {
    severity: "warning",
    title: "Firmware differs between identical HCAs",
    message: (e, s) => `${s} runs firmware ${e.fwVer}; the other ${e.partId} HCAs run ${e.usual}.`,
    fix: (_e, s) => `Update ${s} to the same firmware (mlxfwmanager / mstflint) so every rail behaves the same.`,
  } satisfies Spec<{ fwVer: string; usual: string; partId: string }>,
  NO_RDMA_HCA: {
    severity: "error",
    title: "No RDMA device",
    message: () => "The tool found no RDMA device (`No IB devices found`).",
    fix: () =>
      "Load the drivers (`modprobe mlx5_ib`), install rdma-core/OFED, and in a pod request the RDMA resource " +
      "(rdma/hca) so /dev/infiniband is mounted.",
  } satisfies Spec<Record<string, never>>,
  GPU_NO_NEAR_NIC: {
    severity: "warning",
    title: "GPU without a NIC at PIX/PXB",
    message: (e, s) =>
      `${s}'s nearest NIC is ${e.nic} at ${e.level}` +
      (e.level === "NODE" ? " (NCCL sees NODE as PHB)" : "") +
      ": beyond NCCL's default NCCL_NET_GDR_LEVEL=PXB, so GPUDirect RDMA is off for it.",
    fix: (_e, s) =>
      `Put a data NIC under the same PCIe switch as ${s}, or accept the host-memory bounce; forcing ` +
      "NCCL_NET_GDR_LEVEL=PHB/SYS enables GDR across the CPU, which is often slower.",
  } satisfies Spec<{ nic: string; level: string }>,
  TOPO_NO_NIC: {
    severity: "info",
    title: "No NIC in the topology",
    message: () => "The matrix has no NIC columns: nvidia-smi saw no RDMA NIC.",
    fix: () => "Check that the mlx5 drivers are loaded (`ibv_devinfo`); nvidia-smi lists only NICs it can see.",
  } satisfies Spec<Record<string, never>>,
  GPU_ERR_STATE: {
    severity: "error",
    title: "GPU reports ERR!",
    message: (e, s) =>
      e.columns.length > 0
        ? `${s} (${e.busId}) prints ERR! in ${e.columns.join(", ")}.`
        : `${s}: nvidia-smi could not open this GPU ("${e.message}").`,
    fix: () =>
      "Check `dmesg | grep -i xid` and `nvidia-smi -q`; an ERR! GPU usually needs a reset or drain and RMA. Take the node " +
      "out of scheduling until it is fixed.",
  } satisfies Spec<{ busId: string | null; columns: string[]; message: string }>,
  GPU_PCIE_DEGRADED: {
    severity: "error",
    title: "GPU PCIe link narrower than it can be",
    message: (e, s) => `${s} (${e.busId}) trained at PCIe x${e.current} of x${e.max}.`,
    fix: () =>
      "A narrow link halves host↔GPU and GPUDirect bandwidth: reseat the GPU/riser, check `lspci -vv` LnkSta, and " +
      "report it to the vendor if it persists after a reboot.",
  } satisfies Spec<{ busId: string; current: number; max: number }>,
  GPU_COUNT: {
    severity: "error",
    title: "GPU count",
    message: (e) => `${e.found} GPU(s) listed, ${e.expected} expected.`,
    fix: (e) =>
      e.found < e.expected
        ? "A missing GPU fell off the bus or is hidden (CUDA_VISIBLE_DEVICES, MIG, a failed driver load): check `dmesg | grep -i xid` and `lspci | grep -i nvidia`."
        : "Check --expect-gpus.",
  } satisfies Spec<{ found: number; expected: number }>,
  GPU_MODEL_MIXED: {
    severity: "warning",
    title: "Different GPU models",
    message: (e) => `The GPUs are not all the same model: ${e.models.join(", ")}.`,
    fix: () => "Mixed models run collectives at the slowest GPU's pace; check the node was built as intended.",
  } satisfies Spec<{ models: string[] }>,
  OFED_ABSENT: {
    severity: "info",
    title: "No MLNX_OFED / DOCA-OFED",
    message: () => "ofed_info is not installed: the node uses the distribution's inbox rdma-core.",
    fix: () =>
      "Inbox rdma-core is enough for NCCL over RDMA; install DOCA-OFED only if you need its tools (show_gids, " +
      "ibdev2netdev) or features. `kube-rdma gids` replaces show_gids.",
  } satisfies Spec<Record<string, never>>,
  NO_GPU: {
    severity: "error",
    title: "No GPU",
    message: () => "nvidia-smi found no GPU (`No devices were found`).",
    fix: () => "Check `lspci | grep -i nvidia` and `dmesg | grep -i nvrm`; in a pod, request nvidia.com/gpu.",
  } satisfies Spec<Record<string, never>>,
  PFC_NONE: {
    severity: "warning",
    title: "PFC enabled on no priority",
    message: () =>
      "mlnx_qos shows PFC enabled on no priority: RoCE traffic is lossy, so congestion drops packets and NCCL " +
      "retransmits (unless the fabric is built for lossy RoCE with ECN alone).",
    fix: () =>
      "Enable PFC on the fabric's RoCE priority, matching the switches (`mlnx_qos -i IF --pfc 0,0,0,1,0,0,0,0` for " +
      "priority 3) with `--trust dscp`; then `kube-rdma verify` checks every data NIC.",
  } satisfies Spec<Record<string, never>>,
});

export type AnalyzeCode = keyof typeof ANALYZE_CATALOGUE;

import { defineCatalogue } from "../core/finding.js";

/** Findings of `nccl-env` (deriveNcclEnv). Words live here once; rules supply evidence. */
export const NCCL_ENV_FINDINGS = defineCatalogue({
  NCCL_NO_DATA_HCA: {
    severity: "error",
    title: "No data HCA for NCCL",
    message: (e: { skipped: string[] }) =>
      `No RDMA HCA with an active port is left for NCCL_IB_HCA${e.skipped.length ? ` (skipped: ${e.skipped.join(", ")})` : ""}; NCCL would fall back to TCP sockets.`,
    fix: () =>
      "Bring the data ports up (ibv_devinfo shows PORT_ACTIVE), or check that the pod sees /dev/infiniband; then run `kube-rdma verify`.",
  },
  NCCL_HCA_SKIPPED: {
    severity: "info",
    title: "HCA left out of NCCL_IB_HCA",
    message: (e: { why: string }, s) => `${s} is not in NCCL_IB_HCA: ${e.why}.`,
    fix: (e: { fix: string }) => e.fix,
  },
  NCCL_HCA_UNKNOWN: {
    severity: "warning",
    title: "Requested HCA not on this node",
    message: (_e: Record<string, never>, s) => `${s} was requested but this node has no such RDMA device.`,
    fix: () => "List the devices with `kube-rdma gids` or `ibv_devinfo -l` and request existing names.",
  },
  NCCL_MIXED_LINK_LAYERS: {
    severity: "warning",
    title: "InfiniBand and RoCE HCAs mixed",
    message: (e: { ib: string[]; roce: string[] }) =>
      `The data HCAs mix InfiniBand (${e.ib.join(", ")}) and RoCE (${e.roce.join(", ")}); NCCL refuses to connect incompatible devices.`,
    fix: () => "Select NICs of one link layer with --hcas, or fix the port link layer (mlxconfig LINK_TYPE_P1).",
  },
  NCCL_NO_SOCKET_IF: {
    severity: "warning",
    title: "No default-route interface",
    message: () =>
      "No interface carries the default route, so NCCL_SOCKET_IFNAME cannot be derived; NCCL will guess (it prefers ib*, then anything but docker*/lo/virbr*).",
    fix: () => "Add a default route, or set NCCL_SOCKET_IFNAME yourself to the interface other nodes reach.",
  },
  NCCL_NO_ROCEV2_IPV4_GID: {
    severity: "error",
    title: "Data HCA without a RoCE v2 IPv4 GID",
    message: (_e: { port: number }, s) =>
      `${s} has no RoCE v2 GID with an IPv4 address, so no GID selection can reach it; it is left out of NCCL_IB_HCA.`,
    fix: (_e: { port: number }, s) =>
      `Give ${s}'s netdev its IPv4 address back (ip addr show), then check \`kube-rdma gids\` lists a v2 IPv4 GID for it.`,
  },
  NCCL_GID_NOT_UNIFORM: {
    severity: "warning",
    title: "RoCE v2 IPv4 GID index differs between data HCAs",
    message: (e: { odd: string[]; usual: number | null; indices: Record<string, number> }) =>
      `No single NCCL_IB_GID_INDEX fits all data HCAs: ${e.odd.map((h) => `${h} has its RoCE v2 IPv4 GID at index ${e.indices[h]}`).join(", ")}${e.usual === null ? "" : `, the others at ${e.usual}`}.`,
    fix: () =>
      "Use NCCL ≥ 2.21 with NCCL_IB_ADDR_FAMILY/NCCL_IB_ADDR_RANGE (emitted), or remove the extra addresses so every HCA has the same GID layout.",
  },
  NCCL_GID_NO_CHOICE: {
    severity: "error",
    title: "No GID selection works for this NCCL",
    message: (e: { version: string; odd: string[] }) =>
      `NCCL ${e.version} has no GID auto-selection (it arrived in 2.21) and no single NCCL_IB_GID_INDEX fits all data HCAs (${e.odd.join(", ")} differ).`,
    fix: () =>
      "Upgrade to NCCL ≥ 2.21, or make the GID tables identical (same addresses on every data netdev), or exclude the odd HCAs with --hcas.",
  },
  NCCL_GID_AUTO: {
    severity: "info",
    title: "NCCL selects the GID itself",
    message: (e: { version: string; index: number }) =>
      `NCCL ${e.version} auto-selects the RoCE v2 IPv4 GID (index ${e.index} on every data HCA), so NCCL_IB_GID_INDEX is not set.`,
    fix: () => "Nothing to do; pass an older --nccl-version if jobs may bring NCCL < 2.21.",
  },
  NCCL_GID_NOT_NEEDED: {
    severity: "info",
    title: "InfiniBand: no GID variable",
    message: () =>
      "The data HCAs are InfiniBand: NCCL picks the GID itself (NCCL ≥ 2.22: index 1 when it holds a routable FLID, " +
      "NCCL_IB_ROUTABLE_FLID_GID_INDEX; otherwise index 0), so no GID variable is set.",
    fix: () => "Nothing to do.",
  },
  NCCL_GDR_LEVEL_RAISED: {
    severity: "info",
    title: "GPUDirect RDMA level raised",
    message: (e: { gpus: string[]; level: string }) =>
      `${e.gpus.join(", ")} ${e.gpus.length === 1 ? "reaches its" : "reach their"} nearest data NIC only through the CPU host bridge (${e.level}); NCCL's default level PXB would turn GPUDirect RDMA off there.`,
    fix: () => "NCCL_NET_GDR_LEVEL=PHB is set; if bandwidth drops, compare with NCCL_NET_GDR_LEVEL unset.",
  },
  // NCCL ≥ 2.12 PXN: "NCCL_PXN_DISABLE … PXN allows a GPU to communicate with a NIC on the node through NVLink and
  // then PCI" (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-pxn-disable); the default
  // NCCL_NET_GDR_LEVEL is PXB (same page, NCCL_NET_GDR_LEVEL).
  NCCL_GDR_LEVEL_PHB_POSSIBLE: {
    severity: "info",
    title: "GPUDirect across the host bridge is possible, not set",
    message: (e: { gpus: string[] }) =>
      `${e.gpus.join(", ")} ${e.gpus.length === 1 ? "reaches its" : "reach their"} nearest data NIC only through the CPU host bridge (PHB), beyond NCCL's default NCCL_NET_GDR_LEVEL=PXB. NCCL 2.12 and later send such a GPU's traffic through a GPU near the NIC over NVLink (PXN), which usually keeps GPUDirect; NCCL_NET_GDR_LEVEL is left unset.`,
    fix: () =>
      "Nothing by default. To try GPUDirect across the host bridge, measure nccl-tests with and without NCCL_NET_GDR_LEVEL=PHB (kube-rdma nccl-env --raise-gdr-level sets it).",
  },
  NCCL_GDR_FAR: {
    severity: "warning",
    title: "GPU far from every data NIC",
    message: (e: { gpus: string[] }) =>
      `${e.gpus.join(", ")} ${e.gpus.length === 1 ? "reaches" : "reach"} every data NIC only across CPU sockets (SYS); GPUDirect RDMA stays off there and traffic bounces through host memory.`,
    fix: () =>
      "Put a data NIC on the same PCIe switch or NUMA node as each GPU; NCCL_NET_GDR_LEVEL=SYS is rarely faster.",
  },
  // NCCL_IB_FIFO_TC exists since NCCL 2.22.3: the traffic class of the short credit-return RDMA writes (control
  // messages), so they can ride a high-priority queue (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-fifo-tc).
  NCCL_FIFO_TC_IGNORED: {
    severity: "warning",
    title: "NCCL_IB_FIFO_TC needs NCCL 2.22.3 or later",
    message: (e: { version: string }) =>
      `NCCL ${e.version} does not read NCCL_IB_FIFO_TC (it exists since 2.22.3): its control messages ride NCCL_IB_TC's class with the data.`,
    fix: () => "Use an image with NCCL 2.22.3 or later, or drop --fifo-traffic-class.",
  },
  NCCL_BAD_OPTION: {
    severity: "error",
    title: "Bad nccl-env option",
    message: (e: { option: string; value: string; expected: string }) =>
      `${e.option} "${e.value}" is not valid: expected ${e.expected}.`,
    fix: (e: { option: string }) => `Correct ${e.option}.`,
  },
});

import { defineCatalogue, type FindingSpec } from "../core/finding.js";

type Spec<E> = FindingSpec<E>;

const _portPhrase = (e: { port: number }) => (e.port === 1 ? "port 1" : `port ${e.port}`);

/**
 * Findings only `analyze` draws from pasted captures. A fact `verify` also sees (PORT_DOWN, RATE_MISMATCH,
 * NO_ROCEV2_GID, GID_INDEX_DIFFERS, GPU_ECC_UNCORRECTABLE, …) is written with verify's catalogue entry
 * (src/checks/catalogue.ts), so it has one code, one message and one fix whichever command finds it.
 */
export const ANALYZE_CATALOGUE = defineCatalogue({
  GID_INDEX_UNIFORM: {
    severity: "info",
    title: "RoCE v2 IPv4 GID index is uniform",
    message: (e) => `RoCE v2 IPv4 GIDs sit at index ${e.index} on all ${e.devices} RoCE devices.`,
    fix: (e) =>
      `NCCL ≥ 2.21 selects it by itself (leave NCCL_IB_GID_INDEX unset); older NCCL needs NCCL_IB_GID_INDEX=${e.index}.`,
  } satisfies Spec<{ index: number; devices: number }>,
  EXPECTATION_UNCHECKED: {
    severity: "error",
    title: "An expectation no input could be judged against",
    message: (e) =>
      `${e.flag} was not checked: it judges ${e.wants}, and none of the inputs is one (${e.found.join(", ")}).`,
    fix: (e) => `Pass ${e.wants} as well, or leave out ${e.flag.split(" ")[0]}.`,
  } satisfies Spec<{ flag: string; wants: string; found: string[] }>,
  TOPO_NICS_UNCHECKED: {
    severity: "warning",
    title: "GPU↔NIC paths not checked",
    message: (e) =>
      `The GPU↔NIC paths were not checked: the paste has no header row, so the ${e.columns} column(s) after the GPUs' have no names.`,
    fix: () => "Paste the whole `nvidia-smi topo -m` output, its header row and NIC Legend included.",
  } satisfies Spec<{ columns: number }>,
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
  GPU_MODEL_MIXED: {
    severity: "warning",
    title: "Different GPU models",
    message: (e) => `The GPUs are not all the same model: ${e.models.join(", ")}.`,
    fix: () => "Mixed models run collectives at the slowest GPU's pace; check the node was built as intended.",
  } satisfies Spec<{ models: string[] }>,
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
  // mlx5 ethtool counters: rx_discards_phy = "received packets dropped due to lack of buffers on a physical port … the
  // adapter is congested and cannot absorb the traffic coming from the network"; rx_out_of_buffer = drops for lack of
  // posted receive buffers (NVIDIA, "Understanding mlx5 ethtool Counters",
  // https://enterprise-support.nvidia.com/s/article/understanding-mlx5-ethtool-counters).
  RX_DISCARDS_PHY: {
    severity: "warning",
    title: "The NIC port dropped received packets",
    message: (e: { discards: number; pauseSent: boolean }) =>
      `rx_discards_phy=${e.discards}: the port dropped received packets because its buffer was full (the NIC could ` +
      "not absorb what arrived)" +
      (e.pauseSent
        ? "."
        : ", and no PFC pause frame was sent on any priority: on a lossless RoCE class PFC should have paused the sender instead."),
    fix: () =>
      "Take two captures during a job to see it grow; check that PFC is on for the RoCE priority on this NIC " +
      "(`mlnx_qos -i IF`) and on its switch port, with the same DSCP → priority mapping; then `kube-rdma verify` on the node.",
  } satisfies Spec<{ discards: number; pauseSent: boolean }>,
  // A RoCE v2 packet of 4096 payload bytes carries about 80 bytes of Ethernet, IP, UDP, BTH and ICRC headers (plus
  // preamble and gap): ~98 % of line rate is payload, which a healthy NIC reaches in ib_write_bw at 64 KiB and above
  // (perftest, https://github.com/linux-rdma/perftest). Below 90 % the NIC, its PCIe link, the cable or the switch
  // port is at fault, before NCCL is involved.
  PERFTEST_BELOW_LINE_RATE: {
    severity: "warning",
    title: "perftest bandwidth below the port's line rate",
    message: (e: PerftestEvidence) =>
      `${e.test} on ${e.device}: ${e.averageGbps.toFixed(1)} Gb/s average at ${e.bytes} B, ${Math.round(e.percent)} % ` +
      `of the port's ${e.lineRateGbps} Gb/s (${e.rateFrom}); a healthy NIC reaches about 95 % with 4096-byte MTU` +
      `${e.mtu !== null && e.mtu < 4096 ? ` (this run used MTU ${e.mtu}, which alone costs bandwidth)` : ""}.`,
    fix: (e: PerftestEvidence) =>
      `Check ${e.device} on both ends before running NCCL: its PCIe link (\`kube-rdma verify\`: HCA_PCIE_DEGRADED), ` +
      "port counters and PHY errors (`ethtool -S <netdev>`), the active MTU (`ibv_devinfo -d <hca>`), and the far " +
      "end's NIC; rerun with `-q 4 --report_gbits -s 1048576` to rule out a single-QP limit.",
  } satisfies Spec<PerftestEvidence>,
  PERFTEST_NOT_JUDGED: {
    severity: "info",
    title: "perftest bandwidth not judged against line rate",
    message: (e: { devices: string; why: string }) => `${e.devices}: not judged against line rate, because ${e.why}.`,
    fix: () =>
      "Give the port's rate: `kube-rdma analyze FILE --line-rate 200` (Gb/s), or with the node's model " +
      "(`--snapshot node.json`, `--root /host`); run with 64 KiB or larger messages (`-s 65536` or `-a`).",
  } satisfies Spec<{ devices: string; why: string }>,
});

type PerftestEvidence = {
  test: string;
  device: string;
  averageGbps: number;
  bytes: number;
  lineRateGbps: number;
  percent: number;
  rateFrom: string;
  mtu: number | null;
};

export type AnalyzeCode = keyof typeof ANALYZE_CATALOGUE;

/**
 * Words for the findings read from a RoCE netdev's `ethtool -S` port counters: pause storms, discards on the
 * lossless priority, pause frames on a priority without PFC, the CNP priority, and PHY (link quality) counters.
 * Counter meanings: the kernel's mlx5 counters.rst
 * (https://www.kernel.org/doc/html/latest/networking/device_drivers/ethernet/mellanox/mlx5/counters.html).
 */
import { defineCatalogue, type FindingSpec } from "../core/finding.js";

type Spec<E> = FindingSpec<E>;

type NetdevEvidence = { hca: string; netdev: string; sinceSeconds?: number };

const counterList = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");

const when = (e: { sinceSeconds?: number }) =>
  e.sinceSeconds === undefined
    ? " since the counters were last cleared"
    : ` in the last ${Math.round(e.sinceSeconds)} s`;

type StormEvidence = NetdevEvidence & { errors: number; warnings: number };
type DiscardEvidence = NetdevEvidence & { counters: Record<string, number>; priority: number; pfcOn: boolean | null };
type PausePrioEvidence = NetdevEvidence & {
  pausedPriorities: number[];
  counters: Record<string, number>;
  pfcEnabled: number[];
  priority: number;
};
type CnpEvidence = NetdevEvidence & { cnpPriority: number; from: string; priority: number };
type PhyEvidence = NetdevEvidence & {
  counters: Record<string, number>;
  /** Uncorrected symbol errors per received bit (rx_pcs_symbol_err_phy / rx_bits_phy), when both are counted. */
  postFecBer?: number;
  /** Corrected bits per received bit (rx_corrected_bits_phy / rx_bits_phy), when both are counted. */
  preFecBer?: number;
  /** What pushed it over: `post_fec`, `pre_fec`, `dropped` (CRC/symbol errors without a bit count), `link_down`. */
  reasons: string[];
};

const ber = (x: number) => x.toExponential(1);

export const ETHTOOL_CATALOGUE = defineCatalogue({
  // tx_pause_storm_warning_events: "the device was sending pauses for a long period of time";
  // tx_pause_storm_error_events: "… reaching time out and disabling transmission of pause frames. On the period
  // where pause frames were disabled, drop could have been occurred" (kernel mlx5 counters.rst).
  PAUSE_STORM: {
    severity: "error",
    title: "The NIC sent PFC pause frames for too long (pause storm)",
    message: (e: StormEvidence) =>
      `${e.netdev} (${e.hca}) counted ${e.errors > 0 ? `${e.errors} pause-storm error event(s) (tx_pause_storm_error_events)` : ""}` +
      `${e.errors > 0 && e.warnings > 0 ? " and " : ""}${e.warnings > 0 ? `${e.warnings} pause-storm warning event(s) (tx_pause_storm_warning_events)` : ""}` +
      `${when(e)}: the NIC kept pausing its switch port for a long time because the host did not drain what arrived` +
      (e.errors > 0
        ? "; the watchdog then stopped sending pause frames, so the lossless class dropped packets meanwhile."
        : "; a pause storm blocks the switch port for every flow on that priority and spreads upstream."),
    fix: (e: StormEvidence) =>
      `Find why the host stalls receiving on ${e.netdev} (PCIe errors or a degraded link: \`kube-rdma verify\` PCIe ` +
      "findings, `lspci -vv`; a hung process or driver: `dmesg`); watch the counters grow with " +
      `\`ethtool -S ${e.netdev} | grep pause_storm\` and drain the node if they do.`,
  } satisfies Spec<StormEvidence>,
  // rx_discards_phy: "received packets dropped due to lack of buffers on a physical port"; rx_prio[p]_discards:
  // "packets discarded by device due to lack of receive buffers" (kernel mlx5 counters.rst). On a priority with PFC
  // the port should have paused its link partner before its buffer overflowed.
  LOSSLESS_DISCARDS: {
    severity: "warning",
    title: "The NIC port dropped received packets",
    message: (e: DiscardEvidence) =>
      `${e.netdev} (${e.hca}) dropped received packets for lack of port buffer${when(e)}: ${counterList(e.counters)}. ` +
      (e.pfcOn === true
        ? `NCCL's RoCE traffic uses priority ${e.priority}, which has PFC on: the port should have paused the sender ` +
          "before its buffer filled, so the PFC headroom/buffer settings or the switch's PFC on that priority are wrong."
        : e.pfcOn === false
          ? `NCCL's RoCE traffic uses priority ${e.priority}, which has no PFC here: every such drop costs RDMA a retransmission.`
          : "Each drop on RoCE traffic costs a retransmission."),
    fix: (e: DiscardEvidence) =>
      `Watch the counters grow during a job (\`kube-rdma verify --watch 30\`, \`ethtool -S ${e.netdev} | grep discard\`); ` +
      `if they do, check PFC on priority ${e.priority} on this NIC (\`mlnx_qos -i ${e.netdev}\`) and on its switch port, ` +
      "with the same DSCP → priority mapping, and the NIC's buffer split (`mlnx_qos --buffer_size`).",
  } satisfies Spec<DiscardEvidence>,
  // rx_prio[p]_pause / tx_prio[p]_pause: pause frames received / sent on priority p (kernel mlx5 counters.rst). A
  // switch that pauses a priority this NIC does not treat as lossless has a different lossless priority.
  PAUSE_PRIORITY_MISMATCH: {
    severity: "warning",
    title: "PFC pause frames on a priority without PFC on this NIC",
    message: (e: PausePrioEvidence) =>
      `${e.netdev} (${e.hca}) counted PFC pause frames on priority ${e.pausedPriorities.join(", ")} ` +
      `(${counterList(e.counters)})${when(e)}, but has PFC on ${e.pfcEnabled.length ? `priority ${e.pfcEnabled.join(", ")}` : "no priority"}` +
      ` and NCCL's RoCE traffic uses priority ${e.priority}: the switch (received pauses) or an earlier NIC setting ` +
      "(sent pauses) treats another priority as lossless, so the RoCE class is not protected end to end.",
    fix: (e: PausePrioEvidence) =>
      `Make the lossless priority the same on the switch port and the NIC (\`mlnx_qos -i ${e.netdev}\`, or ` +
      `\`dcb pfc show dev ${e.netdev}\`; the switch's PFC and DSCP → priority map), then clear or watch the counters ` +
      `(\`ethtool -S ${e.netdev} | grep prio\`).`,
  } satisfies Spec<PausePrioEvidence>,
  // DCQCN's notification point sends CNPs to slow the sender; NVIDIA's lossless RoCE setup marks them with their own
  // DSCP (48, cnp_dscp) / 802.1p priority (6, cnp_802p_prio) so they are not queued behind the congested data they
  // report (MLNX_OFED ecn sysfs; DCQCN, Zhu et al., SIGCOMM 2015). The switch side of the same default: switch
  // priority 6 → traffic class 6 (CNP), strict, RoCE data on priority 3 with PFC (NVIDIA Cumulus Linux "Default RoCE
  // Configuration", https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE).
  CNP_SHARES_DATA_PRIORITY: {
    severity: "warning",
    title: "Congestion notifications share the RoCE data priority",
    message: (e: CnpEvidence) =>
      `${e.netdev} (${e.hca}) sends its congestion notification packets (CNPs) on priority ${e.cnpPriority} ` +
      `(${e.from}), the same priority NCCL's RoCE data uses: CNPs then wait in the queues (and behind the pauses) of ` +
      "the congestion they report, so senders slow down late.",
    fix: (e: CnpEvidence) =>
      `Give CNPs their own priority, as on the switches (usually DSCP 48 / priority 6, strict): \`echo 48 > ` +
      `/sys/class/net/${e.netdev}/ecn/roce_np/cnp_dscp\` and \`echo 6 > /sys/class/net/${e.netdev}/ecn/roce_np/cnp_802p_prio\`.`,
  } satisfies Spec<CnpEvidence>,
  // rx_crc_errors_phy, rx_symbol_err_phy: received packets dropped (FCS / coding errors); rx_pcs_symbol_err_phy:
  // symbol errors FEC did not correct ("traffic is lost"); rx_corrected_bits_phy and rx_err_lane_[l]_phy: errors
  // before FEC; link_down_events_phy: link went down (kernel mlx5 counters.rst). Thresholds: after FEC a link is
  // expected to reach a BER of 1e-12 or better, and IEEE 802.3 asks 50G/100G PAM4 lanes for a pre-FEC BER of 2.4e-4
  // or better (Dell, "Mellanox ConnectX-6 Dx: High Corrected Bits on PAM4 NICs",
  // https://www.dell.com/support/kbdoc/en-us/000286734/100-gb-nic; ibdiagnet's BER test threshold is also 1e-12,
  // https://docs.nvidia.com/networking/display/ibdiagnetusermanualv221/Bit+Error+Rate+(BER)).
  PHY_ERRORS: {
    severity: "warning",
    title: "Link errors on a RoCE port (PHY counters)",
    message: (e: PhyEvidence) =>
      `${e.netdev} (${e.hca}): ${counterList(e.counters)}${when(e)}. ` +
      [
        e.reasons.includes("post_fec") && e.postFecBer !== undefined
          ? `Errors left after FEC: ${ber(e.postFecBer)} per bit, above the 1e-12 a healthy link reaches, so packets are lost and RDMA retransmits.`
          : null,
        e.reasons.includes("dropped")
          ? "Received packets were dropped for FCS/symbol errors (each one a retransmission for RDMA)."
          : null,
        e.reasons.includes("pre_fec") && e.preFecBer !== undefined
          ? `Errors before FEC: ${ber(e.preFecBer)} per bit, above the 2.4e-4 IEEE 802.3 allows a PAM4 link: FEC is near its limit.`
          : null,
        e.reasons.includes("link_down") ? "The link went down (link_down_events_phy grew)." : null,
      ]
        .filter((s) => s !== null)
        .join(" "),
    fix: (e: PhyEvidence) =>
      `Watch whether they grow (\`kube-rdma verify --watch 60\`, \`ethtool -S ${e.netdev} | grep -E '_phy'\`); if they ` +
      `do, read the link's BER and module (\`mlxlink -d ${e.hca} -c -m\`), reseat or replace the cable/transceiver, and ` +
      "check the switch port's counters.",
  } satisfies Spec<PhyEvidence>,
});

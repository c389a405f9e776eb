/** The network tools' answers on an example host: `dcb pfc show`, `ethtool -S` and `ip -4 rule show`. */
import type { NicSpec } from "./builder.js";
import type { HostTree } from "./tree.js";

/**
 * What the network tools say: PFC on priority 0 for every RoCE netdev (`dcb pfc show dev IF`, dcb-pfc(8) layout),
 * the priority NCCL's RoCE traffic lands in without NCCL_IB_TC (DSCP 0), as a lossless fabric for the example's
 * NCCL environment has it; and the kernel's three default policy rules (`ip -4 rule show`, ip-rule(8) layout).
 */
export function writeNetworkCommands(t: HostTree, nics: readonly NicSpec[]): void {
  const pfc = "pfc-cap 8 macsec-bypass off delay 0\nprio-pfc 0:on 1:off 2:off 3:off 4:off 5:off 6:off 7:off\n";
  for (const nic of nics) {
    if (nic.linkLayer !== "Ethernet" || !nic.netdev) continue;
    t.command(`dcb pfc show dev ${nic.netdev}`, { exitCode: 0, stdout: pfc, stderr: "" });
    t.command(`ethtool -S ${nic.netdev}`, { exitCode: 0, stdout: healthyEthtoolStats(nic), stderr: "" });
  }
  t.command("ip -4 rule show", {
    exitCode: 0,
    stdout: "0:\tfrom all lookup local\n32766:\tfrom all lookup main\n32767:\tfrom all lookup default\n",
    stderr: "",
  });
}

/**
 * `ethtool -S` of a healthy mlx5 RoCE port three days after boot, in the layout of the kernel's mlx5 counters.rst
 * names (https://www.kernel.org/doc/html/latest/networking/device_drivers/ethernet/mellanox/mlx5/counters.html):
 * a few per-ring lines, the physical-port counters with a pre-FEC error ratio of 1e-9 and nothing left after FEC,
 * and pause frames only on `priority` (0: the example's PFC priority).
 */
export function healthyEthtoolStats(nic: NicSpec, priority = 0): string {
  const up = (nic.state ?? "4: ACTIVE").startsWith("4");
  const bits = up ? Math.round(Number.parseFloat(nic.rate) * 1e9 * 259_200) : 0;
  const packets = up ? 41_873_220_118 : 0;
  const lines: [string, number][] = [
    ["rx_packets", packets],
    ["tx_packets", packets + 1_204],
    ["rx0_packets", Math.round(packets / 64)],
    ["tx0_packets", Math.round(packets / 64)],
    ["ch0_events", 1_873_220],
    ["rx_out_of_buffer", 0],
    ["rx_packets_phy", packets],
    ["tx_packets_phy", packets + 1_204],
    ["rx_crc_errors_phy", 0],
    ["rx_symbol_err_phy", 0],
    ["rx_discards_phy", 0],
    ["tx_discards_phy", 0],
    ["rx_pause_ctrl_phy", 0],
    ["tx_pause_ctrl_phy", 0],
    ["link_down_events_phy", 0],
    ["rx_buffer_passed_thres_phy", up ? 12 : 0],
    ["tx_pause_storm_warning_events", 0],
    ["tx_pause_storm_error_events", 0],
    ["rx_bits_phy", bits],
    ["rx_pcs_symbol_err_phy", 0],
    ["rx_corrected_bits_phy", Math.round(bits * 1e-9)],
    ["rx_err_lane_0_phy", Math.round(bits * 1e-9 * 0.3)],
    ["rx_err_lane_1_phy", Math.round(bits * 1e-9 * 0.7)],
    [`rx_prio${priority}_bytes`, up ? 171_508_709_603_328 : 0],
    [`rx_prio${priority}_packets`, packets],
    [`rx_prio${priority}_discards`, 0],
    [`rx_prio${priority}_pause`, up ? 3_072 : 0],
    [`rx_prio${priority}_pause_duration`, up ? 1_611 : 0],
    [`tx_prio${priority}_pause`, up ? 256 : 0],
    [`tx_prio${priority}_pause_duration`, up ? 131 : 0],
  ];
  return `NIC statistics:\n${lines.map(([k, v]) => `     ${k}: ${v}\n`).join("")}`;
}

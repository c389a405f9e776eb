import { describe, expect, test } from "vitest";
import { detectKind } from "../detect.js";
import { ANALYZERS, analyzeText } from "../index.js";

// Host-tool output pasted without the line that names it. Counter names as drivers print them
// (https://docs.kernel.org/networking/statistics.html); values and host names here are our own.
describe("ethtool -S without its `NIC statistics:` line", () => {
  // Shape seen at https://github.com/ryran/xsos/issues/112: `grep pause` over a sos report's ethtool -S file.
  test("reduced by grep to its pause counters", () => {
    const text = [
      "$ grep pause sos_commands/networking/ethtool_-S_eth3",
      "     rx_pause_frames: 7120",
      "     rx_constant_pause_events: 0",
      "     tx_pause_frames: 3",
    ].join("\n");
    const entry = analyzeText("pause.txt", `${text}\n`);
    expect(entry.kind).toBe("ethtool_stats");
    expect(entry.data).toMatchObject({ rx_pause_frames: 7120, tx_pause_frames: 3 });
  });

  // Shape seen at https://github.com/strizhechenko/netutils-linux/issues/208: be2net counters cut above the totals,
  // with per-queue `rxq0: ` prefixes further down.
  test("cut above the totals, with queue-prefixed counters", () => {
    const text = [
      "     rx_crc_errors: 0",
      "     rx_in_range_errors: 31",
      "     rx_dropped_tcp_length: 1200",
      "     jabber_events: 0",
      "     rxq0: rx_bytes: 9933112",
      "     rxq0: rx_pkts: 88121",
    ].join("\n");
    const entry = analyzeText("be2net.txt", `${text}\n`);
    expect(entry.kind).toBe("ethtool_stats");
    expect(entry.data).toMatchObject({ rx_in_range_errors: 31, rx_dropped_tcp_length: 1200 });
  });

  test("fewer than three direction-named counters are not claimed", () => {
    expect(
      detectKind("    retries: 3\n    timeouts: 0\n    rx_errors: 10\n    tx_errors: 1\n", ANALYZERS).kind,
    ).not.toBe("ethtool_stats");
  });
});

// `ethtool -S` named by its command or header further down a paste: after `ethtool -i` at a prompt (shapes seen at
// https://github.com/isc-projects/ethq/issues/19 and https://github.com/isc-projects/ethq/issues/4), or in an indented
// reStructuredText code block with the command piped to grep
// (https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/_sources/tools/neuron-sys-tools/nccom-test.rst). Our hosts
// and numbers; the command is https://man7.org/linux/man-pages/man8/ethtool.8.html.
describe("ethtool -S named further down a paste", () => {
  const info = ["driver: ixgbe", "version: 5.1.0-k", "bus-info: 0000:3b:00.0", "supports-statistics: yes"];
  test.each([
    ["a user prompt", "dev@rack4-n2:~$ ethtool -S ens2"],
    ["a root prompt", "# ethtool -S ens2"],
  ])("after `ethtool -i` behind %s", (_, command) => {
    const text = [
      "Driver info first:",
      command.replace("-S", "-i"),
      ...info,
      command,
      "NIC statistics:",
      "     rx_packets: 7712",
      "     tx_packets: 6120",
      "     rx_errors: 0",
    ].join("\n");
    const entry = analyzeText("s.txt", `${text}\n`);
    expect(entry.kind).toBe("ethtool_stats");
    expect(entry.data).toMatchObject({ rx_packets: 7712, tx_packets: 6120 });
  });

  test("an indented code block under prose, the command piped to grep", () => {
    const text = [
      "Look at the drops:",
      "",
      ".. code-block::",
      "",
      '    ethtool -S ens9np0 | grep -E "out_of_buffer|discards"',
      "         rx_out_of_buffer: 310",
      "         rx_discards_phy: 2",
      "",
      "Meaning",
      "^^^^^^^",
    ].join("\n");
    const entry = analyzeText("rst.txt", `${text}\n`);
    expect(entry.kind).toBe("ethtool_stats");
    expect(entry.data).toMatchObject({ rx_out_of_buffer: 310, rx_discards_phy: 2 });
  });

  test("the command with fewer than two counters under it is not claimed", () => {
    expect(detectKind("Run this:\n$ ethtool -S eth0\nthen look at rx_crc_errors.\n", ANALYZERS).kind).not.toBe(
      "ethtool_stats",
    );
  });
});

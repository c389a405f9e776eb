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

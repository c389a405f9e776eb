/**
 * The RoCE data netdevs' `ethtool -S` port counters are read and judged: pause storms, discards on the lossless
 * priority, pause frames on a priority without PFC, the CNP priority, and PHY counters; a netdev whose counters
 * cannot be read is a check that could not run. Counter names and meanings: the kernel's mlx5 counters.rst
 * (https://www.kernel.org/doc/html/latest/networking/device_drivers/ethernet/mellanox/mlx5/counters.html). The
 * outputs in fixtures/host-commands/ethtool-S are written in mlx5's layout (seen in
 * https://github.com/isc-projects/ethq/issues/8); the BER limits come from IEEE 802.3 as NVIDIA/Dell state them
 * (pre-FEC 2.4e-4 on PAM4, 1e-12 after FEC: https://www.dell.com/support/kbdoc/en-us/000286734/100-gb-nic).
 */
import { describe, expect, test } from "vitest";
import { fixtureText } from "../../test/support/fixtures.js";
import { buildHost, healthyEthtoolStats } from "../examples/builder.js";
import { seedSpec } from "../examples/seed.js";
import type { HostTree } from "../examples/tree.js";
import { collectSnapshot } from "../host/snapshot.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import type { CommandOutcome } from "../host/types.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { only, problemsOf } from "./testing/expect.js";

const stats = (name: string) => fixtureText("host-commands/ethtool-S", name);
const ok = (stdout: string): Omit<CommandOutcome, "command"> => ({ exitCode: 0, stdout, stderr: "" });

type NodeOptions = {
  /** ethtool -S output per netdev (others: a healthy port at the lossless priority). */
  ethtool?: Record<string, Omit<CommandOutcome, "command">>;
  /** Extra sysfs files. */
  files?: Record<string, string>;
};

/**
 * The A100 RoCE example node set up as a DSCP lossless fabric: every data HCA's global traffic class 106 (DSCP 26,
 * priority 3) and PFC on priority 3 (`dcb pfc show`), so only the counters given decide.
 */
function prio3Tree(opts: NodeOptions): { tree: HostTree; host: string } {
  const spec = seedSpec();
  const t = buildHost(spec);
  const pfc3 = "pfc-cap 8 macsec-bypass off delay 0\nprio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n";
  for (const sw of spec.switches) {
    for (const nic of sw.nics) {
      if (!nic.netdev) continue;
      t.file(`/sys/class/infiniband/${nic.ibdev}/tc/1/traffic_class`, "Global tclass=106\n");
      t.command(`dcb pfc show dev ${nic.netdev}`, ok(pfc3));
      t.command(`ethtool -S ${nic.netdev}`, opts.ethtool?.[nic.netdev] ?? ok(healthyEthtoolStats(nic, 3)));
    }
  }
  for (const [path, text] of Object.entries(opts.files ?? {})) t.file(path, text);
  return { tree: t, host: spec.hostname };
}

async function verifyPrio3(opts: NodeOptions = {}) {
  const { tree, host } = prio3Tree(opts);
  const inv = await readInventory(new SnapshotHostReader(tree.toSnapshot({ host })));
  return { inv, findings: runChecks(inv) };
}

describe("ethtool -S port counters on the RoCE data netdevs", () => {
  test("a healthy lossless node (pauses only on the PFC priority, no discards, no PHY errors) has no finding", async () => {
    const { inv, findings } = await verifyPrio3();
    expect(inv.roceQos?.find((q) => q.netdev === "eth4")?.portCounters).toMatchObject({ rx_prio3_pause: 3072 });
    expect(problemsOf(findings)).toEqual([]);
  });

  test("a PAM4 port with many corrected bits but a pre-FEC ratio of 3e-9 and nothing left after FEC is healthy", async () => {
    const { findings } = await verifyPrio3({ ethtool: { eth3: ok(stats("cx6dx-eth3-pam4-corrected-healthy.txt")) } });
    expect(problemsOf(findings)).toEqual([]);
  });

  test("pause-storm error events: an error naming the netdev; the watchdog stopped pausing so the class dropped", async () => {
    const { findings } = await verifyPrio3({ ethtool: { eth4: ok(stats("cx6dx-eth4-pause-storm-prio3.txt")) } });
    expect(problemsOf(findings)).toEqual([{ code: "PAUSE_STORM", subject: "mlx5_4", severity: "error" }]);
    expect(findings[0]?.message).toContain("1 pause-storm error event(s)");
    expect(findings[0]?.message).toContain("9 pause-storm warning event(s)");
    expect(findings[0]?.message).toContain("dropped packets");
  });

  test("only pause-storm warning events: a warning", async () => {
    const text = stats("cx6dx-eth4-pause-storm-prio3.txt").replace(
      "tx_pause_storm_error_events: 1",
      "tx_pause_storm_error_events: 0",
    );
    const { findings } = await verifyPrio3({ ethtool: { eth4: ok(text) } });
    expect(problemsOf(findings)).toEqual([{ code: "PAUSE_STORM", subject: "mlx5_4", severity: "warning" }]);
  });

  test("discards on the lossless priority: PFC is on there, so headroom or the switch's PFC is wrong", async () => {
    const { findings } = await verifyPrio3({ ethtool: { eth2: ok(stats("cx7-eth2-discards-prio3.txt")) } });
    expect(problemsOf(findings)).toEqual([{ code: "LOSSLESS_DISCARDS", subject: "mlx5_2", severity: "warning" }]);
    expect(findings[0]?.evidence).toMatchObject({
      counters: { rx_discards_phy: 7731, rx_prio3_discards: 7731 },
      priority: 3,
      pfcOn: true,
    });
  });

  test("the switch pauses priority 0 while this NIC has PFC on 3: the lossless priorities disagree", async () => {
    const { findings } = await verifyPrio3({ ethtool: { eth6: ok(stats("cx6dx-eth6-pause-on-prio0-pfc3.txt")) } });
    expect(problemsOf(findings)).toEqual([{ code: "PAUSE_PRIORITY_MISMATCH", subject: "mlx5_6", severity: "warning" }]);
    expect(findings[0]?.evidence).toMatchObject({ pausedPriorities: [0], pfcEnabled: [3], priority: 3 });
  });

  test("a captured mlx5 output with pauses on priority 3 on the example node (PFC on 0) is named too", async () => {
    // The corpus capture, read as is: pause frames on priority 3, where this node has no PFC.
    const spec = seedSpec();
    const t = buildHost(spec);
    t.command("ethtool -S eth3", ok(fixtureText("captures/ethtool_stats", "a100-eth3-mlx5.txt")));
    const inv = await readInventory(new SnapshotHostReader(t.toSnapshot({ host: spec.hostname })));
    expect(problemsOf(runChecks(inv))).toEqual([
      { code: "PAUSE_PRIORITY_MISMATCH", subject: "mlx5_3", severity: "warning" },
    ]);
  });

  test("uncorrected errors above 1e-12 after FEC, CRC drops and a pre-FEC ratio above 2.4e-4: one error", async () => {
    const { findings } = await verifyPrio3({ ethtool: { eth7: ok(stats("cx7-eth7-400g-phy-errors.txt")) } });
    expect(problemsOf(findings)).toEqual([{ code: "PHY_ERRORS", subject: "mlx5_7", severity: "error" }]);
    const e = findings[0]!.evidence as { postFecBer: number; preFecBer: number; reasons: string[] };
    expect(e.reasons).toEqual(["post_fec", "dropped", "pre_fec"]);
    expect(e.postFecBer).toBeCloseTo(412031 / 1.0368e17, 20);
    expect(e.preFecBer).toBeCloseTo(3.0e-4, 6);
    // The link-down total since boot is not judged from one reading.
    expect(findings[0]!.message).not.toContain("link went down");
  });

  test("CRC errors alone (no bit count to form a ratio): a warning", async () => {
    const text = "NIC statistics:\n     rx_crc_errors_phy: 17\n     rx_discards_phy: 0\n     rx_prio3_pause: 4\n";
    const { findings } = await verifyPrio3({ ethtool: { eth5: ok(text) } });
    expect(problemsOf(findings)).toEqual([{ code: "PHY_ERRORS", subject: "mlx5_5", severity: "warning" }]);
  });

  test("link_down_events_phy that grew between two readings is named; its total since boot alone is not", async () => {
    const before = await verifyPrio3({ ethtool: { eth1: ok(stats("cx6dx-eth4-pause-storm-prio3.txt")) } });
    const laterText = stats("cx6dx-eth4-pause-storm-prio3.txt").replace(
      "link_down_events_phy: 1",
      "link_down_events_phy: 4",
    );
    const later = await verifyPrio3({ ethtool: { eth1: ok(laterText) } });
    const findings = runChecks(later.inv, {
      earlier: { inventory: before.inv, seconds: 60 },
      countersSinceEarlier: true,
    });
    // Since the earlier reading only the link went down: the storm counters did not grow.
    expect(problemsOf(findings)).toEqual([{ code: "PHY_ERRORS", subject: "mlx5_1", severity: "warning" }]);
    expect(findings[0]?.evidence).toMatchObject({ counters: { link_down_events_phy: 3 }, sinceSeconds: 60 });
  });

  test("ethtool not installed: the counters are a check that could not run, naming the netdevs", async () => {
    const missing = {
      exitCode: null,
      stdout: "",
      stderr: "",
      error: { code: "ENOENT", message: "ethtool -S: not installed (ethtool not found on PATH)" },
    };
    const ethtool = Object.fromEntries(
      ["eth1", "eth2", "eth3", "eth4", "eth5", "eth6", "eth7", "eth8"].map((n) => [n, missing]),
    );
    const { findings } = await verifyPrio3({ ethtool });
    expect(problemsOf(findings)).toEqual([{ code: "CHECK_SKIPPED", subject: "ethtool -S", severity: "warning" }]);
    expect(findings[0]?.message).toContain("eth1..eth8");
    expect(findings[0]?.message).toContain("`ethtool` is not installed");
  });

  test("run from the host's binaries (a collector pod): where ethtool was looked for is said", async () => {
    const missing = {
      exitCode: null,
      stdout: "",
      stderr: "",
      error: { code: "ENOENT", message: "ethtool -S eth1: not installed (/host/usr/bin/ethtool not found on PATH)" },
      ranFrom: "/host/usr/bin/ethtool",
    };
    const { findings } = await verifyPrio3({ ethtool: { eth1: missing } });
    expect(problemsOf(findings)).toEqual([{ code: "CHECK_SKIPPED", subject: "ethtool -S", severity: "warning" }]);
    expect(findings[0]?.message).toContain("where it was looked for (/host/usr/bin/ethtool)");
  });

  test("a driver that names its counters otherwise (bnxt_en): not judged, and said so", async () => {
    const { findings } = await verifyPrio3({ ethtool: { eth8: ok(stats("bnxt-en-ens3f0np0.txt")) } });
    expect(problemsOf(findings)).toEqual([{ code: "CHECK_SKIPPED", subject: "ethtool -S", severity: "warning" }]);
    expect(findings[0]?.message).toContain("another driver names its counters differently");
  });

  // The switches' RoCE default puts CNPs on priority 6 (traffic class 6, strict) apart from RoCE data on 3: NVIDIA
  // Cumulus Linux "Default RoCE Configuration" table,
  // https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE
  test("CNPs marked with a DSCP that maps to the data priority: a warning; DSCP 48 (priority 6): none", async () => {
    const qos = (netdev: string) => ({
      // mlnx_qos with DSCP trust and PFC on 3 (layout as in parse/roce-qos.ts).
      exitCode: 0,
      stdout:
        "DCBX mode: OS controlled\nPriority trust state: dscp\ndscp2prio mapping:\n\tprio:3 dscp:31,30,29,28,27,26,25,24,\n" +
        "PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   1   0   0   0   0   \n",
      stderr: "",
      netdev,
    });
    const { tree, host } = prio3Tree({
      files: {
        "/sys/class/net/eth2/ecn/roce_np/cnp_dscp": "26\n",
        "/sys/class/net/eth2/ecn/roce_np/cnp_802p_prio": "3\n",
        "/sys/class/net/eth3/ecn/roce_np/cnp_dscp": "48\n",
        "/sys/class/net/eth3/ecn/roce_np/cnp_802p_prio": "6\n",
      },
    });
    for (const n of ["eth1", "eth2", "eth3", "eth4", "eth5", "eth6", "eth7", "eth8"]) {
      const { netdev: _, ...o } = qos(n);
      tree.command(`mlnx_qos -i ${n}`, o);
    }
    const inv = await readInventory(new SnapshotHostReader(tree.toSnapshot({ host })));
    const findings = runChecks(inv);
    expect(problemsOf(findings)).toEqual([
      { code: "CNP_SHARES_DATA_PRIORITY", subject: "mlx5_2", severity: "warning" },
    ]);
    expect(findings[0]?.message).toContain("cnp_dscp 26 → priority 3");
  });
});

describe("a CNP marking that cannot be judged", () => {
  test("cnp files readable but no trust line in mlnx_qos: CHECK_SKIPPED naming the netdevs, never a silent pass", async () => {
    const { tree, host } = prio3Tree({
      files: {
        "/sys/class/net/eth2/ecn/roce_np/cnp_dscp": "26\n",
        "/sys/class/net/eth2/ecn/roce_np/cnp_802p_prio": "3\n",
      },
    });
    for (const n of ["eth1", "eth2", "eth3", "eth4", "eth5", "eth6", "eth7", "eth8"]) {
      // PFC readable, the trust line missing (an older mlnx_qos prints no `Priority trust state`).
      tree.command(`mlnx_qos -i ${n}`, {
        exitCode: 0,
        stdout:
          "PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   1   0   0   0   0   \n",
        stderr: "",
      });
    }
    const inv = await readInventory(new SnapshotHostReader(tree.toSnapshot({ host })));
    const findings = runChecks(inv);
    const skipped = findings.find((f) => f.code === "CHECK_SKIPPED" && f.subject === "CNP priority");
    expect(skipped?.message).toContain("eth2");
    expect(skipped?.message).toContain("trust mode");
    expect(findings.some((f) => f.code === "CNP_SHARES_DATA_PRIORITY")).toBe(false);
  });
});

describe("what a snapshot keeps of ethtool -S", () => {
  test("only the port-level lines: the per-ring counters are dropped, and the findings are the same", async () => {
    const { tree, host } = prio3Tree({ ethtool: { eth4: ok(stats("cx6dx-eth4-pause-storm-prio3.txt")) } });
    const snap = await collectSnapshot(new SnapshotHostReader(tree.toSnapshot({ host })));
    const kept = snap.commands["ethtool -S eth4"]!.stdout;
    expect(kept).toContain("tx_pause_storm_error_events: 1");
    expect(kept).toContain("rx_prio3_pause: 2048");
    expect(kept).not.toMatch(/^\s*(?:rx0|tx0|ch0)_/m);
    expect(kept).not.toContain("rx_bytes:");
    const again = await readInventory(new SnapshotHostReader(snap));
    expect(problemsOf(runChecks(again))).toEqual([{ code: "PAUSE_STORM", subject: "mlx5_4", severity: "error" }]);
  });
});

describe("an inventory without the counters", () => {
  test("built by hand without ethtool -S (absent, not unreadable): neither judged nor reported skipped", async () => {
    const { inv } = await verifyPrio3({ ethtool: { eth4: ok(stats("cx6dx-eth4-pause-storm-prio3.txt")) } });
    const withoutCounters = {
      ...inv,
      roceQos: (inv.roceQos ?? []).map(({ portCounters: _, portCountersError: __, ...q }) => q),
    };
    const findings = runChecks(withoutCounters);
    expect(only(findings, "PAUSE_STORM")).toEqual([]);
    expect(only(findings, "CHECK_SKIPPED")).toEqual([]);
  });
});

/**
 * PFC on the RoCE data NICs is read, never passed silently: from `mlnx_qos -i IF` where MLNX_OFED installed it, else
 * from iproute2's `dcb pfc show dev IF` (dcb-pfc(8): https://man7.org/linux/man-pages/man8/dcb-pfc.8.html, shape
 * `prio-pfc 0:off 1:off …`), and when neither can tell, the report says PFC was not checked and how to check it.
 */
import { describe, expect, test } from "vitest";
import { buildHost } from "../examples/builder.js";
import { SEED_DATA_NICS, seedSpec } from "../examples/seed.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import type { CommandOutcome } from "../host/types.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { problemsOf } from "./testing/expect.js";

const notInstalled = (cmd: string): Omit<CommandOutcome, "command"> => ({
  exitCode: null,
  stdout: "",
  stderr: "",
  error: { code: "ENOENT", message: `${cmd}: not installed` },
});

/** The A100 RoCE example node without MLNX_OFED's mlnx_qos; `dcb` answers as given for every RoCE netdev. */
async function inboxNode(dcb: (netdev: string) => Omit<CommandOutcome, "command">) {
  const spec = seedSpec();
  const t = buildHost(spec);
  for (const netdev of ["eth0", ...SEED_DATA_NICS.map((n) => n[1])]) {
    t.command(`mlnx_qos -i ${netdev}`, notInstalled("mlnx_qos"));
    t.command(`dcb pfc show dev ${netdev}`, dcb(netdev));
  }
  const inv = await readInventory(new SnapshotHostReader(t.toSnapshot({ host: spec.hostname })));
  return { inv, findings: runChecks(inv) };
}

const dcbOut = (on: number[]) => ({
  exitCode: 0,
  stdout: `pfc-cap 8 macsec-bypass off delay 0\nprio-pfc ${[0, 1, 2, 3, 4, 5, 6, 7].map((p) => `${p}:${on.includes(p) ? "on" : "off"}`).join(" ")}\n`,
  stderr: "",
});

describe("PFC read where mlnx_qos is not installed", () => {
  test("dcb shows PFC on priority 0, where NCCL's traffic lands without a traffic class: read, no finding", async () => {
    const { inv, findings } = await inboxNode(() => dcbOut([0]));
    expect(inv.roceQos?.find((q) => q.netdev === "eth3")).toMatchObject({ pfcEnabled: [0], pfcFrom: "dcb" });
    expect(findings).toEqual([]);
  });

  test("dcb shows PFC on priority 3 only while the traffic runs at priority 0: each data NIC is not lossless", async () => {
    const { findings } = await inboxNode(() => dcbOut([3]));
    // The example's ethtool counters show pause frames on priority 0, where PFC is now off: named as well.
    const lossless = findings.filter((f) => f.code === "ROCE_NOT_LOSSLESS");
    expect(problemsOf(lossless)).toEqual(
      SEED_DATA_NICS.map(([hca]) => ({ code: "ROCE_NOT_LOSSLESS", subject: hca, severity: "warning" })),
    );
    expect(lossless[0]?.message).toContain("PFC is not enabled for priority 0");
    expect(new Set(findings.map((f) => f.code))).toEqual(new Set(["ROCE_NOT_LOSSLESS", "PAUSE_PRIORITY_MISMATCH"]));
  });

  test("neither mlnx_qos nor dcb installed: PFC is a check that could not run, naming both commands", async () => {
    const { findings } = await inboxNode(() => notInstalled("dcb"));
    expect(problemsOf(findings)).toEqual([{ code: "CHECK_SKIPPED", subject: "mlnx_qos", severity: "warning" }]);
    expect(findings[0]?.message).toContain(
      "`mlnx_qos` is not installed and `dcb pfc show` failed: not installed either",
    );
    expect(findings[0]?.message).toContain("eth1..eth8");
    expect(findings[0]?.fix).toContain("dcb pfc show dev");
  });

  test("dcb failing (no DCB support in the driver) is said with its own words", async () => {
    const { findings } = await inboxNode(() => ({
      exitCode: 1,
      stdout: "",
      stderr: "Attribute read: Operation not supported\n",
    }));
    expect(problemsOf(findings)).toEqual([{ code: "CHECK_SKIPPED", subject: "mlnx_qos", severity: "warning" }]);
    expect(findings[0]?.message).toContain("exited with 1: Attribute read: Operation not supported");
  });
});

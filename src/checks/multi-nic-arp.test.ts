/**
 * Data NICs sharing one subnet (the A100 RoCE example node with its eight data NICs on 25.11.128.0/24 instead of a
 * /27 each): the ARP switches and per-rail source routes a multi-NIC host needs, read from
 * /proc/sys/net/ipv4/conf/IF (kernel ip-sysctl: https://docs.kernel.org/networking/ip-sysctl.html — arp_ignore,
 * arp_announce, rp_filter, the larger of conf/all and conf/IF applies) and `ip -4 rule show` (ip-rule(8):
 * https://man7.org/linux/man-pages/man8/ip-rule.8.html, lines `PRIO:\tfrom SELECTOR lookup TABLE`).
 */
import { describe, expect, test } from "vitest";
import { buildHost } from "../examples/builder.js";
import { SEED_DATA_NICS, seedSpec } from "../examples/seed.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { problemsOf } from "./testing/expect.js";

/** /proc/net/route stores addresses little-endian in hex. */
const hexIp = (ip: string) =>
  ip
    .split(".")
    .map((b) => Number(b).toString(16).padStart(2, "0").toUpperCase())
    .reverse()
    .join("");
const route = (dev: string, dest: string, gw: string, flags: string, mask: string) =>
  [dev, hexIp(dest), hexIp(gw), flags, "0", "0", "0", hexIp(mask), "0", "0", "0"].join("\t");

type Node = {
  sysctl?: (netdev: string) => [number, number, number] | null;
  all?: [number, number, number];
  rules?: string | null;
  sharedSubnet?: boolean;
};

const HEALTHY_RULES = [
  "0:\tfrom all lookup local",
  ...SEED_DATA_NICS.map(([, netdev, , ip], i) => `${32700 + i}:\tfrom ${ip} lookup ${netdev}`),
  "32766:\tfrom all lookup main",
  "32767:\tfrom all lookup default",
].join("\n");

async function nodeFindings(n: Node) {
  const spec = seedSpec();
  const t = buildHost(spec);
  if (n.sharedSubnet !== false) {
    const lines = [
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT",
      route("eth0", "0.0.0.0", "10.0.60.1", "0003", "0.0.0.0"),
      ...SEED_DATA_NICS.map(([, netdev]) => route(netdev, "25.11.128.0", "0.0.0.0", "0001", "255.255.255.0")),
    ];
    t.file("/proc/net/route", `${lines.join("\n")}\n`);
  }
  const all = n.all ?? [0, 0, 0];
  t.filesIn("/proc/sys/net/ipv4/conf/all", {
    arp_ignore: `${all[0]}\n`,
    arp_announce: `${all[1]}\n`,
    rp_filter: `${all[2]}\n`,
  });
  for (const netdev of ["eth0", ...SEED_DATA_NICS.map((d) => d[1])]) {
    const v = (n.sysctl ?? (() => [1, 2, 2]))(netdev);
    if (v) {
      t.filesIn(`/proc/sys/net/ipv4/conf/${netdev}`, {
        arp_ignore: `${v[0]}\n`,
        arp_announce: `${v[1]}\n`,
        rp_filter: `${v[2]}\n`,
      });
    }
  }
  const rules = n.rules === undefined ? HEALTHY_RULES : n.rules;
  if (rules !== null) t.command("ip -4 rule show", { exitCode: 0, stdout: `${rules}\n`, stderr: "" });
  else t.commands.delete("ip -4 rule show");
  const inv = await readInventory(new SnapshotHostReader(t.toSnapshot({ host: spec.hostname })));
  return runChecks(inv);
}

describe("data NICs sharing a subnet", () => {
  test("arp_ignore 1, arp_announce 2, rp_filter 2 and a source rule per rail: no finding", async () => {
    expect(await nodeFindings({})).toEqual([]);
  });

  test("kernel defaults (0, 0) and strict rp_filter on eth3: MULTI_NIC_ARP names all three settings", async () => {
    const findings = await nodeFindings({ sysctl: (n) => (n === "eth3" ? [0, 0, 1] : [1, 2, 2]) });
    expect(problemsOf(findings)).toEqual([{ code: "MULTI_NIC_ARP", subject: "eth3", severity: "warning" }]);
    expect(findings[0]?.message).toMatch(/arp_ignore is 0.*arp_announce is 0.*rp_filter is 1/);
    expect(findings[0]?.message).toContain("25.11.128.0/24 with eth1, eth2, eth4..eth8");
    expect(findings[0]?.fix).toContain("net.ipv4.conf.eth3.arp_ignore=1");
  });

  // The kernel applies the larger of conf/all and conf/IF: all=1 over IF=0 is strict; all=1 under IF=2 stays loose.
  test("conf/all rp_filter=1 over conf/IF rp_filter=0: every shared NIC is named", async () => {
    expect(await nodeFindings({ all: [0, 0, 1] })).toEqual([]);
    const findings = await nodeFindings({ all: [0, 0, 1], sysctl: () => [1, 2, 0] });
    expect(problemsOf(findings)).toEqual(
      SEED_DATA_NICS.map(([, netdev]) => ({ code: "MULTI_NIC_ARP", subject: netdev, severity: "warning" })),
    );
  });

  test("only the main table: a missing source rule per rail, with the ip rule to add", async () => {
    const findings = await nodeFindings({
      rules: "0:\tfrom all lookup local\n32766:\tfrom all lookup main\n32767:\tfrom all lookup default",
    });
    expect(problemsOf(findings)).toEqual(
      SEED_DATA_NICS.map(([, netdev]) => ({ code: "MULTI_NIC_NO_SOURCE_ROUTE", subject: netdev, severity: "warning" })),
    );
    expect(findings[0]?.fix).toContain("ip rule add from 25.11.128.2 table eth1");
  });

  test("sysctls unreadable and ip rule not answered: the checks that could not run are named, never a pass", async () => {
    const findings = await nodeFindings({ sysctl: () => null, rules: null });
    expect(problemsOf(findings)).toEqual([
      { code: "CHECK_SKIPPED", subject: "net.ipv4.conf", severity: "warning" },
      { code: "CHECK_SKIPPED", subject: "ip rule", severity: "warning" },
    ]);
  });

  test("rails on subnets of their own (the example node's /27 each) are not judged, even with kernel defaults", async () => {
    expect(await nodeFindings({ sharedSubnet: false, sysctl: () => [0, 0, 1], rules: null })).toEqual([]);
  });
});

/**
 * Stories for the PCIe-ACS, IOMMU, lossless-RoCE and link-flap rules, read from the example hosts the way
 * `verify --example` reads them, and from those hosts changed the way a non-root reader or a busy fabric sees them.
 */
import { describe, expect, test } from "vitest";
import { encodeBytesHex } from "../core/hex-bytes.js";
import { findExample } from "../examples/index.js";
import { configSpaceBytes } from "../examples/pci-config-space.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import type { Snapshot } from "../host/types.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import type { CheckOptions } from "./types.js";

function snapshotOf(example: string, later = false): Snapshot {
  const ex = findExample(example);
  if (!ex) throw new Error(`no example ${example}`);
  return later && ex.later ? ex.later() : ex.snapshot();
}

async function findings(snap: Snapshot, opts: CheckOptions = {}) {
  return runChecks(await readInventory(new SnapshotHostReader(snap)), opts);
}

const brief = (fs: Awaited<ReturnType<typeof findings>>) => fs.map((f) => [f.code, f.severity, f.subject]);

describe("PCIe ACS on the paths between GPUs and their NICs", () => {
  test("a switch port above mlx5_3 with ACS redirects: error naming the bridge, the GPU↔NIC pairs and setpci", async () => {
    const [f] = await findings(snapshotOf("acs-redirect"));
    expect(f).toMatchObject({ code: "PCIE_ACS_REDIRECT", subject: "0000:6a:01.0", severity: "error" });
    expect(f?.message).toContain("GPU2↔mlx5_3, GPU3↔mlx5_3");
    expect(f?.message).toContain("ReqRedir");
    expect(f?.fix).toContain("setpci -s 0000:6a:01.0 ECAP_ACS+0x6.w=0000");
  });

  test("a reader without root sees 64 bytes of each bridge: the check says it could not run, and why", async () => {
    const snap = snapshotOf("acs-redirect");
    for (const path of Object.keys(snap.files).filter((p) => p.endsWith("/config"))) {
      snap.files[path] = encodeBytesHex(
        configSpaceBytes({ vendorId: 0x1000, deviceId: 0xc010, portType: 6, acsControl: 0x1d, length: 64 }),
      );
    }
    const fs = await findings(snap);
    expect(brief(fs)).toEqual([["CHECK_SKIPPED", "warning", "pcie-acs"]]);
    expect(fs[0]?.message).toMatch(/first 64 bytes \(not root\)/);
    expect(fs[0]?.fix).toMatch(/root/);
  });

  test("ACS on root ports does not count: traffic between root ports crosses the root complex anyway", async () => {
    // The seed's root ports have ACS redirects on (as most BIOSes leave them) and the seed passes.
    expect(await findings(snapshotOf("a100-8x-roce"))).toEqual([]);
  });
});

describe("IOMMU", () => {
  test("booted without iommu=pt: IOMMU_TRANSLATED warning with the iommu=pt fix", async () => {
    const fs = await findings(snapshotOf("iommu-translated"));
    expect(brief(fs)).toEqual([["IOMMU_TRANSLATED", "warning", "node"]]);
    expect(fs[0]?.fix).toContain("iommu=pt");
  });

  test("a kernel that reports DMA-FQ domains is translated whatever the command line says", async () => {
    const snap = snapshotOf("a100-8x-roce");
    for (const d of Object.keys(snap.dirs).filter((p) => /^\/sys\/kernel\/iommu_groups\/\d+$/.test(p))) {
      snap.files[`${d}/type`] = "DMA-FQ\n";
      snap.dirs[d] = ["type"];
    }
    expect(brief(await findings(snap))).toEqual([["IOMMU_TRANSLATED", "warning", "node"]]);
  });

  test("no /proc/cmdline and no group types: the check could not run (a warning), never a silent pass", async () => {
    const snap = snapshotOf("a100-8x-roce");
    delete snap.files["/proc/cmdline"];
    expect(brief(await findings(snap))).toEqual([["CHECK_SKIPPED", "warning", "iommu"]]);
  });
});

describe("lossless RoCE", () => {
  test("eth3 with ECN off: ROCE_NOT_LOSSLESS on mlx5_3 naming priority 0, the one NCCL uses by default", async () => {
    const fs = await findings(snapshotOf("roce-no-ecn"));
    expect(brief(fs)).toEqual([["ROCE_NOT_LOSSLESS", "warning", "mlx5_3"]]);
    expect(fs[0]?.message).toContain("priority 0");
    // The example's fabric has PFC on priority 0 (dcb pfc show): the class does not drop, so the harm named is what
    // pause without ECN does — head-of-line blocking, congestion spreading, pause storms (the DCQCN paper, SIGCOMM 2015).
    expect(fs[0]?.message).toMatch(/pause frames are the only back-pressure/);
    expect(fs[0]?.message).toContain("head-of-line blocking");
    expect(fs[0]?.message).not.toMatch(/dropped and retransmitted/);
    // The convention is a dedicated class, not priority 0: DSCP 26 → priority 3, PFC and ECN there, NCCL_IB_TC=106
    // (see the catalogue entry's sources).
    expect(fs[0]?.fix).toContain("DSCP 26 → priority 3");
    expect(fs[0]?.fix).toContain("mlnx_qos -i eth3 --trust dscp --pfc 0,0,0,1,0,0,0,0");
    expect(fs[0]?.fix).toContain("NCCL_IB_TC=106");
    expect(fs[0]?.fix).not.toMatch(/with a 1 at 0/);
  });

  // The example's fabric has PFC on priority 0 only (dcb pfc show): mlx5_4's class moves its traffic to priority 3,
  // which is lossy there too.
  test("mlx5_4 alone with a global traffic class: ROCE_QOS_DIFFERS on mlx5_4, its traffic on priority 3", async () => {
    const fs = await findings(snapshotOf("roce-tc-differs"));
    expect(brief(fs)).toEqual([
      ["ROCE_NOT_LOSSLESS", "warning", "mlx5_4"],
      ["ROCE_QOS_DIFFERS", "warning", "mlx5_4"],
    ]);
    const differs = fs.find((f) => f.code === "ROCE_QOS_DIFFERS");
    expect(differs?.message).toContain("traffic class 106");
    expect(differs?.message).toContain("priority 3");
  });

  test("mlnx_qos with PFC only on priority 3 while NCCL's traffic uses 0: not lossless, names both", async () => {
    const snap = snapshotOf("a100-8x-roce");
    snap.commands["mlnx_qos -i eth2"] = {
      command: "mlnx_qos -i eth2",
      exitCode: 0,
      stderr: "",
      // Shape of `mlnx_qos -i IF` as in https://community.mellanox.com/docs/DOC-2792 (values our own).
      stdout: [
        "DCBX mode: OS controlled",
        "Priority trust state: dscp",
        "dscp2prio mapping:",
        ...[0, 1, 2, 3, 4, 5, 6, 7].map(
          (p) =>
            `\tprio:${p} dscp:${[7, 6, 5, 4, 3, 2, 1, 0].map((d) => String(8 * p + d).padStart(2, "0")).join(",")},`,
        ),
        "Cable len: 7",
        "PFC configuration:",
        "\tpriority    0   1   2   3   4   5   6   7",
        "\tenabled     0   0   0   1   0   0   0   0",
        "",
      ].join("\n"),
    };
    const fs = await findings(snap);
    const lossy = fs.find((f) => f.code === "ROCE_NOT_LOSSLESS");
    expect(lossy?.subject).toBe("mlx5_2");
    expect(lossy?.message).toContain("PFC is not enabled for priority 0 (mlnx_qos: enabled on 3)");
    // ECN is on there: an ECN-only (lossy, DCQCN) design is valid, so the warning states its trade-off.
    expect(lossy?.severity).toBe("warning");
    expect(lossy?.message).toMatch(/lossy RoCE design: valid when the switches mark ECN the same way/);
  });

  test("a host without MLNX_OFED's ecn files or mlnx_qos: the check could not run (a warning)", async () => {
    const snap = snapshotOf("a100-8x-roce");
    for (const p of Object.keys(snap.files)) if (p.includes("/ecn/")) delete snap.files[p];
    for (const d of Object.keys(snap.dirs)) if (d.includes("/ecn")) delete snap.dirs[d];
    for (const [d, names] of Object.entries(snap.dirs)) snap.dirs[d] = names.filter((n) => n !== "ecn");
    for (const c of Object.keys(snap.commands)) if (c.startsWith("dcb ")) delete snap.commands[c];
    expect(brief(await findings(snap))).toEqual([["CHECK_SKIPPED", "warning", "roce-lossless"]]);
  });

  // A Python tool that dies prints a traceback whose last line is the exception; the text below is our own.
  const pythonFailure = (netdev: string) => ({
    command: `mlnx_qos -i ${netdev}`,
    exitCode: 1,
    stdout: "",
    stderr: [
      "Traceback (most recent call last):",
      '  File "/usr/bin/mlnx_qos", line 42, in <module>',
      "    from dcbnetlink import DcbController",
      "ModuleNotFoundError: No module named 'dcbnetlink'",
      "",
    ].join("\n"),
  });

  test("mlnx_qos that dies on every data netdev: ECN still judged, PFC one CHECK_SKIPPED naming eth1..eth8 and the error", async () => {
    const snap = snapshotOf("a100-8x-roce");
    for (let i = 0; i <= 8; i++) snap.commands[`mlnx_qos -i eth${i}`] = pythonFailure(`eth${i}`);
    const fs = await findings(snap);
    expect(brief(fs)).toEqual([["CHECK_SKIPPED", "warning", "mlnx_qos"]]);
    expect(fs[0]!.message).toMatch(/PFC for the priority NCCL's RoCE traffic uses on eth1\.\.eth8/);
    expect(fs[0]!.message).toMatch(
      /`mlnx_qos -i` failed there: exited with 1: ModuleNotFoundError: No module named 'dcbnetlink'\.$/,
    );
    expect(fs[0]!.fix).toMatch(/mlnx_qos -i <netdev>/);
  });

  test("mlnx_qos that dies on the management NIC only (eth0) is not a data-path check that could not run", async () => {
    const snap = snapshotOf("a100-8x-roce");
    snap.commands["mlnx_qos -i eth0"] = pythonFailure("eth0");
    expect(await findings(snap)).toEqual([]);
  });

  // PFC is never a silent pass: without mlnx_qos the reader asks iproute2's `dcb pfc show` (pfc-verified.test.ts);
  // a snapshot with neither answer says PFC was not checked. ECN is still judged (no ROCE_NOT_LOSSLESS here).
  test("mlnx_qos not installed and no dcb answer: ECN alone is judged, PFC is a check that could not run", async () => {
    const snap = snapshotOf("a100-8x-roce");
    for (let i = 0; i <= 8; i++) {
      snap.commands[`mlnx_qos -i eth${i}`] = {
        command: `mlnx_qos -i eth${i}`,
        exitCode: null,
        stdout: "",
        stderr: "",
        error: { code: "ENOENT", message: `mlnx_qos -i eth${i}: not installed (mlnx_qos not found on PATH)` },
      };
      delete snap.commands[`dcb pfc show dev eth${i}`];
    }
    expect(brief(await findings(snap))).toEqual([["CHECK_SKIPPED", "warning", "mlnx_qos"]]);
  });
});

describe("link flaps between two readings (verify --watch)", () => {
  test("mlx5_6's link_downed went 3 → 5 in the interval: PORT_FLAPPING error with the counts", async () => {
    const before = await readInventory(new SnapshotHostReader(snapshotOf("port-flapping")));
    const fs = await findings(snapshotOf("port-flapping", true), { earlier: { inventory: before, seconds: 10 } });
    const flap = fs.find((f) => f.code === "PORT_FLAPPING");
    expect(flap).toMatchObject({ subject: "mlx5_6", severity: "error" });
    expect(flap?.evidence).toMatchObject({ linkDowned: 2, linkErrorRecovery: 5, seconds: 10 });
  });

  test("counters that stand still are no flap, even when they are not zero", async () => {
    const before = await readInventory(new SnapshotHostReader(snapshotOf("port-flapping")));
    const fs = await findings(snapshotOf("port-flapping"), { earlier: { inventory: before, seconds: 10 } });
    expect(fs.map((f) => f.code)).not.toContain("PORT_FLAPPING");
  });
});

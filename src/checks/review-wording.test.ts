/**
 * Wording of verify findings checked against their primary sources: what a host shows, what it does not, and what
 * each fix assumes. Inventories are the example hosts changed the way the scenario says.
 */
import { describe, expect, test } from "vitest";
import { makeFinding } from "../core/finding.js";
import { findExample } from "../examples/index.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import { buildIommu, passthroughOnCmdline } from "../inventory/build-fabric.js";
import { readInventory } from "../inventory/index.js";
import { CATALOGUE } from "./catalogue.js";
import { runChecks } from "./index.js";
import { only } from "./testing/expect.js";
import { portOf, seedInventory } from "./testing/seed-inventory.js";
import type { CheckOptions } from "./types.js";

async function exampleFindings(name: string, opts: CheckOptions = {}) {
  const ex = findExample(name);
  if (!ex) throw new Error(`no example ${name}`);
  return runChecks(await readInventory(new SnapshotHostReader(ex.snapshot())), opts);
}

describe("ROCE_NOT_LOSSLESS: PFC on but ECN off is not a dropping class", () => {
  // With PFC the priority does not drop; without ECN (DCQCN) the only back-pressure is PAUSE, whose costs are
  // head-of-line blocking, congestion spreading and pause storms (Zhu et al., "Congestion Control for Large-Scale
  // RDMA Deployments", SIGCOMM 2015, §2; https://conferences.sigcomm.org/sigcomm/2015/pdf/papers/p523.pdf).
  const base = { hca: "mlx5_3", netdev: "eth3", priority: 3, trafficClass: 106, trafficClassSource: "hca" as const };
  const ecnOff = ["ECN is off as notification point (ecn/roce_np/enable/3 = 0)"];
  test("PFC on, ECN off → head-of-line blocking, congestion spreading, pause storms; no 'dropped'", () => {
    const f = makeFinding(CATALOGUE, "ROCE_NOT_LOSSLESS", "mlx5_3", { ...base, reasons: ecnOff, pfc: "on" });
    expect(f.message).toMatch(/head-of-line blocking/);
    expect(f.message).toMatch(/pause storms/);
    expect(f.message).not.toMatch(/dropped/);
  });
  test("PFC off and ECN off → drops and retransmissions; PFC unreadable → both outcomes named", () => {
    const off = makeFinding(CATALOGUE, "ROCE_NOT_LOSSLESS", "mlx5_3", {
      ...base,
      reasons: [...ecnOff, "PFC is not enabled for priority 3 (mlnx_qos: enabled on none)"],
      pfc: "off",
    });
    expect(off.message).toMatch(/packets are dropped and retransmitted/);
    const unknown = makeFinding(CATALOGUE, "ROCE_NOT_LOSSLESS", "mlx5_3", { ...base, reasons: ecnOff, pfc: "unknown" });
    expect(unknown.message).toMatch(/could not be read/);
  });
  test("the roce-no-ecn example (ECN off, PFC as read there) carries the PFC state in its evidence", async () => {
    const [f] = only(await exampleFindings("roce-no-ecn"), "ROCE_NOT_LOSSLESS");
    expect(["on", "off", "unknown"]).toContain(f?.evidence?.pfc);
  });
});

describe("PORT_DOWN: NCCL drops non-ACTIVE ports before NCCL_IB_HCA applies", () => {
  // src/transport/net_ib/init.cc: `if (portAttr.state != IBV_PORT_ACTIVE) continue;` comes before matchIfList()
  // on NCCL_IB_HCA; "NET/IB : No device found." only when no port is left (https://github.com/NVIDIA/nccl).
  test("the message says jobs run on the other ports, and sockets only when no listed port is active", async () => {
    const [f] = only(await exampleFindings("port-down"), "PORT_DOWN");
    expect(f?.message).toMatch(/drops ports that are not ACTIVE before it applies NCCL_IB_HCA/);
    expect(f?.message).toMatch(/only when no listed port is active/);
    expect(f?.message).not.toMatch(/fails when NCCL_IB_HCA names it/);
  });
});

describe("RX_OUT_OF_BUFFER: the RDMA Q counter is not the ethtool ring counter", () => {
  // mlx5: hw_counters/out_of_buffer counts drops for lack of posted receive WQEs on the QPs; ethtool's
  // rx_out_of_buffer counts the netdev's receive-ring drops (NVIDIA, "Understanding mlx5 Linux Counters and Status
  // Parameters", https://enterprise-support.nvidia.com/s/article/understanding-mlx5-linux-counters-and-status-parameters).
  test("hw_counters/out_of_buffer → receives not posted in time; no ring size or IRQ advice as the fix", () => {
    const inv = seedInventory();
    portOf(inv, "mlx5_2").hwCounters.out_of_buffer = 9;
    const [f] = only(runChecks(inv), "RX_OUT_OF_BUFFER");
    expect(f?.message).toMatch(/no receive work request posted in time/);
    expect(f?.fix).toMatch(/rdma resource show qp/);
    expect(f?.fix).not.toMatch(/check the NIC's interrupt affinity/);
  });
  test("ethtool rx_out_of_buffer → ring size and IRQ affinity", () => {
    const f = makeFinding(CATALOGUE, "RX_OUT_OF_BUFFER", "rx_out_of_buffer", { drops: 5, counter: "rx_out_of_buffer" });
    expect(f.fix).toMatch(/ethtool -g/);
    expect(f.message).toMatch(/receive rings were full/);
  });
});

describe("PCIE_ACS_REDIRECT: disabling ACS is not the fix on hosts that pass devices to VMs", () => {
  // NCCL troubleshooting, PCI ACS: "Virtual machines require ACS to function, hence disabling ACS is not an option.
  // To run with maximum performance inside virtual machines, ATS needs to be enabled in network adapters."
  // (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html;
  // NVIDIA/nccl docs/userguide/source/troubleshooting/gpu_troubleshooting.rst).
  test("unknown: both fixes, and the question (--vm-host)", async () => {
    const [f] = only(await exampleFindings("acs-redirect"), "PCIE_ACS_REDIRECT");
    expect(f?.fix).toMatch(/On bare metal, disable ACS/);
    expect(f?.fix).toMatch(/enable ATS/);
    expect(f?.fix).toMatch(/--vm-host yes\|no/);
  });
  test("--vm-host yes: keep ACS, enable ATS; --vm-host no: disable ACS", async () => {
    const [vm] = only(await exampleFindings("acs-redirect", { vmHost: true }), "PCIE_ACS_REDIRECT");
    expect(vm?.fix).toMatch(/keep ACS/);
    expect(vm?.fix).not.toMatch(/setpci/);
    const [bare] = only(await exampleFindings("acs-redirect", { vmHost: false }), "PCIE_ACS_REDIRECT");
    expect(bare?.fix).toMatch(/setpci -s 0000:6a:01.0 ECAP_ACS\+0x6.w=0000/);
    expect(bare?.fix).not.toMatch(/ATS/);
  });
});

describe("IOMMU passthrough: only iommu=pt or iommu.passthrough=1", () => {
  // Documentation/admin-guide/kernel-parameters.txt: "iommu= … pt [X86] … nopt [X86]" and "iommu.passthrough=
  // [ARM64, X86] Configure DMA to bypass the IOMMU by default. Format: { "0" | "1" }"; the value is parsed with
  // kstrtobool (y/Y/1/on true), and the last one given wins
  // (https://www.kernel.org/doc/html/latest/admin-guide/kernel-parameters.html).
  test.each([
    ["intel_iommu=on iommu=pt", true],
    ["iommu.passthrough=1", true],
    ["iommu.passthrough=y", true],
    ["iommu.passthrough=on", true],
    ["intel_iommu=on iommu=on", null],
    ["intel_iommu=on iommu=1", null],
    ["iommu=pt iommu.passthrough=0", false],
    ["iommu=pt iommu=nopt", false],
  ] as const)("%s → passthrough %s", (cmdline, expected) => {
    expect(passthroughOnCmdline(cmdline)).toBe(expected);
  });

  test("devices in IOMMU groups with iommu=on (no group type readable) → translated, not passthrough", () => {
    const ok = <T>(value: T) => ({ ok: true as const, value });
    const state = buildIommu({
      units: ok(["dmar0"]),
      cmdline: ok("BOOT_IMAGE=/vmlinuz ro intel_iommu=on iommu=on"),
      devices: [{ address: "0000:18:00.0", group: ok("/sys/kernel/iommu_groups/17"), type: null }],
    });
    expect(state.mode).toBe("translated");
  });
});

describe("--shared-health all is not safe on rail-only fabrics", () => {
  // NCCL drops inactive ports (src/transport/net_ib/init.cc), so the others carry the job where every NIC reaches
  // every peer; with NCCL_CROSS_NIC=0 on a rail-only fabric (no path between rails) a node missing rail N leaves its
  // peers on rail N unreachable (NCCL_CROSS_NIC, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-cross-nic).
  test("the option's help and the reference say where `all` holds and where `any` is the choice", async () => {
    const { command } = await import("../cli/commands/device-plugin.js");
    const opt = command.options?.find((o) => o.name === "shared-health");
    expect(opt?.description).toMatch(/rail-only fabrics with NCCL_CROSS_NIC=0/);
    const { readFileSync } = await import("node:fs");
    const doc = readFileSync("docs/reference.md", "utf8");
    expect(doc).toMatch(/on a rail-only fabric \(no path between rails\)\s+with `NCCL_CROSS_NIC=0` a missing rail/);
    expect(doc).not.toMatch(/NCCL skips inactive ports, so jobs still run, slower, and/);
  });
});

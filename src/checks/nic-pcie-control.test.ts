import { describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { configSpaceHex, NIC_DEVICE_CONTROL } from "../examples/pci-config-space.js";
import { SnapshotHostReader } from "../host/index.js";
import type { Snapshot } from "../host/types.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { only } from "./testing/expect.js";

const NIC = { vendorId: 0x15b3, deviceId: 0x101b, portType: 0, acsControl: null };

/** The A100 RoCE example node with every data NIC's config space replaced. */
async function nodeWithNicConfig(config: string) {
  const s: Snapshot = structuredClone(exampleSnapshot("a100-8x-roce"));
  const inv0 = await readInventory(new SnapshotHostReader(s, "test"));
  for (const h of inv0.hcas) {
    if (h.role === "data" && h.pciAddress) s.files[`/sys/bus/pci/devices/${h.pciAddress}/config`] = config;
  }
  return readInventory(new SnapshotHostReader(s, "test"));
}

// MaxReadReq: adapters' PCIe tuning note raises it to 4096 (NVIDIA, "Understanding PCIe Configuration for Maximum
// Performance"); relaxed ordering: NCCL_IB_PCI_RELAXED_ORDERING uses it when available (NCCL environment variables).
describe("what the data NICs may do on PCIe", () => {
  test("the A100 RoCE example node's NICs (MaxReadReq 4096, relaxed ordering on): nothing to say", async () => {
    const inv = await nodeWithNicConfig(configSpaceHex({ ...NIC, deviceControl: NIC_DEVICE_CONTROL }));
    expect(inv.hcas.find((h) => h.name === "mlx5_1")?.pcieControl).toMatchObject({ maxReadRequestBytes: 4096 });
    const findings = runChecks(inv);
    expect(only(findings, "NIC_MAX_READ_REQUEST_SMALL")).toEqual([]);
    expect(only(findings, "NIC_RELAXED_ORDERING_OFF")).toEqual([]);
  });

  test("MaxReadReq 512 and relaxed ordering off on every data NIC → one info each, naming mlx5_1..mlx5_8 and how to measure", async () => {
    const inv = await nodeWithNicConfig(configSpaceHex({ ...NIC, deviceControl: 0x202f }));
    const findings = runChecks(inv);
    const [mrrs] = only(findings, "NIC_MAX_READ_REQUEST_SMALL");
    expect(mrrs).toMatchObject({ subject: "mlx5_1..mlx5_8", severity: "info" });
    expect(mrrs?.message).toMatch(/at most 512 bytes \(MaxReadReq\)/);
    expect(mrrs?.fix).toMatch(/setpci -s \S+ CAP_EXP\+8\.w=5000:7000/);
    const [ro] = only(findings, "NIC_RELAXED_ORDERING_OFF");
    expect(ro).toMatchObject({ subject: "mlx5_1..mlx5_8", severity: "info" });
    expect(ro?.fix).toMatch(/grep RlxdOrd/);
  });

  test("a reader without root (64 bytes of config space): nothing claimed either way", async () => {
    const inv = await nodeWithNicConfig(configSpaceHex({ ...NIC, deviceControl: 0x202f, length: 64 }));
    expect(inv.hcas.find((h) => h.name === "mlx5_1")?.pcieControl).toBeNull();
    expect(only(runChecks(inv), "NIC_MAX_READ_REQUEST_SMALL")).toEqual([]);
  });
});

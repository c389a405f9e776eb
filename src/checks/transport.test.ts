/**
 * iWARP devices: the kernel's `node_type` reads `1: CA` for InfiniBand and RoCE HCAs and `4: RNIC` for iWARP NICs
 * (drivers/infiniband/core/sysfs.c, node_type_show; `ibv_devinfo` prints `transport: iWARP (1)` for them). Read
 * through the A100 RoCE example node's collected form with one data device's node_type changed.
 */
import { describe, expect, test } from "vitest";
import { findExample } from "../examples/index.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { problemsOf } from "./testing/expect.js";

async function withNodeType(hca: string, nodeType: string | null) {
  const snap = findExample("a100-8x-roce")!.snapshot();
  const path = `/sys/class/infiniband/${hca}/node_type`;
  if (nodeType === null) delete snap.files[path];
  else snap.files[path] = `${nodeType}\n`;
  const inv = await readInventory(new SnapshotHostReader(snap));
  return { inv, findings: runChecks(inv) };
}

describe("RDMA transport", () => {
  test("every HCA a CA (InfiniBand or RoCE): read, no finding", async () => {
    const { inv, findings } = await withNodeType("mlx5_3", "1: CA");
    expect(inv.hcas.every((h) => h.nodeType === "CA")).toBe(true);
    expect(findings).toEqual([]);
  });

  test("a data device that is an iWARP RNIC: IWARP_DEVICE error with the way to switch or exclude it", async () => {
    const { findings } = await withNodeType("mlx5_3", "4: RNIC");
    expect(problemsOf(findings)).toEqual([{ code: "IWARP_DEVICE", subject: "mlx5_3", severity: "error" }]);
    expect(findings[0]?.message).toContain("only through rdma_cm");
    expect(findings[0]?.fix).toContain("NCCL_IB_HCA=^=mlx5_3");
  });

  test("node_type missing (an older snapshot) says nothing about the transport", async () => {
    const { inv, findings } = await withNodeType("mlx5_3", null);
    expect(inv.hcas.find((h) => h.name === "mlx5_3")?.nodeType).toBeNull();
    expect(findings).toEqual([]);
  });
});

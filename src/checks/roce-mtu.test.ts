/**
 * Absolute RoCE MTU: the active MTU follows the netdev's (kernel iboe_get_mtu, include/rdma/ib_addr.h: the netdev MTU
 * less 96 bytes of RoCE headers, rounded down to an IB MTU; 1500 → 1024) and NCCL uses it unless NCCL_IB_MTU says
 * otherwise (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-mtu). `ibv_devinfo` prints it
 * as `active_mtu: 1024 (3)`. Read from the A100 RoCE example node's netdevs, via its collected form.
 */
import { describe, expect, test } from "vitest";
import { findExample } from "../examples/index.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { problemsOf } from "./testing/expect.js";

async function withNetdevMtus(mtu: (netdev: string) => number | null) {
  const snap = findExample("a100-8x-roce")!.snapshot();
  for (const path of Object.keys(snap.files)) {
    const m = /^\/sys\/class\/net\/([^/]+)\/mtu$/.exec(path);
    const v = m ? mtu(m[1]!) : null;
    if (v !== null) snap.files[path] = `${v}\n`;
  }
  return runChecks(await readInventory(new SnapshotHostReader(snap)));
}

describe("RoCE data ports below a 4096 active MTU", () => {
  test("every data netdev at 1500 (uniform, so no MTU_MISMATCH): ROCE_MTU_LOW names the rails and 1024", async () => {
    const findings = await withNetdevMtus((n) => (n === "eth0" ? null : 1500));
    expect(problemsOf(findings)).toEqual([{ code: "ROCE_MTU_LOW", subject: "mlx5_1..mlx5_8", severity: "warning" }]);
    expect(findings[0]?.message).toContain("active MTU of at most 1024 (netdev MTU 1500)");
    expect(findings[0]?.fix).toContain("ibv_devinfo");
  });

  test("4096 on every netdev gives 2048 (the headers need 96 bytes more): still low", async () => {
    const findings = await withNetdevMtus((n) => (n === "eth0" ? null : 4096));
    expect(problemsOf(findings)).toEqual([{ code: "ROCE_MTU_LOW", subject: "mlx5_1..mlx5_8", severity: "warning" }]);
    expect(findings[0]?.message).toContain("at most 2048");
  });

  test("4200 or 9000 on the rails, the management NIC at 1500: no finding; one rail at 1500 is MTU_MISMATCH's alone", async () => {
    expect(await withNetdevMtus((n) => (n === "eth0" ? 1500 : 4200))).toEqual([]);
    expect(await withNetdevMtus(() => null)).toEqual([]);
    const one = await withNetdevMtus((n) => (n === "eth5" ? 1500 : null));
    expect(problemsOf(one)).toEqual([{ code: "MTU_MISMATCH", subject: "mlx5_5", severity: "warning" }]);
  });
});

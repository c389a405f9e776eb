/**
 * rdma_cm's per-device default ToS (configfs, Documentation/ABI/testing/configfs-rdma_cm: `default_roce_tos`, a
 * decimal ToS byte under /sys/kernel/config/rdma_cm/<hca>/ports/<n>/, present only once the directory was made)
 * against NCCL, which connects its QPs with verbs and uses NCCL_IB_TC
 * (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-tc).
 */
import { describe, expect, test } from "vitest";
import { findExample } from "../examples/index.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { problemsOf } from "./testing/expect.js";

async function withCmaTos(tos: Record<string, number>, trafficClass: Record<string, string> = {}) {
  const snap = findExample("a100-8x-roce")!.snapshot();
  for (const [hca, v] of Object.entries(tos))
    snap.files[`/sys/kernel/config/rdma_cm/${hca}/ports/1/default_roce_tos`] = `${v}\n`;
  for (const [hca, t] of Object.entries(trafficClass))
    snap.files[`/sys/class/infiniband/${hca}/tc/1/traffic_class`] = t;
  return runChecks(await readInventory(new SnapshotHostReader(snap)));
}

describe("rdma_cm default ToS", () => {
  test("set to 106 on every data HCA with no global traffic class: CMA_TOS_NOT_NCCL per HCA, with NCCL_IB_TC=106", async () => {
    const all = Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8].map((i) => [`mlx5_${i}`, 106]));
    const findings = await withCmaTos(all);
    expect(problemsOf(findings)).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ code: "CMA_TOS_NOT_NCCL", subject: `mlx5_${i}`, severity: "warning" })),
    );
    expect(findings[0]?.message).toContain("default RoCE ToS set to 106 (DSCP 26");
    expect(findings[0]?.fix).toContain("NCCL_IB_TC=106");
  });

  test("0 (the default), unset, or set beside a global traffic class every QP uses: no finding", async () => {
    expect(await withCmaTos({ mlx5_1: 0 })).toEqual([]);
    const all = Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8].map((i) => [`mlx5_${i}`, 106]));
    const tc = Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8].map((i) => [`mlx5_${i}`, "Global tclass=106\n"]));
    const findings = await withCmaTos(all, tc);
    expect(findings.filter((f) => f.code === "CMA_TOS_NOT_NCCL")).toEqual([]);
  });
});

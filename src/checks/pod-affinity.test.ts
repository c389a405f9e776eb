/**
 * An exclusive allocation whose RDMA NICs are not near the pod's GPUs is named from inside the pod. The layout is
 * the A100 RoCE example node's (two GPUs and two NICs under each PCIe switch: GPU2/GPU3 with mlx5_3/mlx5_4, PIX in
 * `nvidia-smi topo -m`). A device plugin's
 * GetPreferredAllocation is told only the available and must-include IDs and the size, not the pod's GPUs
 * (https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/device-plugins/), so the result is
 * checked where both are visible: in the pod.
 */
import { describe, expect, test } from "vitest";
import type { NodeInventory } from "../inventory/types.js";
import { runChecks } from "./index.js";
import { only, problemsOf } from "./testing/expect.js";
import { seedInventory } from "./testing/seed-inventory.js";

/** The example node seen from a pod given these GPUs (by index) and these data HCAs (their uverbs only). */
function podView(gpus: number[], hcas: string[]): NodeInventory {
  const inv = seedInventory();
  inv.gpus = inv.gpus.filter((g) => gpus.includes(g.index));
  const keep = new Set(inv.hcas.filter((h) => hcas.includes(h.name)).flatMap((h) => h.uverbs));
  inv.devices.infiniband = inv.devices.infiniband.filter((d) => !d.startsWith("uverbs") || keep.has(d));
  return inv;
}

const affinity = (inv: NodeInventory) =>
  problemsOf(runChecks(inv, { pod: true })).filter((v) => v.code === "POD_NIC_NOT_NEAR_GPU");

describe("GPU↔NIC affinity of an exclusive allocation", () => {
  test("GPU2 and GPU3 with mlx5_3 and mlx5_4 (their PCIe switch): nothing to say", () => {
    expect(affinity(podView([2, 3], ["mlx5_3", "mlx5_4"]))).toEqual([]);
  });

  test("GPU2 and GPU3 given mlx5_1 and mlx5_2 (GPU0's switch): each GPU is named with the NICs near it", () => {
    const inv = podView([2, 3], ["mlx5_1", "mlx5_2"]);
    expect(affinity(inv)).toEqual([
      { code: "POD_NIC_NOT_NEAR_GPU", subject: "GPU2", severity: "warning" },
      { code: "POD_NIC_NOT_NEAR_GPU", subject: "GPU3", severity: "warning" },
    ]);
    const [f] = only(runChecks(inv, { pod: true }), "POD_NIC_NOT_NEAR_GPU");
    expect(f?.message).toContain("mlx5_3 (PIX), mlx5_4 (PIX) near it on the node");
    expect(f?.message).toContain("was given mlx5_1, mlx5_2");
    expect(f?.fix).toContain("single-numa-node");
  });

  test("one of two GPUs without a near NIC: only that GPU", () => {
    expect(affinity(podView([1, 2], ["mlx5_1", "mlx5_2"]))).toEqual([
      { code: "POD_NIC_NOT_NEAR_GPU", subject: "GPU2", severity: "warning" },
    ]);
  });

  test("shared mode (every data HCA visible) and runs outside a pod are not judged", () => {
    expect(
      affinity(podView([2, 3], ["mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8"])),
    ).toEqual([]);
    const inv = podView([2, 3], ["mlx5_1", "mlx5_2"]);
    expect(only(runChecks(inv), "POD_NIC_NOT_NEAR_GPU")).toEqual([]);
  });

  test("GPUs not listed by nvidia-smi (names from the driver): which GPUs the pod has is unknown, and said so", () => {
    const inv = podView([2, 3], ["mlx5_1", "mlx5_2"]);
    for (const g of inv.gpus) g.nameFrom = "driver";
    const skipped = only(runChecks(inv, { pod: true }), "CHECK_SKIPPED").filter(
      (f) => f.subject === "pod-nic-affinity",
    );
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.message).toContain("which GPUs this pod was given is not known");
  });
});

import { describe, expect, test } from "vitest";
import type { GpuNicPath } from "../inventory/types.js";
import { railNics, railNicsFromPaths } from "./rail-nics.js";

describe("the NIC of each GPU's rail", () => {
  test("a DGX H100 uses mlx5_0,3,4,5,6,9,10,11 for GPUs 0–7, not the first eight names", () => {
    expect(railNics(8, "dgx-h100")).toEqual([
      "mlx5_0",
      "mlx5_3",
      "mlx5_4",
      "mlx5_5",
      "mlx5_6",
      "mlx5_9",
      "mlx5_10",
      "mlx5_11",
    ]);
    expect(railNics(4, "dgx-h100")).toEqual(["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]);
  });

  test("from a node's PCIe paths: each GPU takes its nearest free data NIC (PIX before PHB before SYS)", () => {
    const p = (gpu: number, hca: string, distance: GpuNicPath["distance"]): GpuNicPath => ({
      gpu,
      hca,
      distance,
      nvsmi: distance,
    });
    const paths = [
      p(0, "mlx5_0", "SYS"),
      p(0, "mlx5_3", "PIX"),
      p(1, "mlx5_0", "PIX"),
      p(1, "mlx5_3", "SYS"),
      p(1, "mlx5_1", "PIX"), // the storage NIC: not a data NIC
    ];
    expect(railNicsFromPaths(paths, [0, 1], ["mlx5_0", "mlx5_3"])).toEqual(["mlx5_3", "mlx5_0"]);
    expect(railNicsFromPaths(paths, [0, 1, 2], ["mlx5_0", "mlx5_3"])).toBeNull();
  });
});

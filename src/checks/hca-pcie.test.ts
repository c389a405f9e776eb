/** A data NIC whose PCIe link trained below its capability: the rail is capped there, whatever the port says. */
import { describe, expect, test } from "vitest";
import type { PcieLink } from "../inventory/types.js";
import { laneGbps } from "./hca-pcie.js";
import { runChecks } from "./index.js";
import { seedInventory } from "./testing/seed-inventory.js";

function nodeWhere(hca: string, link: Partial<PcieLink>, rateGbps?: number) {
  const inv = seedInventory();
  const h = inv.hcas.find((x) => x.name === hca)!;
  h.link = { ...h.link!, ...link };
  if (rateGbps !== undefined) for (const p of h.ports) p.rateGbps = rateGbps;
  return runChecks(inv, {}).filter((f) => f.code === "HCA_PCIE_DEGRADED");
}

describe("HCA_PCIE_DEGRADED", () => {
  test("the example node's NICs all trained Gen4 x16: nothing to say", () => {
    expect(runChecks(seedInventory(), {}).filter((f) => f.code === "HCA_PCIE_DEGRADED")).toEqual([]);
  });

  test("mlx5_5 at Gen4 x8 behind a 200 Gb/s port → error on mlx5_5: ~126 Gb/s, less than the port", () => {
    const [f] = nodeWhere("mlx5_5", { currentWidth: 8 });
    expect(f).toMatchObject({ severity: "error", subject: "mlx5_5" });
    expect(f!.message).toMatch(/Gen4 x8 of Gen4 x16: about 126 Gb\/s .* less than its 200 Gb\/s port/);
    expect(f!.fix).toMatch(/lspci -vv -s 0000:[0-9a-f]{2}:00\.0/);
  });

  test("mlx5_2 at Gen3 x16 (a Gen3 slot) behind a 200 Gb/s port → error: ~126 Gb/s", () => {
    const [f] = nodeWhere("mlx5_2", { currentSpeed: "8.0 GT/s PCIe" });
    expect(f).toMatchObject({ severity: "error", subject: "mlx5_2" });
    expect(f!.message).toMatch(/Gen3 x16 of Gen4 x16: about 126 Gb\/s/);
  });

  test("a 100 Gb/s port at Gen4 x8 still has room (~126 Gb/s) → warning, the slot or riser is still at fault", () => {
    const [f] = nodeWhere("mlx5_4", { currentWidth: 8 }, 100);
    expect(f).toMatchObject({ severity: "warning", subject: "mlx5_4" });
    expect(f!.message).toMatch(/enough for now/);
  });

  test("a Gen5-capable NIC at Gen4 x16 (a Gen4 server) for a 200 Gb/s port: the platform's generation, enough: nothing", () => {
    expect(nodeWhere("mlx5_7", { maxSpeed: "32.0 GT/s PCIe" })).toEqual([]);
  });

  test("the same NIC with a 400 Gb/s port is capped at ~252 Gb/s → error that says to move it to a Gen5 slot", () => {
    const [f] = nodeWhere("mlx5_7", { maxSpeed: "32.0 GT/s PCIe" }, 400);
    expect(f).toMatchObject({ severity: "error", subject: "mlx5_7" });
    expect(f!.message).toMatch(/Gen4 x16 of Gen5 x16: about 252 Gb\/s .* less than its 400 Gb\/s port/);
    expect(f!.fix).toMatch(/Move the NIC to a Gen5 slot/);
    expect(f!.fix).not.toMatch(/reseat/);
  });

  test("a VF or an emulated bridge (width 0, speed Unknown) and the management NIC are not judged", () => {
    expect(nodeWhere("mlx5_6", { currentWidth: 0 })).toEqual([]);
    expect(nodeWhere("mlx5_6", { currentSpeed: "Unknown", maxSpeed: "Unknown" })).toEqual([]);
    expect(nodeWhere("mlx5_0", { currentWidth: 4 })).toEqual([]);
  });

  test("lane rates after encoding: Gen1 2 Gb/s, Gen3 7.9, Gen4 15.8, Gen5 31.5, Gen6 60.5", () => {
    expect([2.5, 8, 16, 32, 64].map((g) => Math.round(laneGbps(g) * 10) / 10)).toEqual([2, 7.9, 15.8, 31.5, 60.5]);
  });
});

import { describe, expect, test } from "vitest";
import { seedInventory } from "../checks/testing/seed-inventory.js";
import { deriveNcclEnv } from "./env.js";

describe("NCCL_IB_TC from the node's QoS settings", () => {
  test("the seed sets no traffic class and no PFC: NCCL_IB_TC is left to NCCL", () => {
    expect(deriveNcclEnv(seedInventory()).env.NCCL_IB_TC).toBeUndefined();
  });

  test("every data HCA with global tclass 106: NCCL_IB_TC=106, and the reason says where it came from", () => {
    const inv = seedInventory();
    for (const q of inv.roceQos ?? []) q.trafficClass = 106;
    const r = deriveNcclEnv(inv);
    expect(r.env.NCCL_IB_TC).toBe("106");
    expect(r.reasons.NCCL_IB_TC).toMatch(/tc\/1\/traffic_class, DSCP 26/);
  });

  test("DSCP trust with PFC on priority 3 alone: DSCP 26 lands there, NCCL_IB_TC=104", () => {
    const inv = seedInventory();
    for (const q of inv.roceQos ?? []) {
      q.trust = "dscp";
      q.pfcEnabled = [3];
      q.dscpToPriority = Object.fromEntries(Array.from({ length: 64 }, (_, d) => [d, d >> 3]));
    }
    expect(deriveNcclEnv(inv).env.NCCL_IB_TC).toBe("104");
  });

  test("HCAs that disagree, or an explicit --traffic-class, win over derivation", () => {
    const inv = seedInventory();
    inv.roceQos!.find((q) => q.hca === "mlx5_4")!.trafficClass = 106;
    expect(deriveNcclEnv(inv).env.NCCL_IB_TC).toBeUndefined();
    expect(deriveNcclEnv(inv, { trafficClass: 96 }).env.NCCL_IB_TC).toBe("96");
  });
});

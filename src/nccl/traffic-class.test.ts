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

// NCCL_IB_FIFO_TC (since 2.22.3): the traffic class of NCCL's control messages, short RDMA writes returning credits,
// so they can use a high-priority queue (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-fifo-tc).
describe("NCCL_IB_FIFO_TC beside NCCL_IB_TC", () => {
  test("NCCL_IB_TC's reason says the control messages share its class unless NCCL_IB_FIFO_TC moves them", () => {
    const r = deriveNcclEnv(seedInventory(), { trafficClass: 106 });
    expect(r.reasons.NCCL_IB_TC).toMatch(/control messages .* same class unless NCCL_IB_FIFO_TC/);
    expect(r.env.NCCL_IB_FIFO_TC).toBeUndefined();
  });

  test("--fifo-traffic-class 192 on NCCL 2.23: NCCL_IB_FIFO_TC=192 (DSCP 48) with its reason, no warning", () => {
    const r = deriveNcclEnv(seedInventory(), { trafficClass: 106, fifoTrafficClass: 192, ncclVersion: "2.23.4" });
    expect(r.env.NCCL_IB_FIFO_TC).toBe("192");
    expect(r.reasons.NCCL_IB_FIFO_TC).toMatch(/DSCP 48/);
    expect(r.findings.map((f) => f.code)).not.toContain("NCCL_FIFO_TC_IGNORED");
  });

  test("--fifo-traffic-class on NCCL 2.21: a warning that this release does not read it", () => {
    const r = deriveNcclEnv(seedInventory(), { fifoTrafficClass: 192, ncclVersion: "2.21.5" });
    const warn = r.findings.find((f) => f.code === "NCCL_FIFO_TC_IGNORED");
    expect(warn?.severity).toBe("warning");
    expect(warn?.message).toMatch(/NCCL 2\.21\.5 does not read NCCL_IB_FIFO_TC/);
  });
});

import { describe, expect, test } from "vitest";
import { openReader } from "../host/index.js";
import { readInventory } from "../inventory/index.js";
import { deriveNcclEnv } from "./env.js";

const envOf = async (example: string) =>
  deriveNcclEnv(await readInventory(await openReader({ example })), { ncclVersion: "2.21.5" });

describe("the values a platform injects, each with its honest reason", () => {
  // NCCL_IB_QPS_PER_CONNECTION: more QPs per connection help ECMP spread a RoCE fabric's traffic; InfiniBand's
  // adaptive routing spreads traffic itself (NCCL environment variables,
  // https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-qps-per-connection).
  test("RoCE: NCCL_IB_QPS_PER_CONNECTION=8 for ECMP; InfiniBand: left at NCCL's default, with the reason", async () => {
    const roce = await envOf("a100-8x-roce");
    expect(roce.env.NCCL_IB_QPS_PER_CONNECTION).toBe("8");
    expect(roce.reasons.NCCL_IB_QPS_PER_CONNECTION).toMatch(/ECMP/);
    const ib = await envOf("ib-8x-hdr");
    expect(ib.env.NCCL_IB_QPS_PER_CONNECTION).toBeUndefined();
    expect(ib.reasons.NCCL_IB_QPS_PER_CONNECTION).toMatch(/InfiniBand: adaptive routing/);
  });

  // NCCL_IB_TIMEOUT: 4.096 µs × 2^timeout per try; NCCL_IB_RETRY_CNT (default 7) retries
  // (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-timeout).
  test("NCCL_IB_TIMEOUT=22 says what it costs: a dead peer noticed only after about 2 minutes", async () => {
    const { env, reasons } = await envOf("a100-8x-roce");
    expect(env.NCCL_IB_TIMEOUT).toBe("22");
    expect(reasons.NCCL_IB_TIMEOUT).toMatch(/≈ 17 s per try/);
    expect(reasons.NCCL_IB_TIMEOUT).toMatch(/dead peer is noticed only after about 2 minutes/);
  });
});

describe("profiles: the tuning beside the derived variables", () => {
  const withProfile = async (example: string, profile: "derived" | "reference" | "minimal") =>
    deriveNcclEnv(await readInventory(await openReader({ example })), { ncclVersion: "2.21.5", profile });

  // The reference platform's table injects NCCL_IB_TIMEOUT=22 and NCCL_IB_QPS_PER_CONNECTION=8 into every RDMA pod
  // and NCCL_DEBUG=INFO into every worker (the platform guide's key parameters); on InfiniBand more QPs gain nothing
  // (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-qps-per-connection).
  test("reference on an InfiniBand node: QPS 8 as the platform sets it, with the reason that it gains nothing there", async () => {
    const { env, reasons } = await withProfile("ib-8x-hdr", "reference");
    expect(env).toMatchObject({ NCCL_IB_TIMEOUT: "22", NCCL_IB_QPS_PER_CONNECTION: "8", NCCL_DEBUG: "INFO" });
    expect(reasons.NCCL_IB_QPS_PER_CONNECTION).toMatch(/on InfiniBand it gains nothing/);
    expect(reasons.NCCL_DEBUG).toMatch(/transport and the NICs NCCL chose/);
  });

  test("reference on RoCE keeps the derived HCAs and GID, and adds only the platform's tuning", async () => {
    const derived = await withProfile("a100-8x-roce", "derived");
    const reference = await withProfile("a100-8x-roce", "reference");
    expect(reference.env).toEqual({ ...derived.env, NCCL_DEBUG: "INFO" });
  });

  // NCCL's own NCCL_IB_TIMEOUT default is 18 in 2.14–2.22 and 20 from 2.23 (NCCL environment variables).
  test("minimal leaves every tuning variable at NCCL's default and says so; the HCAs and GID are still derived", async () => {
    const derived = await withProfile("a100-8x-roce", "derived");
    const { env, reasons } = await withProfile("a100-8x-roce", "minimal");
    const { NCCL_IB_TIMEOUT, NCCL_IB_QPS_PER_CONNECTION, NCCL_IB_DISABLE, ...nodeDerived } = derived.env;
    expect(NCCL_IB_TIMEOUT && NCCL_IB_QPS_PER_CONNECTION && NCCL_IB_DISABLE).toBeTruthy();
    expect(env).toEqual(nodeDerived);
    expect(env.NCCL_IB_HCA).toMatch(/^=mlx5_1/);
    expect(reasons.NCCL_IB_TIMEOUT).toMatch(/NCCL's own default \(18 in NCCL 2\.21\.5\)/);
  });
});

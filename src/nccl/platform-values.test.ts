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

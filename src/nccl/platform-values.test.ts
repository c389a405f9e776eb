import { describe, expect, test } from "vitest";
import { openReader } from "../host/index.js";
import { readInventory } from "../inventory/index.js";
import { deriveNcclEnv } from "./env.js";

const envOf = async (example: string) =>
  deriveNcclEnv(await readInventory(await openReader({ example })), { ncclVersion: "2.21.5" });

describe("the default environment: NCCL's own behaviour plus what the node proves", () => {
  // Nothing on a host shows a multi-tier ECMP fabric: NCCL_IB_QPS_PER_CONNECTION is "useful on multi-level fabrics
  // which need multiple queue pairs to have good routing entropy", default 1
  // (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-qps-per-connection).
  // NCCL's own NCCL_IB_TIMEOUT (20 from 2.23, 18 in 2.14–2.22) waits 4.096 µs × 2^t per try, 7 retries: 30 s at 20
  // (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-timeout; NVIDIA/nccl
  // src/transport/net_ib/connect.cc: NCCL_PARAM(IbTimeout, "IB_TIMEOUT", 20)).
  test("RoCE and InfiniBand: no QPS, no timeout, no IB_DISABLE injected; each left unset with the fabric condition it would assume", async () => {
    for (const example of ["a100-8x-roce", "ib-8x-hdr"]) {
      const { env, reasons } = await envOf(example);
      expect(env.NCCL_IB_QPS_PER_CONNECTION, example).toBeUndefined();
      expect(env.NCCL_IB_TIMEOUT, example).toBeUndefined();
      expect(env.NCCL_IB_DISABLE, example).toBeUndefined();
      expect(reasons.NCCL_IB_QPS_PER_CONNECTION).toMatch(/multi-tier fabric .*ECMP.*no host shows/);
      expect(reasons.NCCL_IB_TIMEOUT).toMatch(/NCCL's own default \(18 in NCCL 2\.21\.5\)/);
      expect(env.NCCL_IB_HCA, example).toMatch(/^=mlx5_/);
    }
  });
});

describe("profiles: the tuning beside the derived variables, each stating the fabric it assumes", () => {
  const withProfile = async (
    example: string,
    profile: "derived" | "reference" | "minimal" | "roce-ecmp",
    v = "2.21.5",
  ) => deriveNcclEnv(await readInventory(await openReader({ example })), { ncclVersion: v, profile });

  // The reference platform's table injects NCCL_IB_TIMEOUT=22 and NCCL_IB_QPS_PER_CONNECTION=8 into every RDMA pod
  // and NCCL_DEBUG=INFO into every worker; on InfiniBand more QPs gain nothing.
  test("reference on an InfiniBand node: QPS 8 as the platform sets it, with the reason that it gains nothing there", async () => {
    const { env, reasons } = await withProfile("ib-8x-hdr", "reference");
    expect(env).toMatchObject({ NCCL_IB_TIMEOUT: "22", NCCL_IB_QPS_PER_CONNECTION: "8", NCCL_DEBUG: "INFO" });
    expect(reasons.NCCL_IB_QPS_PER_CONNECTION).toMatch(/on InfiniBand it gains nothing/);
    expect(reasons.NCCL_IB_TIMEOUT).toMatch(/assumes links that flap for longer/);
    expect(reasons.NCCL_IB_TIMEOUT).toMatch(/dead peer is noticed only after about 2 minutes/);
    expect(reasons.NCCL_DEBUG).toMatch(/transport and the NICs NCCL chose/);
  });

  test("reference on RoCE keeps the derived HCAs and GID, and adds only the platform's tuning", async () => {
    const derived = await withProfile("a100-8x-roce", "derived");
    const reference = await withProfile("a100-8x-roce", "reference");
    expect(reference.env).toEqual({
      ...derived.env,
      NCCL_IB_TIMEOUT: "22",
      NCCL_IB_QPS_PER_CONNECTION: "8",
      NCCL_IB_DISABLE: "0",
      NCCL_DEBUG: "INFO",
    });
    expect(reference.reasons.NCCL_IB_QPS_PER_CONNECTION).toMatch(/assumes a multi-tier RoCE fabric with ECMP/);
  });

  test("minimal is the default's environment", async () => {
    expect((await withProfile("a100-8x-roce", "minimal")).env).toEqual(
      (await withProfile("a100-8x-roce", "derived")).env,
    );
  });

  // Split mode (NCCL_IB_SPLIT_DATA_ON_QPS=1) "may cause a visible latency degradation if many QPs are used"; default
  // 1 in 2.18 and 2.19, 0 since 2.20 (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-split-data-on-qps;
  // NVIDIA/nccl v2.19.3-1 src/transport/net_ib.cc: NCCL_PARAM(IbSplitDataOnQps, "IB_SPLIT_DATA_ON_QPS", 1), and 0
  // from v2.20.3-1).
  test("roce-ecmp: 4 QPs on RoCE with the ECMP assumption; SPLIT_DATA_ON_QPS=0 on 2.18/2.19 only; nothing on InfiniBand", async () => {
    const on219 = await withProfile("a100-8x-roce", "roce-ecmp", "2.19.3");
    expect(on219.env).toMatchObject({ NCCL_IB_QPS_PER_CONNECTION: "4", NCCL_IB_SPLIT_DATA_ON_QPS: "0" });
    expect(on219.reasons.NCCL_IB_QPS_PER_CONNECTION).toMatch(/assumes a multi-tier RoCE fabric with ECMP/);
    expect(on219.reasons.NCCL_IB_SPLIT_DATA_ON_QPS).toMatch(/2\.18 and 2\.19/);
    expect((await withProfile("a100-8x-roce", "roce-ecmp", "2.18.1")).env.NCCL_IB_SPLIT_DATA_ON_QPS).toBe("0");
    const on221 = await withProfile("a100-8x-roce", "roce-ecmp", "2.21.5");
    expect(on221.env.NCCL_IB_QPS_PER_CONNECTION).toBe("4");
    expect(on221.env.NCCL_IB_SPLIT_DATA_ON_QPS).toBeUndefined();
    expect((await withProfile("a100-8x-roce", "reference", "2.19.3")).env.NCCL_IB_SPLIT_DATA_ON_QPS).toBe("0");
    const ib = await withProfile("ib-8x-hdr", "roce-ecmp");
    expect(ib.env.NCCL_IB_QPS_PER_CONNECTION).toBeUndefined();
    expect(ib.reasons.NCCL_IB_QPS_PER_CONNECTION).toMatch(/InfiniBand/);
  });
});

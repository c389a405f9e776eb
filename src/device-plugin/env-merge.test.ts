import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { mergeContainerEnv } from "./env-merge.js";

const injected = {
  NCCL_IB_HCA: "=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8",
  NCCL_SOCKET_IFNAME: "eth0",
  NCCL_IB_GID_INDEX: "3",
  NCCL_IB_TIMEOUT: "22",
  NCCL_IB_QPS_PER_CONNECTION: "8",
};

describe("device-plugin envs meet the pod's own env the way the kubelet merges them", () => {
  test("a job that pins NCCL_IB_HCA to two HCAs keeps its value; the other injected variables still arrive", () => {
    const env = mergeContainerEnv(injected, [{ name: "NCCL_IB_HCA", value: "=mlx5_1,mlx5_2" }]);
    expect(env.NCCL_IB_HCA).toBe("=mlx5_1,mlx5_2");
    expect(env.NCCL_IB_TIMEOUT).toBe("22");
    expect(env.NCCL_SOCKET_IFNAME).toBe("eth0");
  });

  test("a job that sets nothing gets exactly the injected variables", () => {
    expect(mergeContainerEnv(injected, [])).toEqual(injected);
  });

  test("within the pod spec the last entry of a name wins (envFrom first, then env:)", () => {
    const env = mergeContainerEnv(injected, [
      { name: "NCCL_IB_TIMEOUT", value: "18" },
      { name: "NCCL_IB_TIMEOUT", value: "20" },
    ]);
    expect(env.NCCL_IB_TIMEOUT).toBe("20");
  });

  test("for any plugin envs and any container env, every name the container sets has the container's last value", () => {
    const name = fc.constantFrom("NCCL_IB_HCA", "NCCL_IB_TIMEOUT", "NCCL_DEBUG", "A", "B");
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.string()),
        fc.array(fc.record({ name, value: fc.string() })),
        (plugin, container) => {
          const merged = mergeContainerEnv(plugin, container);
          const lastByName = new Map(container.map((e) => [e.name, e.value]));
          for (const [k, v] of lastByName) expect(merged[k]).toBe(v);
          for (const [k, v] of Object.entries(plugin)) if (!lastByName.has(k as never)) expect(merged[k]).toBe(v);
        },
      ),
    );
  });
});

/**
 * The device plugin end to end on the seed node: the example host materialized into a real tree, read by the real
 * host reader and node model, served over real gRPC to a fake kubelet on unix sockets.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { AllocateResponse, PreferredAllocationResponse } from "../src/device-plugin/api.js";
import { DEFAULT_SELECTION } from "../src/device-plugin/config.js";
import { mergeContainerEnv } from "../src/device-plugin/env-merge.js";
import { memoryLogger } from "../src/device-plugin/log.js";
import { ncclEnvDeriver } from "../src/device-plugin/node-view.js";
import { type PluginConfig, RdmaDevicePlugin } from "../src/device-plugin/plugin.js";
import { findExample } from "../src/examples/index.js";
import { materializeSnapshot } from "../src/examples/materialize.js";
import { openReader } from "../src/host/index.js";
import { readInventory } from "../src/inventory/index.js";
import { call, FakeKubelet, TEST_PLUGIN_TIMINGS, waitFor } from "./support/fake-kubelet.js";

const SEED = "a100-8x-roce";
const DATA = ["mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8"];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function seedNode(over: Partial<PluginConfig> = {}) {
  const base = await mkdtemp(join(tmpdir(), "kube-rdma-seed-"));
  cleanups.push(() => rm(base, { recursive: true, force: true }));
  const root = join(base, "host");
  const pluginDir = join(base, "device-plugins");
  await mkdir(pluginDir);
  materializeSnapshot(findExample(SEED)!.snapshot(), root);
  const kubelet = new FakeKubelet(pluginDir);
  await kubelet.start();
  cleanups.push(() => kubelet.stop());
  const reader = await openReader({ root });
  const plugin = new RdmaDevicePlugin({
    ...TEST_PLUGIN_TIMINGS,
    pluginDir,
    root,
    sharedUnits: 1000,
    sharedHealth: "any",
    selection: DEFAULT_SELECTION,
    registerTimeoutMs: 2000,
    loadInventory: () => readInventory(reader),
    deriveEnv: ncclEnvDeriver(),
    log: memoryLogger(),
    ...over,
  });
  cleanups.push(() => plugin.stop());
  const setPort = (hca: string, state: string, phys: string) =>
    Promise.all([
      writeFile(join(root, `sys/class/infiniband/${hca}/ports/1/state`), `${state}\n`),
      writeFile(join(root, `sys/class/infiniband/${hca}/ports/1/phys_state`), `${phys}\n`),
    ]);
  return { kubelet, plugin, pluginDir, setPort };
}

const allocate = (k: FakeKubelet, ids: string[]) =>
  call<AllocateResponse>((cb) => k.client!.Allocate({ container_requests: [{ devices_ids: ids }] }, cb));

describe("rdma/hca on the seed node (8×A100, mlx5_0 management on eth0, mlx5_1..8 data)", () => {
  test("registers, advertises 1000 healthy units, and a unit gives the 8 data HCAs' uverbs and rdma_cm", async () => {
    const { kubelet, plugin, pluginDir } = await seedNode();
    await plugin.start();
    const reg = await waitFor("registration", () => kubelet.registrations[0]);
    expect(reg).toMatchObject({ version: "v1beta1", endpoint: "kube-rdma-rdma_hca.sock", resource_name: "rdma/hca" });
    const list = await waitFor("the list", () => kubelet.latest);
    expect(list).toHaveLength(1000);
    expect(list.every((d) => d.health === "Healthy")).toBe(true);
    const res = await allocate(kubelet, ["rdma-shared-42"]);
    const devices = res.container_responses[0]!.devices;
    expect(devices.map((d) => d.container_path)).toEqual([
      ...DATA.map((_, i) => `/dev/infiniband/uverbs${i + 1}`),
      "/dev/infiniband/rdma_cm",
    ]);
    expect(devices.every((d) => d.permissions === "rw" && d.host_path === d.container_path)).toBe(true);
    // The pod network is the default: Allocate cannot see hostNetwork, so no host interface name is injected.
    expect(res.container_responses[0]!.envs).not.toHaveProperty("NCCL_SOCKET_IFNAME");
    // The default profile injects what the node proves and nothing it cannot (no timeout, no QP count).
    expect(res.container_responses[0]!.envs).toEqual({
      NCCL_IB_HCA: "=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8",
      NCCL_IB_GID_INDEX: "3",
    });
    await plugin.stop();
    expect(await readdir(pluginDir)).not.toContain("kube-rdma-rdma_hca.sock");
  });

  test("a job that sets NCCL_IB_HCA itself keeps it; the other injected variables still reach it", async () => {
    const { kubelet, plugin } = await seedNode();
    await plugin.start();
    await waitFor("the list", () => kubelet.latest);
    const injected = (await allocate(kubelet, ["rdma-shared-7"])).container_responses[0]!.envs;
    const env = mergeContainerEnv(injected, [
      { name: "NCCL_IB_HCA", value: "=mlx5_1,mlx5_2" },
      { name: "NCCL_DEBUG", value: "INFO" },
    ]);
    expect(env).toMatchObject({ NCCL_IB_HCA: "=mlx5_1,mlx5_2", NCCL_DEBUG: "INFO", NCCL_IB_GID_INDEX: "3" });
  });

  test("mlx5_3 DOWN/Disabled → units Unhealthy within 2 polls and NCCL_IB_HCA drops it; back → Healthy", async () => {
    const { kubelet, plugin, setPort } = await seedNode();
    await plugin.start();
    await waitFor("a healthy list", () => kubelet.latest?.every((d) => d.health === "Healthy"));
    const downAt = plugin.pollStats.polls;
    await setPort("mlx5_3", "1: DOWN", "3: Disabled");
    await waitFor("unhealthy", () => kubelet.latest?.every((d) => d.health === "Unhealthy"));
    expect(plugin.pollStats.changedAtPoll - downAt).toBeLessThanOrEqual(2);
    // The node model is re-read when a port changes state; nccl-env leaves down ports out of NCCL_IB_HCA.
    const hcaVar = async () => (await allocate(kubelet, ["rdma-shared-1"])).container_responses[0]!.envs.NCCL_IB_HCA;
    const without = await waitFor("mlx5_3 out of NCCL_IB_HCA", async () => {
      const v = await hcaVar();
      return v?.includes("mlx5_3") ? undefined : v;
    });
    expect(without).toBe("=mlx5_1,mlx5_2,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8");
    const upAt = plugin.pollStats.polls;
    await setPort("mlx5_3", "4: ACTIVE", "5: LinkUp");
    await waitFor("healthy", () => kubelet.latest?.every((d) => d.health === "Healthy"));
    expect(plugin.pollStats.changedAtPoll - upAt).toBeLessThanOrEqual(2);
    await waitFor("mlx5_3 back in NCCL_IB_HCA", async () => (await hcaVar())?.includes("mlx5_3"));
  });

  test("a kubelet restart: fresh registration, and the new ListAndWatch has all 1000 units", async () => {
    const { kubelet, plugin } = await seedNode();
    await plugin.start();
    await waitFor("registration", () => kubelet.registrations.length === 1);
    await kubelet.restart();
    // A kubelet's restart is seen on the plugin's next watch of its socket: allow a loaded machine its time.
    await waitFor("re-registration", () => kubelet.registrations.length === 2, 30_000);
    await waitFor("the list again", () => kubelet.latest?.length === 1000, 30_000);
    expect((await allocate(kubelet, ["rdma-shared-0"])).container_responses[0]!.devices).toHaveLength(9);
  }, 70_000);

  test("exclusive: NUMA 0 for mlx5_1..4, 1 for mlx5_5..8; preferred pairs share a PCIe switch", async () => {
    const { kubelet, plugin } = await seedNode({ mode: "exclusive" });
    await plugin.start();
    const list = await waitFor("the list", () => kubelet.latest);
    expect(list.map((d) => `${d.ID}@${d.topology?.nodes[0]?.ID}`)).toEqual(DATA.map((h, i) => `${h}@${i < 4 ? 0 : 1}`));
    const res = await call<PreferredAllocationResponse>((cb) =>
      kubelet.client!.GetPreferredAllocation(
        {
          container_requests: [
            { available_deviceIDs: DATA, must_include_deviceIDs: ["mlx5_3"], allocation_size: 2 },
            { available_deviceIDs: DATA, must_include_deviceIDs: ["mlx5_8"], allocation_size: 4 },
          ],
        },
        cb,
      ),
    );
    expect(res.container_responses[0]!.deviceIDs).toEqual(["mlx5_3", "mlx5_4"]);
    expect([...res.container_responses[1]!.deviceIDs].sort()).toEqual(["mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8"]);
    const pair = await allocate(kubelet, ["mlx5_6", "mlx5_5"]);
    expect(pair.container_responses[0]!.envs.NCCL_IB_HCA).toBe("=mlx5_5,mlx5_6");
    expect(pair.container_responses[0]!.devices.map((d) => d.host_path)).toEqual([
      "/dev/infiniband/uverbs5",
      "/dev/infiniband/uverbs6",
      "/dev/infiniband/rdma_cm",
    ]);
  });

  test("--inject-nccl-env=false: devices only, no envs", async () => {
    const { kubelet, plugin } = await seedNode({ deriveEnv: null });
    await plugin.start();
    await waitFor("the list", () => kubelet.latest);
    expect((await allocate(kubelet, ["rdma-shared-0"])).container_responses[0]!.envs).toEqual({});
  });
});

import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, test } from "vitest";
import { call, type FakeKubelet, pluginClient, waitFor } from "../../test/support/fake-kubelet.js";
import { LeanGrpcClient } from "../../test/support/lean-grpc.js";
import { DOWN, inventoryFor, removeHca, setPort, twoNumaHcas, writeTree } from "../../test/support/rdma-node.js";
import { testPlugin } from "../../test/support/started-plugin.js";
import { type AllocateRequest, type AllocateResponse, loadApi, type PreferredAllocationResponse } from "./api.js";
import { type PluginConfig, PluginStartError } from "./plugin.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(over: Partial<PluginConfig> = {}) {
  const t = await testPlugin(cleanups, over);
  const { root, hcas } = t;
  return {
    ...t,
    unplug: async (name: string) => {
      const h = hcas.find((x) => x.name === name)!;
      t.setPresent(t.present().filter((x) => x.name !== name));
      await removeHca(root, h);
    },
    replug: async (name: string) => {
      const h = hcas.find((x) => x.name === name)!;
      await writeTree(root, [h]);
      t.setPresent(hcas.filter((x) => x === h || t.present().includes(x)));
    },
  };
}

const allocate = (k: FakeKubelet, ids: string[]) =>
  call<AllocateResponse>((cb) => k.client!.Allocate({ container_requests: [{ devices_ids: ids }] }, cb));

describe("the plugin registers rdma/hca with the kubelet and serves it", () => {
  test("registration carries version v1beta1, our socket name, the resource and the options", async () => {
    const { kubelet, plugin, pluginDir } = await setup();
    await plugin.start();
    const reg = await waitFor("a registration", () => kubelet.registrations[0]);
    expect(reg).toEqual({
      version: "v1beta1",
      endpoint: "kube-rdma-rdma_hca.sock",
      resource_name: "rdma/hca",
      options: { pre_start_required: false, get_preferred_allocation_available: false },
    });
    expect(await readdir(pluginDir)).toContain("kube-rdma-rdma_hca.sock");
    await waitFor("the options", () => kubelet.options);
    expect(kubelet.options).toEqual({ pre_start_required: false, get_preferred_allocation_available: false });
  });

  test("shared mode advertises N stable, healthy units without topology", async () => {
    const { kubelet, plugin } = await setup();
    await plugin.start();
    const list = await waitFor("a device list", () => kubelet.latest);
    expect(list.map((d) => d.ID)).toEqual(Array.from({ length: 10 }, (_, i) => `rdma-shared-${i}`));
    expect(list.every((d) => d.health === "Healthy" && d.topology === null)).toBe(true);
  });

  test("Allocate gives uverbs of the 8 data HCAs (not the management mlx5_0) and rdma_cm, rw, host = container path", async () => {
    const { kubelet, plugin } = await setup();
    await plugin.start();
    await waitFor("a device list", () => kubelet.latest);
    const res = await allocate(kubelet, ["rdma-shared-3"]);
    const devices = res.container_responses[0]!.devices;
    expect(devices.map((d) => d.container_path)).toEqual([
      ...Array.from({ length: 8 }, (_, i) => `/dev/infiniband/uverbs${i + 1}`),
      "/dev/infiniband/rdma_cm",
    ]);
    expect(devices.every((d) => d.host_path === d.container_path && d.permissions === "rw")).toBe(true);
    expect(res.container_responses[0]!.envs).toEqual({});
  });

  test("a bare HTTP/2 gRPC client (the bench's stand-in for the kubelet's Go client) gets the same Allocate answer", async () => {
    const { kubelet, plugin, pluginDir } = await setup();
    await plugin.start();
    await waitFor("a device list", () => kubelet.latest);
    const lean = new LeanGrpcClient(join(pluginDir, "kube-rdma-rdma_hca.sock"));
    cleanups.push(async () => lean.close());
    const method = loadApi().devicePluginService.Allocate as grpc.MethodDefinition<AllocateRequest, AllocateResponse>;
    const request = { container_requests: [{ devices_ids: ["rdma-shared-3"] }] };
    expect(await lean.unary(method, request)).toEqual(await allocate(kubelet, ["rdma-shared-3"]));
    await expect(lean.unary({ ...method, path: "/v1beta1.DevicePlugin/NoSuchMethod" }, request)).rejects.toMatchObject({
      status: grpc.status.UNIMPLEMENTED,
    });
  });

  test("with --mad, umadN and issmN of each data HCA are added", async () => {
    const { kubelet, plugin } = await setup({ mad: true });
    await plugin.start();
    await waitFor("a device list", () => kubelet.latest);
    const paths = (await allocate(kubelet, ["rdma-shared-0"])).container_responses[0]!.devices.map((d) => d.host_path);
    expect(paths).toContain("/dev/infiniband/umad5");
    expect(paths).toContain("/dev/infiniband/issm5");
    expect(paths).not.toContain("/dev/infiniband/umad0");
  });

  test("the NCCL variables the plugin derives arrive as envs, for the HCAs it hands out", async () => {
    const seen: string[][] = [];
    const { kubelet, plugin } = await setup({
      deriveEnv: (_inv, hcas) => {
        seen.push([...hcas]);
        return { NCCL_IB_HCA: `=${hcas.join(",")}` };
      },
    });
    await plugin.start();
    await waitFor("a device list", () => kubelet.latest);
    const res = await allocate(kubelet, ["rdma-shared-0"]);
    expect(res.container_responses[0]!.envs.NCCL_IB_HCA).toBe(
      "=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8",
    );
    await allocate(kubelet, ["rdma-shared-1"]);
    expect(seen).toHaveLength(1); // derived once when the node model was read, not per Allocate
  });

  test("a data port going DOWN makes the units Unhealthy (policy any) within 2 health intervals, Healthy when back", async () => {
    const { kubelet, plugin, root } = await setup({ sharedHealth: "any" });
    await plugin.start();
    await waitFor("a healthy list", () => kubelet.latest?.every((d) => d.health === "Healthy"));
    const downAt = plugin.pollStats.polls;
    await setPort(root, "mlx5_3", DOWN);
    await waitFor("unhealthy units", () => kubelet.latest?.every((d) => d.health === "Unhealthy"));
    // Counted in health polls, not wall time: the poll running now may miss the write, the next one sees it.
    expect(plugin.pollStats.changedAtPoll - downAt).toBeLessThanOrEqual(2);
    const upAt = plugin.pollStats.polls;
    await setPort(root, "mlx5_3", ["4: ACTIVE", "5: LinkUp"]);
    await waitFor("healthy again", () => kubelet.latest?.every((d) => d.health === "Healthy"));
    expect(plugin.pollStats.changedAtPoll - upAt).toBeLessThanOrEqual(2);
  });

  test("exclusive mode: mlx5_3's port stays ACTIVE but /dev/infiniband/uverbs3 is gone (ib_uverbs reloading, /dev not mounted) → mlx5_3 Unhealthy, logged with the missing device; Healthy when it is back", async () => {
    const { kubelet, plugin, root, log } = await setup({ mode: "exclusive" });
    await plugin.start();
    await waitFor(
      "a healthy list",
      () => kubelet.latest?.length === 8 && kubelet.latest.every((d) => d.health === "Healthy"),
    );
    const verbs = join(root, "dev/infiniband/uverbs3");
    await rm(verbs);
    await waitFor("mlx5_3 unhealthy", () => kubelet.latest?.find((d) => d.ID === "mlx5_3" && d.health === "Unhealthy"));
    expect(kubelet.latest!.filter((d) => d.health === "Healthy")).toHaveLength(7);
    expect(log.records.find((r) => r.msg === "HCA unhealthy" && r.hca === "mlx5_3")?.missingDevices).toEqual([
      "/dev/infiniband/uverbs3",
    ]);
    await writeFile(verbs, "");
    await waitFor("mlx5_3 healthy again", () => kubelet.latest?.every((d) => d.health === "Healthy"));
  });

  test("with the default policy all, one port down keeps the shared units Healthy; all down makes them Unhealthy", async () => {
    const { kubelet, plugin, root, hcas, log } = await setup();
    await plugin.start();
    await waitFor("a list", () => kubelet.latest);
    await setPort(root, "mlx5_3", DOWN);
    await waitFor("the port-down log", () => log.records.find((r) => r.msg === "HCA unhealthy" && r.hca === "mlx5_3"));
    expect(kubelet.latest?.every((d) => d.health === "Healthy")).toBe(true);
    for (const h of hcas.filter((x) => x.role === "data")) await setPort(root, h.name, DOWN);
    await waitFor("unhealthy units", () => kubelet.latest?.every((d) => d.health === "Unhealthy"));
  });

  test("a port whose link_downed grows between two health polls is logged as PORT_FLAPPING and counted", async () => {
    const { kubelet, plugin, root, log } = await setup();
    const counters = join(root, "sys/class/infiniband/mlx5_3/ports/1/counters");
    const fs = await import("node:fs/promises");
    await fs.mkdir(counters, { recursive: true });
    await fs.writeFile(join(counters, "link_downed"), "1\n");
    await plugin.start();
    await waitFor("a list", () => kubelet.latest);
    const seenAt = plugin.pollStats.polls;
    await waitFor("a poll that read the counter", () => plugin.pollStats.polls >= seenAt + 2);
    await fs.writeFile(join(counters, "link_downed"), "3\n");
    const rec = await waitFor("the flap log", () => log.records.find((r) => r.code === "PORT_FLAPPING"));
    expect(rec).toMatchObject({ subject: "mlx5_3", level: "warn" });
    expect(String(rec.msg)).toMatch(/mlx5_3 lost its link 2 time\(s\)/);
    // The port is ACTIVE in both polls: a flap it recovered from does not make the units unhealthy.
    expect(kubelet.latest?.every((d) => d.health === "Healthy")).toBe(true);
  });

  test("a kubelet restart (sockets removed, kubelet.sock recreated) → fresh registration and a working ListAndWatch", async () => {
    const { kubelet, plugin, pluginDir } = await setup();
    await plugin.start();
    await waitFor("first registration", () => kubelet.registrations.length === 1);
    await waitFor("a list", () => kubelet.latest);
    const before = kubelet.lists.length;
    await kubelet.restart();
    await waitFor("second registration", () => kubelet.registrations.length === 2, 15_000);
    await waitFor("a list on the new stream", () => kubelet.lists.length > before);
    expect(kubelet.latest).toHaveLength(10);
    expect(await readdir(pluginDir)).toContain("kube-rdma-rdma_hca.sock");
    const res = await allocate(kubelet, ["rdma-shared-9"]);
    expect(res.container_responses[0]!.devices.length).toBe(9);
  });

  test("rm -rf of the device-plugins directory → logged, no crash; when the kubelet creates it again the plugin serves and registers again", async () => {
    const { kubelet, plugin, pluginDir, log } = await setup();
    const rejections: unknown[] = [];
    const onRejection = (r: unknown) => rejections.push(r);
    process.on("unhandledRejection", onRejection);
    cleanups.push(async () => void process.off("unhandledRejection", onRejection));
    await plugin.start();
    await waitFor("first registration", () => kubelet.registrations.length === 1);
    await kubelet.stop();
    await rm(pluginDir, { recursive: true, force: true });
    await waitFor("a log line saying the directory is gone", () =>
      log.records.find((r) => r.level === "warn" && /directory is gone/.test(r.msg)),
    );
    await new Promise((r) => setTimeout(r, 200)); // a few more polls while it is gone: still no crash
    await mkdir(pluginDir);
    await kubelet.start();
    await waitFor("second registration", () => kubelet.registrations.length === 2, 15_000);
    await waitFor("the 10 units on the new stream", () => kubelet.latest?.length === 10);
    const res = await allocate(kubelet, ["rdma-shared-3"]);
    expect(res.container_responses[0]!.devices.length).toBeGreaterThan(0);
    expect(rejections).toEqual([]);
    expect(log.records.filter((r) => /directory is gone/.test(r.msg))).toHaveLength(1);
  });

  test("kubelet.sock recreated while our socket stays → registers again, same device list", async () => {
    const { kubelet, plugin } = await setup();
    await plugin.start();
    await waitFor("first registration", () => kubelet.registrations.length === 1);
    await kubelet.stop(); // removes only kubelet.sock
    await kubelet.start();
    await waitFor("second registration", () => kubelet.registrations.length === 2, 15_000);
    await waitFor("the same 10 units on the new stream", () => kubelet.latest?.length === 10);
  });

  test("our socket removed while the kubelet is answering our registration → the plugin serves again and registers again, and the kubelet gets the list", async () => {
    // The kubelet dials the endpoint only after Register returns (pluginwatcher/device manager). A registration
    // that was in flight while our socket was removed pointed the kubelet at a socket that is gone: it must not
    // count as registered.
    const { kubelet, plugin, pluginDir } = await setup();
    kubelet.interceptRegister = async (endpoint) => {
      await rm(join(pluginDir, endpoint), { force: true });
      await kubelet.connect(endpoint).catch(() => undefined); // dialled while the socket is gone: no stream
      await waitFor("the plugin serving its socket again", async () => (await readdir(pluginDir)).includes(endpoint));
    };
    await plugin.start();
    await waitFor("the 10 units on a stream", () => kubelet.latest?.length === 10, 15_000);
    expect(kubelet.registrations).toHaveLength(2);
  });

  test("shutdown removes our socket", async () => {
    const { plugin, pluginDir, kubelet } = await setup();
    await plugin.start();
    await waitFor("registration", () => kubelet.registrations[0]);
    await plugin.stop();
    expect(await readdir(pluginDir)).not.toContain("kube-rdma-rdma_hca.sock");
  });
});

describe("exclusive mode: one unit per data HCA, with NUMA topology and preferred allocations", () => {
  test("each data HCA is a unit carrying its NUMA node", async () => {
    const { kubelet, plugin } = await setup({ mode: "exclusive" });
    await plugin.start();
    const list = await waitFor("a list", () => kubelet.latest);
    expect(list.map((d) => [d.ID, d.topology?.nodes[0]?.ID])).toEqual([
      ["mlx5_1", 0],
      ["mlx5_2", 0],
      ["mlx5_3", 0],
      ["mlx5_4", 0],
      ["mlx5_5", 1],
      ["mlx5_6", 1],
      ["mlx5_7", 1],
      ["mlx5_8", 1],
    ]);
    expect(kubelet.registrations[0]!.options?.get_preferred_allocation_available).toBe(true);
  });

  test("two HCAs are preferred behind one PCIe switch; with must_include mlx5_6, its switch partner mlx5_5", async () => {
    const { kubelet, plugin } = await setup({ mode: "exclusive" });
    await plugin.start();
    await waitFor("a list", () => kubelet.latest);
    const all = Array.from({ length: 8 }, (_, i) => `mlx5_${i + 1}`);
    const res = await call<PreferredAllocationResponse>((cb) =>
      kubelet.client!.GetPreferredAllocation(
        {
          container_requests: [
            { available_deviceIDs: all, must_include_deviceIDs: [], allocation_size: 2 },
            { available_deviceIDs: all, must_include_deviceIDs: ["mlx5_6"], allocation_size: 2 },
            { available_deviceIDs: all, must_include_deviceIDs: ["mlx5_7"], allocation_size: 4 },
          ],
        },
        cb,
      ),
    );
    expect(res.container_responses[0]!.deviceIDs).toEqual(["mlx5_1", "mlx5_2"]);
    expect(res.container_responses[1]!.deviceIDs).toEqual(["mlx5_6", "mlx5_5"]);
    expect([...res.container_responses[2]!.deviceIDs].sort()).toEqual(["mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8"]);
  });

  // The kubelet offers only served IDs, at most as many as it offers, must-includes among them (kubelet
  // devicemanager); anything else is a confused or hostile client: InvalidArgument, with a short answer.
  test.each([
    [
      "50,000 unknown IDs",
      {
        available_deviceIDs: [...Array.from({ length: 50_000 }, (_, i) => `bogus-${i}`), "mlx5_1"],
        must_include_deviceIDs: [],
        allocation_size: 1,
      },
    ],
    [
      "a must-include ID it does not serve",
      { available_deviceIDs: ["mlx5_1", "mlx5_2"], must_include_deviceIDs: ["mlx5_99"], allocation_size: 1 },
    ],
    [
      "an allocation_size of 1e9",
      { available_deviceIDs: ["mlx5_1", "mlx5_2"], must_include_deviceIDs: [], allocation_size: 1e9 },
    ],
  ])("GetPreferredAllocation with %s → InvalidArgument naming what is wrong", async (_name, request) => {
    const { kubelet, plugin } = await setup({ mode: "exclusive" });
    await plugin.start();
    await waitFor("a list", () => kubelet.latest);
    const err = await call<PreferredAllocationResponse>((cb) =>
      kubelet.client!.GetPreferredAllocation({ container_requests: [request] }, cb),
    ).then(
      () => null,
      (e: { code: number; details: string }) => e,
    );
    expect(err?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err?.details.length).toBeLessThan(300);
  });

  test("GetPreferredAllocation with 10,000 copies of one offered ID answers that ID once", async () => {
    const { kubelet, plugin } = await setup({ mode: "exclusive" });
    await plugin.start();
    await waitFor("a list", () => kubelet.latest);
    const res = await call<PreferredAllocationResponse>((cb) =>
      kubelet.client!.GetPreferredAllocation(
        {
          container_requests: [
            {
              available_deviceIDs: Array.from({ length: 10_000 }, () => "mlx5_1"),
              must_include_deviceIDs: [],
              allocation_size: 1,
            },
          ],
        },
        cb,
      ),
    );
    expect(res.container_responses[0]!.deviceIDs).toEqual(["mlx5_1"]);
  });

  test("Allocate of two HCAs gives just their uverbs and rdma_cm", async () => {
    const { kubelet, plugin } = await setup({ mode: "exclusive" });
    await plugin.start();
    await waitFor("a list", () => kubelet.latest);
    const res = await allocate(kubelet, ["mlx5_6", "mlx5_5"]);
    expect(res.container_responses[0]!.devices.map((d) => d.host_path)).toEqual([
      "/dev/infiniband/uverbs5",
      "/dev/infiniband/uverbs6",
      "/dev/infiniband/rdma_cm",
    ]);
  });

  test("an HCA that vanishes: an Allocate that asks for it fails (the pod must not start without it); the list drops it", async () => {
    const { kubelet, plugin, unplug, replug, log } = await setup({ mode: "exclusive" });
    await plugin.start();
    await waitFor("a list", () => kubelet.latest?.length === 8);
    await unplug("mlx5_4");
    // Whether the health poll already dropped mlx5_4 (unknown ID) or not (its uverbs4 is gone), the answer is no.
    const err = await allocate(kubelet, ["mlx5_3", "mlx5_4"]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: grpc.status.NOT_FOUND });
    expect((err as Error).message).toContain("mlx5_4");
    expect(log.records.some((r) => r.level === "error" && /Allocate refused/.test(r.msg))).toBe(true);
    await waitFor("mlx5_4 gone from the list", () => kubelet.latest?.length === 7);
    expect(kubelet.latest!.map((d) => d.ID)).not.toContain("mlx5_4");
    const rest = await allocate(kubelet, ["mlx5_3"]);
    expect(rest.container_responses[0]!.devices.map((d) => d.host_path)).toEqual([
      "/dev/infiniband/uverbs3",
      "/dev/infiniband/rdma_cm",
    ]);
    await replug("mlx5_4");
    await waitFor("mlx5_4 back in the list", () => kubelet.latest?.length === 8);
  });

  test("exclusive mode: an Allocate of a device ID the plugin never served fails with NOT_FOUND naming it, not rdma_cm only", async () => {
    const { kubelet, plugin } = await setup({ mode: "exclusive" });
    await plugin.start();
    await waitFor("a list", () => kubelet.latest?.length === 8);
    const err = await allocate(kubelet, ["mlx5_99"]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: grpc.status.NOT_FOUND });
    expect((err as Error).message).toContain("mlx5_99");
    expect((err as Error).message).toContain("serving: mlx5_1, mlx5_2");
  });

  test("shared mode: a unit ID from an older --shared-units still gets every data HCA (any unit gives all)", async () => {
    const { kubelet, plugin } = await setup();
    await plugin.start();
    await waitFor("a list", () => kubelet.latest);
    const res = await allocate(kubelet, ["rdma-shared-5000"]);
    expect(res.container_responses[0]!.devices).toHaveLength(9);
  });
});

describe("bad input: clear errors and logs, no crash", () => {
  test("a missing plugin dir fails start with a message naming the dir and the fix", async () => {
    const { plugin } = await setup({ pluginDir: "/nonexistent/device-plugins" });
    const err = await plugin.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PluginStartError);
    expect((err as PluginStartError).message).toContain("/nonexistent/device-plugins does not exist");
    expect((err as PluginStartError).hint).toContain("--plugin-dir");
  });

  test("a metrics port already in use fails start with the address and the fix", async () => {
    const { createServer } = await import("node:net");
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()));
    cleanups.push(() => new Promise((r) => busy.close(() => r())));
    const port = (busy.address() as { port: number }).port;
    const { plugin } = await setup({ metricsAddr: { host: "127.0.0.1", port } });
    const err = await plugin.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PluginStartError);
    expect((err as Error).message).toContain(`cannot serve metrics on 127.0.0.1:${port}`);
  });

  test("a kubelet that refuses registration → retries with growing delays and a log line per failure, then succeeds", async () => {
    const { kubelet, plugin, log } = await setup();
    kubelet.refuseWith = { code: grpc.status.FAILED_PRECONDITION, details: "plugin endpoint already registered" };
    await plugin.start();
    await waitFor("three refusals", () => kubelet.refused >= 3);
    kubelet.refuseWith = null;
    await waitFor("a registration", () => kubelet.registrations[0], 5000);
    const failures = log.records.filter((r) => r.msg === "registration failed; retrying");
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures[0]).toMatchObject({ code: "FAILED_PRECONDITION", error: "plugin endpoint already registered" });
    const delays = failures.map((f) => f.retryInMs as number);
    expect(delays.slice(0, 3)).toEqual([20, 40, 80]);
    await waitFor("the success log", () => log.records.find((r) => r.msg === "registered with kubelet"));
  });

  test("a node model that cannot be read yet: logged once, nothing advertised, served as soon as it reads", async () => {
    let fail = true;
    const hcas = twoNumaHcas();
    const { kubelet, plugin, log } = await setup({
      loadInventory: async () => {
        if (fail) throw new Error("/sys/class/infiniband: ENOENT (driver not loaded yet)");
        return inventoryFor(hcas);
      },
    });
    await plugin.start();
    await waitFor("registration", () => kubelet.registrations[0]);
    await waitFor("the first list", () => kubelet.latest);
    expect(kubelet.latest).toEqual([]);
    await waitFor("a few polls", () => plugin.pollStats.polls >= 3);
    expect(log.records.filter((r) => r.level === "error" && /node model/.test(r.msg))).toHaveLength(1);
    fail = false;
    await waitFor("the units", () => kubelet.latest?.length === 10);
  });

  test("no kubelet yet: the plugin waits, then registers as soon as kubelet.sock appears", async () => {
    const { kubelet, plugin, log } = await setup({ backoffMaxMs: 60_000, backoffInitialMs: 10_000 });
    await kubelet.stop();
    await plugin.start();
    await waitFor("a failure log", () => log.records.find((r) => r.code === "ENOENT"));
    await kubelet.start();
    await waitFor("registration without waiting out the 10 s backoff", () => kubelet.registrations[0], 8000);
  });
});

test("Prometheus metrics: registration state, registrations, devices by health, allocations, allocate errors", async () => {
  const { kubelet, plugin, root, unplug } = await setup({
    mode: "exclusive",
    metricsAddr: { host: "127.0.0.1", port: 0 },
  });
  await plugin.start();
  await waitFor("a list", () => kubelet.latest);
  await setPort(root, "mlx5_2", DOWN);
  await waitFor("mlx5_2 unhealthy", () => kubelet.latest?.find((d) => d.ID === "mlx5_2" && d.health === "Unhealthy"));
  await allocate(kubelet, ["mlx5_1"]);
  await unplug("mlx5_8");
  await expect(allocate(kubelet, ["mlx5_8"])).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  const text = await (await fetch(plugin.metricsUrl!)).text();
  const value = (line: string) =>
    Number(
      text
        .split("\n")
        .find((l) => l.startsWith(line))
        ?.slice(line.length + 1),
    );
  expect(value('kube_rdma_device_plugin_registered{resource="rdma/hca"}')).toBe(1);
  expect(value('kube_rdma_device_plugin_registrations_total{result="ok",resource="rdma/hca"}')).toBe(1);
  expect(value('kube_rdma_device_plugin_devices{health="Unhealthy",resource="rdma/hca"}')).toBeGreaterThanOrEqual(1);
  expect(value('kube_rdma_device_plugin_allocations_total{resource="rdma/hca"}')).toBe(2);
  // mlx5_8 vanished: either its char device is gone (missing_device) or the poll already dropped it (unknown_id).
  const partial = ["missing_device", "unknown_id"].map(
    (r) => value(`kube_rdma_device_plugin_allocate_errors_total{reason="${r}",resource="rdma/hca"}`) || 0,
  );
  expect(partial[0]! + partial[1]!).toBe(1);
});

test("the plugin answers real gRPC from any client on its socket (Allocate, many containers)", async () => {
  const { kubelet, plugin } = await setup();
  await plugin.start();
  await waitFor("a list", () => kubelet.latest);
  const client = pluginClient(plugin.socketPath);
  const res = await call<AllocateResponse>((cb) =>
    client.Allocate(
      { container_requests: [{ devices_ids: ["rdma-shared-1"] }, { devices_ids: ["rdma-shared-2"] }] },
      cb,
    ),
  );
  client.close();
  expect(res.container_responses).toHaveLength(2);
});

/**
 * `kube-rdma device-plugin --example NAME --plugin-dir DIR` as a process, against a fake kubelet on real unix
 * sockets: the example host is the node, for the model and for health alike (this machine's /sys has no HCAs).
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterEach, expect, test } from "vitest";
import type { AllocateResponse } from "../src/device-plugin/api.js";
import { call, FakeKubelet, waitFor } from "./support/fake-kubelet.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function pluginOnExample(example: string, extra: string[]) {
  const base = await mkdtemp(join(tmpdir(), "kube-rdma-dpex-"));
  cleanups.push(() => rm(base, { recursive: true, force: true }));
  const pluginDir = join(base, "device-plugins");
  await mkdir(pluginDir);
  const kubelet = new FakeKubelet(pluginDir);
  await kubelet.start();
  cleanups.push(() => kubelet.stop());
  const args = ["device-plugin", "--example", example, "--plugin-dir", pluginDir, "--health-interval", "0.1"];
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(import.meta.dirname, "support/run-cli.ts"), ...args, ...extra],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  await waitFor("the plugin's registered line", () => stderr.includes('"registered with kubelet"'), 20_000);
  await waitFor("a device list", () => kubelet.latest);
  // A health poll every 100 ms: after ten of them a poll of the wrong host would have changed the list.
  await new Promise((r) => setTimeout(r, 1000));
  return { kubelet, stderr: () => stderr };
}

const allocate = (k: FakeKubelet, ids: string[]) =>
  call<AllocateResponse>((cb) => k.client!.Allocate({ container_requests: [{ devices_ids: ids }] }, cb));

test("device-plugin --example port-down in exclusive mode: only mlx5_3 is Unhealthy, the other 7 stay Healthy poll after poll; an unknown ID fails the Allocate", async () => {
  const { kubelet, stderr } = await pluginOnExample("port-down", ["--mode", "exclusive"]);
  expect(kubelet.lists).toHaveLength(1);
  const health = Object.fromEntries(kubelet.latest!.map((d) => [d.ID, d.health]));
  expect(health).toEqual({
    mlx5_1: "Healthy",
    mlx5_2: "Healthy",
    mlx5_3: "Unhealthy",
    mlx5_4: "Healthy",
    mlx5_5: "Healthy",
    mlx5_6: "Healthy",
    mlx5_7: "Healthy",
    mlx5_8: "Healthy",
  });
  expect(stderr()).not.toContain("RDMA devices changed");

  const ok = await allocate(kubelet, ["mlx5_2"]);
  expect(ok.container_responses[0]!.devices.map((d) => d.host_path)).toEqual([
    "/dev/infiniband/uverbs2",
    "/dev/infiniband/rdma_cm",
  ]);
  const err = await allocate(kubelet, ["mlx5_42"]).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: grpc.status.NOT_FOUND });
  expect((err as Error).message).toContain("mlx5_42");
}, 40_000);

test("device-plugin --example a100-8x-roce in shared mode: 1000 units, all Healthy, and they stay so", async () => {
  const { kubelet } = await pluginOnExample("a100-8x-roce", ["--shared-units", "1000"]);
  expect(kubelet.lists).toHaveLength(1);
  expect(kubelet.latest).toHaveLength(1000);
  expect(kubelet.latest!.every((d) => d.health === "Healthy")).toBe(true);
}, 40_000);

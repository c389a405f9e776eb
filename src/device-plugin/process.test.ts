import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { FakeKubelet, waitFor } from "../../test/support/fake-kubelet.js";
import { twoNumaHcas, writeTree } from "../../test/support/rdma-node.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("kube-rdma device-plugin as a process: registers, logs JSON lines, and on SIGTERM exits 0 and removes its socket", async () => {
  const base = await mkdtemp(join(tmpdir(), "kube-rdma-proc-"));
  cleanups.push(() => rm(base, { recursive: true, force: true }));
  const pluginDir = join(base, "device-plugins");
  await mkdir(pluginDir);
  await writeTree(join(base, "host"), twoNumaHcas());
  const kubelet = new FakeKubelet(pluginDir);
  await kubelet.start();
  cleanups.push(() => kubelet.stop());
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(import.meta.dirname, "../../test/support/run-cli.ts"),
      "device-plugin",
      "--plugin-dir",
      pluginDir,
      "--root",
      join(base, "host"),
      "--inject-nccl-env=false",
      "--health-interval",
      "0.2",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  await waitFor("registration", () => kubelet.registrations[0], 15_000);
  // The kubelet holds the Register request before the plugin has read the answer: wait for the plugin's own line
  // saying it is registered (its signal handlers are in place by then), not for a stretch of time.
  await waitFor("the plugin's registered line", () => stderr.includes('"registered with kubelet"'), 15_000);
  expect(await readdir(pluginDir)).toContain("kube-rdma-rdma_hca.sock");
  // A hang-up does not kill it (it killed the plugin and left the socket behind).
  child.kill("SIGHUP");
  await waitFor("the SIGHUP line", () => stderr.includes("SIGHUP ignored"), 15_000);
  expect(child.exitCode).toBeNull();
  expect(await readdir(pluginDir)).toContain("kube-rdma-rdma_hca.sock");
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
  expect(await readdir(pluginDir)).not.toContain("kube-rdma-rdma_hca.sock");
  const lines = stderr.trim().split("\n");
  const records = lines.map((l) => JSON.parse(l) as { level: string; msg: string });
  expect(records.map((r) => r.msg)).toContain("registered with kubelet");
  expect(records.map((r) => r.msg)).toContain("signal received; shutting down");
}, 30_000);

import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { call, type FakeKubelet, waitFor } from "../../test/support/fake-kubelet.js";
import { startedPlugin } from "../../test/support/started-plugin.js";
import type { Finding } from "../core/finding.js";
import type { AllocateResponse } from "./api.js";
import { quarantineOf, readQuarantine } from "./quarantine.js";

const allocate = (k: FakeKubelet, ids: string[]) =>
  call<AllocateResponse>((cb) => k.client!.Allocate({ container_requests: [{ devices_ids: ids }] }, cb));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const err = (code: string, subject: string): Finding => ({ code, severity: "error", subject, message: "m", fix: "f" });

describe("quarantine the HCA, not the node", () => {
  test("the agent's file names each HCA in error with its codes (ports count for their HCA; node-wide errors do not)", () => {
    const q = quarantineOf(
      "gpu-n1",
      [
        err("PORT_DOWN", "mlx5_3/1"),
        err("HCA_PCIE_DEGRADED", "mlx5_3"),
        err("NO_GPUDIRECT", "node"),
        { ...err("FW_MISMATCH", "mlx5_4"), severity: "warning" },
      ],
      ["mlx5_1", "mlx5_3", "mlx5_4"],
      new Date("2026-12-01T00:00:00Z"),
    );
    expect(q.hcas).toEqual([{ hca: "mlx5_3", codes: ["HCA_PCIE_DEGRADED", "PORT_DOWN"] }]);
  });

  test("a stale or damaged file is not used, and says why", () => {
    const now = new Date("2026-12-01T01:00:00Z");
    const q = quarantineOf("n", [err("PORT_DOWN", "mlx5_3")], ["mlx5_3"], new Date("2026-12-01T00:00:00Z"));
    expect(readQuarantine(JSON.stringify(q), now, 1800)).toEqual({
      ok: false,
      why: "stale: written 3600 s ago (max 1800 s)",
    });
    expect(readQuarantine(JSON.stringify(q), now, 7200)).toMatchObject({ ok: true });
    expect(
      readQuarantine(
        '{"schemaVersion":1,"hcas":[{"hca":"$(reboot)","codes":[]}],"generatedAt":"2026-12-01T00:59:00Z"}',
        now,
        1800,
      ),
    ).toMatchObject({ ok: false });
    expect(readQuarantine("x".repeat(70_000), now, 1800)).toMatchObject({ ok: false });
  });

  test("the device plugin reports a quarantined HCA Unhealthy while the node keeps serving the others; Healthy when the file clears", async () => {
    const file = join(tmpdir(), `kube-rdma-quarantine-${process.pid}-${Date.now()}.json`);
    cleanups.push(() => rm(file, { force: true }));
    const { hcas, kubelet, log } = await startedPlugin(cleanups, {
      mode: "exclusive",
      quarantine: { path: file, maxAgeSeconds: 1800 },
    });
    await waitFor(
      "a healthy list",
      () => kubelet.latest?.length === 8 && kubelet.latest.every((d) => d.health === "Healthy"),
    );
    const q = quarantineOf(
      "n",
      [err("HCA_PCIE_DEGRADED", "mlx5_3")],
      hcas.map((h) => h.name),
      new Date(),
    );
    await writeFile(file, JSON.stringify(q));
    await waitFor("mlx5_3 unhealthy", () => kubelet.latest?.find((d) => d.ID === "mlx5_3" && d.health === "Unhealthy"));
    expect(kubelet.latest!.filter((d) => d.health === "Healthy")).toHaveLength(7);
    expect(log.records.find((r) => r.msg === "HCA unhealthy" && r.hca === "mlx5_3")?.quarantinedBy).toEqual([
      "HCA_PCIE_DEGRADED",
    ]);
    await writeFile(file, JSON.stringify({ ...q, hcas: [] }));
    await waitFor("mlx5_3 healthy again", () => kubelet.latest?.every((d) => d.health === "Healthy"));
  });

  for (const sharedHealth of ["all", "any"] as const) {
    test(`shared mode (--shared-health ${sharedHealth}): the quarantined HCA leaves Allocate's devices and NCCL_IB_HCA, the units stay Healthy for the others`, async () => {
      const file = join(tmpdir(), `kube-rdma-quarantine-shared-${sharedHealth}-${process.pid}-${Date.now()}.json`);
      cleanups.push(() => rm(file, { force: true }));
      const { hcas, kubelet, log, plugin } = await startedPlugin(cleanups, {
        mode: "shared",
        sharedHealth,
        // The test tree has no GIDs, so the shipped deriver would leave NCCL_IB_HCA unset; this one names exactly the
        // HCAs it is asked for, as the shipped one does (the exact-match `=` form NCCL reads:
        // https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-hca).
        deriveEnv: (_inv, served) => ({ NCCL_IB_HCA: `=${served.join(",")}` }),
        quarantine: { path: file, maxAgeSeconds: 1800 },
      });
      await waitFor("a healthy list", () => kubelet.latest?.length === 10);
      const before = (await allocate(kubelet, ["rdma-shared-0"])).container_responses[0]!;
      expect(before.devices.map((d) => d.host_path)).toContain("/dev/infiniband/uverbs3");
      expect(before.envs.NCCL_IB_HCA).toMatch(/^=.*mlx5_3\b/);

      const q = quarantineOf(
        "n",
        [err("PORT_DOWN", "mlx5_3/1")],
        hcas.map((h) => h.name),
        new Date(),
      );
      await writeFile(file, JSON.stringify(q));
      await waitFor("mlx5_3 withdrawn", () =>
        log.records.find((r) => r.msg.startsWith("HCA withdrawn") && r.hca === "mlx5_3"),
      );
      expect(kubelet.latest).toHaveLength(10);
      expect(kubelet.latest!.every((d) => d.health === "Healthy")).toBe(true);
      const after = (await allocate(kubelet, ["rdma-shared-4"])).container_responses[0]!;
      const paths = after.devices.map((d) => d.host_path);
      expect(paths).not.toContain("/dev/infiniband/uverbs3");
      expect(paths.filter((p) => p.includes("uverbs"))).toHaveLength(7);
      expect(paths).toContain("/dev/infiniband/rdma_cm");
      const named = (after.envs.NCCL_IB_HCA ?? "")
        .replace(/^=/, "")
        .split(",")
        .map((e) => e.split(":")[0]);
      expect(named).not.toContain("mlx5_3");
      expect(named).toHaveLength(7);
      expect(await plugin.metrics.registry.getSingleMetricAsString("kube_rdma_device_plugin_hca_withdrawn")).toMatch(
        /hca="mlx5_3".* 1$/m,
      );

      await writeFile(file, JSON.stringify({ ...q, hcas: [] }));
      await waitFor("mlx5_3 served again", () =>
        log.records.find((r) => r.msg.startsWith("HCA served again") && r.hca === "mlx5_3"),
      );
      const back = (await allocate(kubelet, ["rdma-shared-4"])).container_responses[0]!;
      expect(back.devices.map((d) => d.host_path)).toContain("/dev/infiniband/uverbs3");
    });
  }

  test("shared mode with every data HCA quarantined: the units go Unhealthy (nothing left to hand out)", async () => {
    const file = join(tmpdir(), `kube-rdma-quarantine-all-${process.pid}-${Date.now()}.json`);
    cleanups.push(() => rm(file, { force: true }));
    const { hcas, kubelet } = await startedPlugin(cleanups, {
      mode: "shared",
      quarantine: { path: file, maxAgeSeconds: 1800 },
    });
    await waitFor("a healthy list", () => kubelet.latest?.every((d) => d.health === "Healthy"));
    const names = hcas.map((h) => h.name);
    const q = quarantineOf(
      "n",
      names.map((h) => err("PORT_DOWN", `${h}/1`)),
      names,
      new Date(),
    );
    await writeFile(file, JSON.stringify(q));
    await waitFor("units unhealthy", () => kubelet.latest?.every((d) => d.health === "Unhealthy"));
  });
});

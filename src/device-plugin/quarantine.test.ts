import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { waitFor } from "../../test/support/fake-kubelet.js";
import { startedPlugin } from "../../test/support/started-plugin.js";
import type { Finding } from "../core/finding.js";
import { quarantineOf, readQuarantine } from "./quarantine.js";

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
});

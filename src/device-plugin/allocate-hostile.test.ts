/**
 * Allocate requests no kubelet sends (issue 27): the kubelet calls Allocate once per container that requests the
 * resource, with at least one device ID, each once. An empty list must not be answered with rdma_cm (exclusive) or
 * every HCA (shared): it is INVALID_ARGUMENT, as are duplicates; a flood of unknown IDs gets a short NOT_FOUND.
 */
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, test } from "vitest";
import { call, type FakeKubelet, waitFor } from "../../test/support/fake-kubelet.js";
import { startedPlugin } from "../../test/support/started-plugin.js";
import { invalidAllocate } from "./allocate.js";
import type { AllocateRequest, AllocateResponse } from "./api.js";
import type { Mode } from "./devices.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A started plugin on the two-NUMA test node, registered with a fake kubelet that has seen its device list. */
async function started(mode: Mode) {
  const r = await startedPlugin(cleanups, { mode });
  await waitFor("a list", () => r.kubelet.latest);
  return r;
}

const allocate = (k: FakeKubelet, req: AllocateRequest) =>
  call<AllocateResponse>((cb) => k.client!.Allocate(req, cb)).then(
    (res) => ({ res, err: null }),
    (err: { code: number; details: string }) => ({ res: null, err }),
  );

describe("Allocate with an empty device ID list", () => {
  test.each(["exclusive", "shared"] as const)("%s mode: INVALID_ARGUMENT, no rdma_cm, no HCA", async (mode) => {
    const { kubelet, log, plugin } = await started(mode);
    const { res, err } = await allocate(kubelet, { container_requests: [{ devices_ids: [] }] });
    expect(res).toBeNull();
    expect(err?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err?.details).toBe(
      "kube-rdma Allocate: container request 0 asks for no device ID; the kubelet calls Allocate only for containers that request rdma units",
    );
    expect(log.records.some((e) => e.level === "error" && /not a request a kubelet sends/.test(e.msg))).toBe(true);
    expect(await plugin.metrics.registry.metrics()).toMatch(/allocate_errors_total\{reason="invalid_request"[^}]*\} 1/);
  });

  test("one good container and one empty one: the whole Allocate is refused, nothing half-answered", async () => {
    const { kubelet } = await started("exclusive");
    const { res, err } = await allocate(kubelet, {
      container_requests: [{ devices_ids: ["mlx5_1"] }, { devices_ids: [] }],
    });
    expect(res).toBeNull();
    expect(err?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err?.details).toContain("container request 1 asks for no device ID");
  });
});

describe("other Allocate requests no kubelet sends", () => {
  test("no container request at all → INVALID_ARGUMENT", async () => {
    const { kubelet } = await started("exclusive");
    const { err } = await allocate(kubelet, { container_requests: [] });
    expect(err?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err?.details).toContain("the request names no container");
  });

  test("one HCA named 10,000 times → INVALID_ARGUMENT naming it once, in a short message", async () => {
    const { kubelet } = await started("exclusive");
    const { err } = await allocate(kubelet, { container_requests: [{ devices_ids: Array(10_000).fill("mlx5_1") }] });
    expect(err?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err?.details).toMatch(/names device ID\(s\) more than once: "mlx5_1", .* and 9994 more$/);
    expect(err?.details.length).toBeLessThan(300);
  });

  test("100,000 unknown IDs in exclusive mode → NOT_FOUND with a short message naming five of them", async () => {
    const { kubelet } = await started("exclusive");
    const ids = Array.from({ length: 100_000 }, (_, i) => `bogus-${i}`);
    const { err } = await allocate(kubelet, { container_requests: [{ devices_ids: ids }] });
    expect(err?.code).toBe(grpc.status.NOT_FOUND);
    expect(err?.details).toContain('"bogus-0", "bogus-1", "bogus-2", "bogus-3", "bogus-4" and 99995 more');
    expect(err?.details.length).toBeLessThan(500);
  });

  test("invalidAllocate: a kubelet's request passes", () => {
    expect(invalidAllocate({ container_requests: [{ devices_ids: ["mlx5_1", "mlx5_2"] }] })).toBeNull();
    expect(invalidAllocate({})).toBe("the request names no container");
  });
});

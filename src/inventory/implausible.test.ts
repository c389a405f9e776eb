import { describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { runChecks } from "../checks/index.js";
import { SnapshotHostReader } from "../host/index.js";
import { readInventory } from "./index.js";
import { MAX_HCAS } from "./limits.js";

describe("a snapshot that lists 10,000 RDMA devices", () => {
  test("reads at most 256 of them, quickly, and says the input is implausible (never a PASS)", async () => {
    const s = structuredClone(exampleSnapshot("a100-8x-roce"));
    const names = Array.from({ length: 10_000 }, (_, i) => `mlx5_${i + 100}`);
    s.dirs["/sys/class/infiniband"] = [...(s.dirs["/sys/class/infiniband"] ?? []), ...names];
    const start = performance.now();
    const inv = await readInventory(new SnapshotHostReader(s, "test"));
    const findings = runChecks(inv);
    expect(performance.now() - start).toBeLessThan(10_000);
    expect(inv.hcas.length).toBeLessThanOrEqual(MAX_HCAS);
    const f = findings.find((x) => x.code === "READ_PROBLEM" && /RDMA devices, more than a node has/.test(x.message));
    expect(f?.severity).toBe("warning");
    expect(f?.message).toMatch(/10009 RDMA devices/);
  });
});

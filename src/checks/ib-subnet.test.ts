/**
 * The subnet manager each InfiniBand port reports (`/sys/class/infiniband/<hca>/ports/<n>/sm_lid`, `0x1`; `ibstat`
 * prints it as `SM lid: 1`), read from the 8×HDR InfiniBand example host.
 */
import { describe, expect, test } from "vitest";
import { findExample } from "../examples/index.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";

async function withSmLids(sm: Record<string, string>) {
  const snap = findExample("ib-8x-hdr")!.snapshot();
  for (const [hca, lid] of Object.entries(sm)) snap.files[`/sys/class/infiniband/${hca}/ports/1/sm_lid`] = `${lid}\n`;
  const inv = await readInventory(new SnapshotHostReader(snap));
  return { inv, findings: runChecks(inv) };
}

describe("InfiniBand subnet managers", () => {
  test("one SM for every port: read into the node model, no finding", async () => {
    const { inv, findings } = await withSmLids({});
    expect(inv.hcas.every((h) => h.ports.every((p) => p.smLid === "0x1" && p.lmc === 0))).toBe(true);
    expect(findings).toEqual([]);
  });

  test("rails 4-7 under another SM: IB_SUBNETS_DIFFER (info) groups the ports and says what a node cannot read", async () => {
    const { findings } = await withSmLids({ mlx5_4: "0x2", mlx5_5: "0x2", mlx5_6: "0x2", mlx5_7: "0x2" });
    expect(findings.map((f) => [f.code, f.subject, f.severity])).toEqual([
      ["IB_SUBNETS_DIFFER", "subnet-manager", "info"],
    ]);
    expect(findings[0]?.message).toContain("sm_lid: 0x1 for mlx5_0, mlx5_1, mlx5_2, mlx5_3; 0x2 for mlx5_4");
    expect(findings[0]?.fix).toContain("NCCL_CROSS_NIC=0");
    expect(findings[0]?.fix).toContain("cannot read");
  });
});

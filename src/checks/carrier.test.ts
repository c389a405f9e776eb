/**
 * `/sys/class/net/IF/carrier_changes` (Documentation/ABI/testing/sysfs-class-net: the number of times the link went
 * up or down) read twice, as `verify --watch` and the node agent do, on the A100 RoCE example node.
 */
import { describe, expect, test } from "vitest";
import { findExample } from "../examples/index.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { problemsOf } from "./testing/expect.js";

async function readWith(changes: Record<string, string>) {
  const snap = findExample("a100-8x-roce")!.snapshot();
  for (const [netdev, v] of Object.entries(changes)) snap.files[`/sys/class/net/${netdev}/carrier_changes`] = `${v}\n`;
  return readInventory(new SnapshotHostReader(snap));
}

describe("carrier changes between two readings", () => {
  test("eth6 went from 2 to 6 carrier changes in 60 s: CARRIER_FLAPPING names it, with the PHY counters to read", async () => {
    const earlier = await readWith({});
    const now = await readWith({ eth6: "6" });
    expect(now.netdevs.find((n) => n.name === "eth6")?.carrierChanges).toBe(6);
    const findings = runChecks(now, { earlier: { inventory: earlier, seconds: 60 } });
    expect(problemsOf(findings)).toEqual([{ code: "CARRIER_FLAPPING", subject: "eth6", severity: "error" }]);
    expect(findings[0]?.message).toContain("eth6 (mlx5_6) changed its carrier 4 time(s) in the last 60 s");
    expect(findings[0]?.fix).toContain("rx_crc_errors_phy");
  });

  test("counters that stand still, the management NIC's, or a single reading: nothing to say", async () => {
    const earlier = await readWith({ eth0: "2" });
    expect(runChecks(await readWith({ eth0: "9" }), { earlier: { inventory: earlier, seconds: 60 } })).toEqual([]);
    expect(runChecks(await readWith({ eth6: "40" }))).toEqual([]);
  });
});

import { describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { SnapshotHostReader } from "../host/index.js";
import type { Snapshot } from "../host/types.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { only } from "./testing/expect.js";

// ib_core's netns_mode (a bool module parameter, `Y` shared by default): in exclusive mode rdma_dev_access_netns()
// shows a namespace only the RDMA devices moved into it (Linux drivers/infiniband/core/device.c; rdma-system(8)).
async function nodeWithNetnsMode(value: string | null) {
  const s: Snapshot = structuredClone(exampleSnapshot("a100-8x-roce"));
  const path = "/sys/module/ib_core/parameters/netns_mode";
  if (value === null) delete s.files[path];
  else s.files[path] = value;
  return readInventory(new SnapshotHostReader(s, "test"));
}

describe("the kernel's RDMA network-namespace mode", () => {
  test("the A100 RoCE node in exclusive mode (netns_mode=N) → warning RDMA_NETNS_EXCLUSIVE with both ways out", async () => {
    const inv = await nodeWithNetnsMode("N\n");
    expect(inv.rdmaNetns).toBe("exclusive");
    const [f] = only(runChecks(inv), "RDMA_NETNS_EXCLUSIVE");
    expect(f).toMatchObject({ subject: "node", severity: "warning" });
    expect(f?.message).toMatch(/9 HCAs only after one is moved into the pod's namespace/);
    expect(f?.fix).toMatch(/rdma system set netns shared/);
    expect(f?.fix).toMatch(/RDMA CNI/);
  });

  test("shared mode (Y), or a host that does not say (file absent): nothing", async () => {
    const shared = await nodeWithNetnsMode("Y\n");
    expect(shared.rdmaNetns).toBe("shared");
    expect(only(runChecks(shared), "RDMA_NETNS_EXCLUSIVE")).toEqual([]);
    const unknown = await nodeWithNetnsMode(null);
    expect(unknown.rdmaNetns).toBeUndefined();
    expect(only(runChecks(unknown), "RDMA_NETNS_EXCLUSIVE")).toEqual([]);
  });
});

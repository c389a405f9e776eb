import { afterEach, describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { type FakeApi, type Obj, startFakeApi } from "../../test/support/kube/fake-api.js";
import { SnapshotHostReader } from "../host/index.js";
import { readInventory } from "../inventory/index.js";
import { makeClients } from "../kube/api/client.js";
import { loadKubeConfig } from "../kube/api/config.js";
import { AGENT_ROLE, TAINTED_LABEL } from "./cluster-io.js";
import { TAINT_HELD_REASON } from "./events.js";
import { createAgentMetrics } from "./metrics.js";
import type { AgentSettings } from "./plan.js";
import { runOnce } from "./run.js";
import { TAINT_KEY } from "./taint.js";
import { claimStep, reconcileHolders, releaseStep, STALE_HOLDER_SECONDS } from "./taint-slots.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const settings: AgentSettings = { namespace: "kube-rdma", heartbeatSeconds: 1200, taint: { maxShare: 0.1 } };
const now = new Date("2026-12-01T00:00:00Z");

async function fleet(nodes: number) {
  api = await startFakeApi({
    nodes: Array.from({ length: nodes }, (_, i) => ({
      metadata: { name: `gpu-n${i + 1}`, labels: {} },
      spec: {},
      status: { conditions: [] },
    })),
    namespaces: [{ metadata: { name: "kube-rdma" } }],
    daemonsets: [
      { metadata: { name: "kube-rdma-agent", namespace: "kube-rdma" }, status: { desiredNumberScheduled: nodes } },
    ],
  });
  return api;
}

const tainted = (a: FakeApi) =>
  a.store.get("nodes")!.filter((n: Obj) => (n.spec?.taints ?? []).some((t: Obj) => t.key === TAINT_KEY));

describe("the taint breaker cannot be raced", () => {
  test("50 agents failing at the same instant on 100 nodes, budget 10 (share 0.1): exactly 10 tainted, 40 say why", async () => {
    const a = await fleet(100);
    const broken = exampleSnapshot("port-down");
    const read = () => readInventory(new SnapshotHostReader(broken, "port-down"));
    const inputs = Array.from({ length: 50 }, (_, i) => {
      // Each agent has its own client, as each pod has its own connection to the API server.
      const clients = makeClients(loadKubeConfig({ kubeconfig: a.kubeconfig, env: {} }), AGENT_ROLE);
      return {
        node: `gpu-n${i * 2 + 1}`,
        read,
        settings,
        withinGrace: () => false,
        cluster: { clients, daemonSet: "kube-rdma-agent" },
        source: "test",
      };
    });
    const results = await Promise.all(inputs.map((input) => runOnce(input, now)));
    expect(tainted(a)).toHaveLength(10);
    expect(a.store.get("nodes")!.filter((n: Obj) => n.metadata.labels?.[TAINTED_LABEL] === "true")).toHaveLength(10);
    const held = results.filter((r) => r.plan.taint?.action === "held");
    expect(held).toHaveLength(40);
    for (const r of held) expect(r.heldWhy).toMatch(/10 node\(s\) already hold a taint slot .*the budget is 10/);
    expect(results.filter((r) => r.plan.taint?.action === "taint")).toHaveLength(10);
    // Each hold is an Event on its Node, and a metric.
    const heldEvents = a.store.get("events")!.filter((e: Obj) => e.reason === TAINT_HELD_REASON);
    expect(new Set(heldEvents.map((e: Obj) => e.involvedObject.name)).size).toBe(40);
    const m = createAgentMetrics();
    m.record(held[0]!, 0.1);
    expect(await m.registry.metrics()).toMatch(/^kube_rdma_agent_taints_held_total 1$/m);
    // The next run of a held agent is held again (a metric and a log line), without a second Event.
    const i = results.indexOf(held[0]!);
    const again = await runOnce({ ...inputs[i]!, known: held[0]!.next }, new Date(now.getTime() + 300_000));
    expect(again.heldWhy).toBeDefined();
    expect(again.plan.events.filter((e) => e.reason === TAINT_HELD_REASON)).toEqual([]);
  });

  test("a recovered node gives its slot back, and the next failing node takes it", async () => {
    const a = await fleet(10); // budget max(1, floor(10 × 0.1)) = 1
    const clients = makeClients(loadKubeConfig({ kubeconfig: a.kubeconfig, env: {} }), AGENT_ROLE);
    const cluster = { clients, daemonSet: "kube-rdma-agent" };
    const snap = (name: string) => () => readInventory(new SnapshotHostReader(exampleSnapshot(name), name));
    const base = { settings, withinGrace: () => false, cluster, source: "test" };
    const later = (min: number) => new Date(now.getTime() + min * 60_000);
    await runOnce({ ...base, node: "gpu-n1", read: snap("port-down") }, later(0));
    const second = await runOnce({ ...base, node: "gpu-n2", read: snap("port-down") }, later(0));
    expect(second.plan.taint).toMatchObject({ action: "held" });
    await runOnce({ ...base, node: "gpu-n1", read: snap("a100-8x-roce") }, later(5));
    const again = await runOnce({ ...base, node: "gpu-n2", read: snap("port-down") }, later(5));
    expect(again.plan.taint).toEqual({ action: "taint" });
    expect(tainted(a).map((n: Obj) => n.metadata.name)).toEqual(["gpu-n2"]);
  });
});

describe("taint slots (pure)", () => {
  test("a claim is granted while the holders are fewer than the budget; a holder keeps its slot", () => {
    expect(claimStep({ a: "t" }, "b", 2, now)).toEqual({ kind: "claim", next: { a: "t", b: now.toISOString() } });
    expect(claimStep({ a: "t", b: "t" }, "c", 2, now)).toMatchObject({ kind: "full" });
    expect(claimStep({ a: "t", b: "t" }, "a", 2, now)).toEqual({ kind: "have" });
    expect(releaseStep({ a: "t", b: "t" }, "a")).toEqual({ b: "t" });
    expect(releaseStep({ b: "t" }, "a")).toBeNull();
  });

  test("a holder without the taint is dropped only once stale; a tainted node without a slot is added", () => {
    const old = new Date(now.getTime() - (STALE_HOLDER_SECONDS + 1) * 1000).toISOString();
    const young = new Date(now.getTime() - 10_000).toISOString();
    expect(reconcileHolders({ gone: old, coming: young, kept: old }, ["kept", "extra"], now)).toEqual({
      coming: young,
      kept: old,
      extra: now.toISOString(),
    });
  });
});

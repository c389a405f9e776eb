import { afterEach, describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { type FakeApi, type Obj, startFakeApi } from "../../test/support/kube/fake-api.js";
import { SnapshotHostReader } from "../host/index.js";
import { readInventory } from "../inventory/index.js";
import { makeClients } from "../kube/api/client.js";
import { loadKubeConfig } from "../kube/api/config.js";
import { AGENT_ROLE, TAINTED_LABEL } from "./cluster-io.js";
import { createAgentMetrics } from "./metrics.js";
import type { AgentSettings } from "./plan.js";
import { REPORT_DATA_KEY } from "./report.js";
import { runLoop, runOnce } from "./run.js";
import { TAINT_KEY } from "./taint.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const kubeletReady = {
  type: "Ready",
  status: "True",
  reason: "KubeletReady",
  message: "kubelet is posting ready status",
};

function node(name: string, tainted = false): Obj {
  return {
    metadata: { name, labels: tainted ? { [TAINTED_LABEL]: "true" } : {} },
    spec: tainted ? { taints: [{ key: TAINT_KEY, effect: "NoSchedule", value: "true" }] } : {},
    status: { conditions: [kubeletReady] },
  };
}

async function cluster(otherTainted = 0, selected = 10) {
  const nodes = [
    node("gpu-n1"),
    ...Array.from({ length: selected - 1 }, (_, i) => node(`gpu-n${i + 2}`, i < otherTainted)),
  ];
  api = await startFakeApi({
    nodes,
    namespaces: [{ metadata: { name: "kube-rdma" } }],
    daemonsets: [
      { metadata: { name: "kube-rdma-agent", namespace: "kube-rdma" }, status: { desiredNumberScheduled: selected } },
    ],
  });
  const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig, env: {} }), AGENT_ROLE);
  return { clients, daemonSet: "kube-rdma-agent" };
}

/** The node as the agent reads it: an example host that can be switched (a port goes down, comes back). */
function host(initial: string) {
  let current = initial;
  return {
    set: (name: string) => {
      current = name;
    },
    read: () => readInventory(new SnapshotHostReader(exampleSnapshot(current), current)),
  };
}

const settings: AgentSettings = { namespace: "kube-rdma", heartbeatSeconds: 1200, taint: { maxShare: 0.1 } };
const n1 = () => api!.store.get("nodes")!.find((n) => n.metadata.name === "gpu-n1")!;
const rdmaReady = () => n1().status.conditions.find((c: Obj) => c.type === "RDMAReady");
const events = () => api!.store.get("events")!.map((e) => `${e.type} ${e.reason} ${e.involvedObject.name}`);

describe("the agent against a Kubernetes API server", () => {
  test("a port goes down and comes back: condition, events, taint and report follow, the kubelet's Ready stays", async () => {
    const c = await cluster();
    const h = host("a100-8x-roce");
    const run = (at: string) =>
      runOnce(
        { node: "gpu-n1", read: h.read, settings, withinGrace: () => false, cluster: c, source: "test" },
        new Date(at),
      );

    await run("2026-12-01T00:00:00Z");
    expect(rdmaReady()).toMatchObject({ status: "True", reason: "RDMAChecksPassed" });
    expect(n1().status.conditions.find((x: Obj) => x.type === "Ready")).toEqual(kubeletReady);
    expect(events()).toEqual([]);

    h.set("port-down");
    await run("2026-12-01T00:05:00Z");
    expect(rdmaReady()).toMatchObject({
      status: "False",
      reason: "PORT_DOWN",
      lastTransitionTime: "2026-12-01T00:05:00Z",
    });
    expect(events()).toEqual(["Warning PORT_DOWN gpu-n1"]);
    expect(n1().spec.taints).toEqual([{ key: TAINT_KEY, effect: "NoSchedule", value: "true" }]);
    expect(n1().metadata.labels[TAINTED_LABEL]).toBe("true");
    const cm = api!.store.get("configmaps")!.find((x) => x.metadata.name === "kube-rdma-node-gpu-n1")!;
    expect(JSON.parse(cm.data[REPORT_DATA_KEY]).summary.errors).toBe(1);

    h.set("a100-8x-roce");
    await run("2026-12-01T00:10:00Z");
    expect(rdmaReady()).toMatchObject({ status: "True", lastTransitionTime: "2026-12-01T00:10:00Z" });
    expect(events()).toEqual(["Warning PORT_DOWN gpu-n1", "Normal RDMARecovered gpu-n1"]);
    expect(n1().spec.taints).toEqual([]);
    expect(n1().metadata.labels?.[TAINTED_LABEL]).toBeUndefined();
  });

  test("the circuit breaker: with 1 of 10 nodes already tainted (share 0.1) a failing node is not tainted", async () => {
    const c = await cluster(1);
    const h = host("port-down");
    const r = await runOnce(
      { node: "gpu-n1", read: h.read, settings, withinGrace: () => false, cluster: c, source: "test" },
      new Date("2026-12-01T00:00:00Z"),
    );
    expect(r.plan.taint).toMatchObject({ action: "held" });
    expect(n1().spec.taints ?? []).toEqual([]);
    expect(rdmaReady()).toMatchObject({ status: "False", reason: "PORT_DOWN" });
  });

  test("an agent killed and restarted loses nothing: no repeated event, no write while the heartbeat is fresh", async () => {
    const c = await cluster();
    const h = host("port-down");
    const input = { node: "gpu-n1", read: h.read, settings, withinGrace: () => false, cluster: c, source: "test" };
    await runOnce(input, new Date("2026-12-01T00:00:00Z"));
    const writes = () => api!.requests.filter((r) => /^(PATCH|PUT|POST) /.test(r)).length;
    const before = api!.requests.filter((r) => r.startsWith("PATCH") && r.endsWith("/status")).length;
    const writesBefore = writes();
    // A new process: nothing in memory, only what the cluster holds.
    const again = await runOnce({ ...input }, new Date("2026-12-01T00:05:00Z"));
    expect(again.plan.events).toEqual([]);
    expect(again.plan.statusPatch).toBeNull();
    expect(api!.requests.filter((r) => r.startsWith("PATCH") && r.endsWith("/status")).length).toBe(before);
    expect(events()).toEqual(["Warning PORT_DOWN gpu-n1"]);
    // Nothing changed and the heartbeat (1200 s) is fresh: the API server sees no write at all.
    expect(again.plan.configMap).toBeNull();
    expect(writes()).toBe(writesBefore);
    // After the heartbeat the condition and the report are written again, and only they.
    const later = await runOnce({ ...input, known: again.next }, new Date("2026-12-01T00:21:00Z"));
    expect(later.plan.statusPatch).not.toBeNull();
    expect(later.plan.configMap).not.toBeNull();
    expect(writes()).toBe(writesBefore + 2);
  });

  test("the loop runs until stopped and keeps going when one run fails", async () => {
    const c = await cluster();
    let reads = 0;
    const h = host("a100-8x-roce");
    const stop = new AbortController();
    const log: string[] = [];
    const metrics = createAgentMetrics();
    const code = await runLoop({
      metrics,
      node: "gpu-n1",
      read: async () => {
        reads++;
        if (reads === 2) throw new Error("EACCES: permission denied, open '/host/sys/class/infiniband'");
        if (reads === 3) stop.abort();
        return h.read();
      },
      settings: { ...settings, heartbeatSeconds: 60 },
      withinGrace: () => false,
      cluster: c,
      source: "test",
      intervalSeconds: 30,
      log: (l) => log.push(l),
      signal: stop.signal,
      sleep: async () => {},
    });
    expect(code).toBe(0);
    expect(reads).toBe(3);
    expect(log.join("")).toMatch(/RDMAReady=Unknown \(RDMACheckFailed\)/);
    expect(rdmaReady()).toMatchObject({ status: "True" });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^kube_rdma_rdma_ready\{status="True"\} 1$/m);
    expect(text).toMatch(/^kube_rdma_port_active\{hca="mlx5_3",port="1",role="data"\} 1$/m);
    expect(text).toMatch(/^kube_rdma_port_rate_bits_per_second\{hca="mlx5_3",port="1"\} 200000000000$/m);
    expect(text).toMatch(/^kube_rdma_last_run_duration_seconds [0-9.e-]+$/m);
    expect(text).toMatch(/^kube_rdma_agent_runs_total 3$/m);
    expect(text).toMatch(/^kube_rdma_agent_run_failures_total\{stage="check"\} 1$/m);
  });

  test("a run that could not check keeps the last report: the errors it held are not forgotten", async () => {
    const c = await cluster();
    const h = host("port-down");
    const input = { node: "gpu-n1", read: h.read, settings, withinGrace: () => false, cluster: c, source: "test" };
    await runOnce(input, new Date("2026-12-01T00:00:00Z"));
    const failed = await runOnce(
      { ...input, read: () => Promise.reject(new Error("EIO")) },
      new Date("2026-12-01T00:05:00Z"),
    );
    expect(failed.plan.configMap).toBeNull();
    expect(rdmaReady()).toMatchObject({ status: "Unknown", reason: "RDMACheckFailed" });
    const after = await runOnce(input, new Date("2026-12-01T00:10:00Z"));
    expect(after.plan.events).toEqual([]);
    expect(events()).toEqual(["Warning PORT_DOWN gpu-n1"]);
  });
});

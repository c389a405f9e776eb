/**
 * fleet verify whatever the fleet's state: nodes the API server says cannot run a collector are answered at once,
 * and the node list is read in pages. Shapes: the kubelet's NotReady condition as `kubectl get node -o yaml` shows it
 * (https://kubernetes.io/docs/reference/node/node-status/#condition), a Pending pod's PodScheduled=False with reason
 * Unschedulable (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-conditions), chunked lists
 * (https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks).
 */
import { afterEach, describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { emptySnapshotLog, node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { type FakeApi, type Obj, type PodOutcome, startFakeApi } from "../../../test/support/kube/fake-api.js";
import { main } from "../../cli/main.js";
import { makeClients } from "../api/client.js";
import { loadKubeConfig } from "../api/config.js";
import { listNodeSummaries, NODE_PAGE } from "./node-list.js";
import { FLEET_ROLE } from "./run.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("fleet verify answers at once what the API server already says", () => {
  test("a NotReady node gets no pod; a collector the scheduler refuses fails in seconds, not at --timeout", async () => {
    const nodes = [
      node({ name: "gpu-1", gpus: 8, rdma: "1k" }),
      node({ name: "gpu-2", gpus: 8, rdma: "1k", ready: false }),
      node({ name: "gpu-3", gpus: 8, rdma: "1k" }),
      node({ name: "gpu-4", gpus: 8, rdma: "1k", unschedulable: true }),
    ];
    api = await startFakeApi(seedCluster({ nodes }), {
      onPodCreated: (pod): PodOutcome =>
        pod.spec.nodeName === "gpu-3"
          ? {
              phase: "Pending",
              afterMs: 5,
              conditions: [
                {
                  type: "PodScheduled",
                  status: "False",
                  reason: "Unschedulable",
                  message: "0/4 nodes are available: 1 Insufficient pods.",
                },
              ],
            }
          : { phase: "Succeeded", log: emptySnapshotLog(pod.spec.nodeName) },
    });
    const io = captureIo();
    const args = ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5", "--timeout", "120"];
    await main([...args, "-o", "json"], io);
    // The reasons are what the API said, not "no snapshot within 120 s": nothing waited for the timeout.
    const out = JSON.parse(io.out);
    const failed = new Map(out.failedNodes.map((f: Obj) => [f.node, f.reason]));
    expect(failed.get("gpu-2")).toMatch(/^node not Ready \(Ready=False, KubeletNotReady: .*\): .*not collected/);
    expect(failed.get("gpu-3")).toMatch(/cannot be scheduled \(PodScheduled=False, Unschedulable: 0\/4 nodes/);
    // A cordoned node is still collected: the collector is pinned and tolerates its taints.
    expect(failed.has("gpu-4")).toBe(false);
    expect(out.run.notReady).toBe(1);
    const created = api.requests.filter((r) => r === "POST /api/v1/namespaces/kube-rdma/pods");
    expect(created).toHaveLength(3);
  });

  test("the node list is read a page at a time and kept as summaries", async () => {
    const total = NODE_PAGE * 2 + 37;
    const nodes = Array.from({ length: total }, (_, i) =>
      node({ name: `gpu-${i}`, gpus: 8, rdma: "1k", ready: i % 100 !== 5 }),
    );
    api = await startFakeApi(seedCluster({ nodes }));
    const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig }), FLEET_ROLE);
    const before = api.requests.length;
    const listed = await listNodeSummaries(clients);
    expect(api.requests.slice(before)).toEqual(Array(3).fill("GET /api/v1/nodes"));
    expect(listed.filter((n) => n.name.startsWith("gpu-"))).toHaveLength(total);
    expect(listed.filter((n) => n.ready?.status === "False")).toHaveLength(11);
    expect(listed.find((n) => n.name === "gpu-0")).toEqual({
      name: "gpu-0",
      rdmaGpu: true,
      ready: { status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" },
      cordoned: false,
    });
  });
});

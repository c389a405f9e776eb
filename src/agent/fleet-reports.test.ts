import { describe, expect, test } from "vitest";
import { captureIo } from "../../test/support/io.js";
import { node, seedCluster } from "../../test/support/kube/cluster-fixtures.js";
import { type Obj, startFakeApi } from "../../test/support/kube/fake-api.js";
import { main } from "../cli/main.js";
import { collectSnapshot, openReader } from "../host/index.js";
import { REPORT_DATA_KEY } from "./report.js";
import { runOnce } from "./run.js";

/** The ConfigMap an agent on `nodeName` would write, for an example host, generated at `at`. */
async function agentReport(nodeName: string, example: string, at: Date): Promise<Obj> {
  const { readInventory } = await import("../inventory/index.js");
  const r = await runOnce(
    {
      node: nodeName,
      read: async () => readInventory(await openReader({ example })),
      settings: { namespace: "kube-rdma", heartbeatSeconds: 1200, taint: null },
      withinGrace: () => false,
      cluster: null,
      source: example,
    },
    at,
  );
  return r.plan.configMap as Obj;
}

describe("fleet verify reads the agents' reports first", () => {
  test("fresh reports are judged as they are; stale, missing and damaged ones are collected by pods", async () => {
    const now = new Date();
    const dayAgo = new Date(now.getTime() - 86_400_000);
    const configmaps = [
      await agentReport("gpu-01", "a100-8x-roce", now),
      await agentReport("gpu-02", "fw-mismatch", now),
      await agentReport("gpu-03", "port-down", now),
      await agentReport("gpu-04", "a100-8x-roce", dayAgo),
    ];
    const damaged = await agentReport("gpu-05", "a100-8x-roce", now);
    damaged.metadata.name = "kube-rdma-node-gpu-05";
    damaged.data[REPORT_DATA_KEY] = '{"schemaVersion":1,"kind":"kube-rdma.io/NodeReport","node":"gpu-05"}';
    configmaps.push(damaged);
    const snapshot = JSON.stringify(await collectSnapshot(await openReader({ example: "a100-8x-roce" })));
    const names = ["gpu-01", "gpu-02", "gpu-03", "gpu-04", "gpu-05", "gpu-06"];
    const collectedOn: string[] = [];
    const api = await startFakeApi(
      { ...seedCluster({ nodes: names.map((name) => node({ name, gpus: 8, rdma: "1k" })) }), configmaps },
      {
        onPodCreated: (pod) => {
          collectedOn.push(pod.spec.nodeName);
          return { phase: "Succeeded", log: snapshot.replace(/"host":"[^"]*"/, `"host":"${pod.spec.nodeName}"`) };
        },
      },
    );
    try {
      const io = captureIo();
      const code = await main(
        ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--timeout", "5", "--poll-interval", "10", "-o", "json"],
        io,
      );
      const r = JSON.parse(io.out);
      expect(collectedOn.sort()).toEqual(["gpu-04", "gpu-05", "gpu-06"]);
      expect(Object.fromEntries(r.nodes.map((n: Obj) => [n.node, n.source]))).toEqual({
        "gpu-01": "report",
        "gpu-02": "report",
        "gpu-03": "report",
        "gpu-04": "pod",
        "gpu-05": "pod",
        "gpu-06": "pod",
      });
      expect(r.run).toMatchObject({ fromReports: 3, collected: 3 });
      expect(io.err).toMatch(
        /3 node\(s\) read from their agent's report .* 3 to collect with pods \(1 stale, 1 damaged, 1 no report/,
      );
      // Per-node findings and fleet consistency work the same on reports.
      expect(r.nodes.find((n: Obj) => n.node === "gpu-03").findings.map((f: Obj) => f.subject)).toContain(
        "gpu-03/mlx5_3",
      );
      expect(r.findings.map((f: Obj) => f.code)).toContain("FLEET_FIRMWARE_DIFFERS");
      expect(code).toBe(1);
    } finally {
      await api.close();
    }
  });

  test("--max-age 0 ignores the reports: every node is collected", async () => {
    const configmaps = [await agentReport("gpu-01", "a100-8x-roce", new Date())];
    const snapshot = JSON.stringify(await collectSnapshot(await openReader({ example: "a100-8x-roce" })));
    const collectedOn: string[] = [];
    const api = await startFakeApi(
      { ...seedCluster({ nodes: [node({ name: "gpu-01", gpus: 8, rdma: "1k" })] }), configmaps },
      {
        onPodCreated: (pod) => {
          collectedOn.push(pod.spec.nodeName);
          return { phase: "Succeeded", log: snapshot };
        },
      },
    );
    try {
      const io = captureIo();
      await main(
        ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--max-age", "0", "--poll-interval", "10", "-o", "json"],
        io,
      );
      expect(collectedOn).toEqual(["gpu-01"]);
      expect(JSON.parse(io.out).nodes[0].source).toBeUndefined();
    } finally {
      await api.close();
    }
  });
});

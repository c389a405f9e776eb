import { readFileSync } from "node:fs";
import { afterEach, describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { captureIo } from "../../../test/support/io.js";
import { emptySnapshotLog, node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { type FakeApi, type FakeApiOptions, type Obj, startFakeApi } from "../../../test/support/kube/fake-api.js";
import { validateCoreObject } from "../../../test/support/kube/schemas.js";
import { main } from "../../cli/main.js";
import { makeClients } from "../api/client.js";
import { loadKubeConfig } from "../api/config.js";
import { collectFleet, FLEET_ROLE, snapshotFromLog } from "./run.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const gpuNodes = (n: number) =>
  Array.from({ length: n }, (_, i) => node({ name: `gpu-${i + 1}`, gpus: 8, rdma: "1k" }));

async function start(nodes: Obj[], opts: FakeApiOptions) {
  api = await startFakeApi({ ...seedCluster({ nodes }) }, opts);
  return makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig }), FLEET_ROLE);
}

describe("fleet: collector pods through the API", () => {
  test("a mirror set in the install (ConfigMap kube-rdma-image) is the collectors' image; --image and KUBE_RDMA_IMAGE still win", async () => {
    // deploy/overlays/default copies its `images:` entry into this ConfigMap, so one setting there moves every use.
    const mirror = "registry.example.net/mirror/kube-rdma:0.1.0";
    const objects = seedCluster();
    objects.configmaps = [
      ...(objects.configmaps ?? []),
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "kube-rdma-image", namespace: "kube-rdma" },
        data: { image: mirror },
      },
    ];
    api = await startFakeApi(objects);
    const images = async (extra: string[], env: Record<string, string> = {}) => {
      const io = captureIo();
      expect(
        await main(["fleet", "verify", "--dry-run", "--kubeconfig", api!.kubeconfig, ...extra], { ...io, env }),
      ).toBe(0);
      return [...new Set(parseAllDocuments(io.out).map((d) => (d.toJS() as Obj).spec.containers[0].image))];
    };
    expect(await images([])).toEqual([mirror]);
    expect(await images(["--image", "other.example/kube-rdma:1"])).toEqual(["other.example/kube-rdma:1"]);
    expect(await images([], { KUBE_RDMA_IMAGE: "env.example/kube-rdma:2" })).toEqual(["env.example/kube-rdma:2"]);
  });
  test("--dry-run prints one pinned, host-reading, tolerant pod per GPU+RDMA node, valid against the core Pod model", async () => {
    api = await startFakeApi(seedCluster());
    const io = captureIo();
    expect(await main(["fleet", "verify", "--dry-run", "--kubeconfig", api.kubeconfig], io)).toBe(0);
    const pods = parseAllDocuments(io.out).map((d) => d.toJS() as Obj);
    expect(pods.map((p) => p.spec.nodeName)).toEqual(["gpu-a100-1", "gpu-a100-2"]);
    const p = pods[0]!;
    expect(p.spec).toMatchObject({ hostNetwork: true, restartPolicy: "Never", tolerations: [{ operator: "Exists" }] });
    expect(p.spec.containers[0].command).toEqual([
      "kube-rdma",
      "collect",
      "-o",
      "-",
      "--root",
      "/host",
      "--own-proc",
      "--host-commands",
      "/host/usr/bin",
    ]);
    expect(p.spec.containers[0].volumeMounts).toContainEqual({
      name: "host-sys",
      mountPath: "/host/sys",
      readOnly: true,
    });
    expect(p.spec.volumes).toContainEqual({ name: "host-sys", hostPath: { path: "/sys", type: "Directory" } });
    for (const pod of pods) expect(validateCoreObject(pod)).toEqual([]);
    expect(api.store.get("pods")!.some((x) => x.metadata.name.startsWith("kr-collect"))).toBe(false);
  });

  test("--dry-run for named nodes needs no cluster: it prints their pods without a kubeconfig", async () => {
    const io = captureIo();
    io.env = { KUBECONFIG: "/nonexistent/kubeconfig" };
    expect(await main(["fleet", "verify", "--dry-run", "--node", "gpu-7", "--node", "gpu-8"], io)).toBe(0);
    const pods = parseAllDocuments(io.out).map((d) => d.toJS() as Obj);
    expect(pods.map((p) => p.spec.nodeName)).toEqual(["gpu-7", "gpu-8"]);
  });

  test("-l selects nodes by label on the server; --progress always draws the bar on stderr", async () => {
    const nodes = [
      node({ name: "pool-a-1", gpus: 8, rdma: "1k", labels: { pool: "a" } }),
      node({ name: "pool-a-2", gpus: 8, rdma: "1k", labels: { pool: "a" } }),
      node({ name: "pool-b-1", gpus: 8, rdma: "1k", labels: { pool: "b" } }),
    ];
    api = await startFakeApi(seedCluster({ nodes }), {
      onPodCreated: (pod) => ({ phase: "Failed", log: `cannot read ${pod.spec.nodeName}\n` }),
    });
    const io = captureIo();
    const args = ["fleet", "verify", "-l", "pool=a", "--kubeconfig", api.kubeconfig, "--poll-interval", "5"];
    expect(await main([...args, "--progress", "always"], io)).toBe(1);
    expect(io.err).toMatch(/\r\[#+\] 2\/2 nodes, 2 failed\n/);
    expect(io.out).toMatch(/Not verified \(2\):\n {2}pool-a-1: the collector failed \(exit 1\): cannot read pool-a-1/);
    expect(io.out).not.toMatch(/pool-b-1/);
    expect(api.requests).toContain("GET /api/v1/nodes");
  });

  test("each node's snapshot comes back from its pod's log and every pod is deleted", async () => {
    const clients = await start(gpuNodes(6), {
      onPodCreated: (pod) => ({ phase: "Succeeded", log: emptySnapshotLog(pod.spec.nodeName) }),
    });
    const run = await collectFleet(clients, {
      nodes: ["gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6"],
      namespace: "kube-rdma",
      image: "kube-rdma:test",
      runId: "abc123",
      timeoutMs: 5000,
      pollMs: 5,
      concurrency: 4,
      handle: snapshotFromLog,
    });
    expect(run.outcomes.map((o) => o.ok && o.result.host)).toEqual([
      "gpu-1",
      "gpu-2",
      "gpu-3",
      "gpu-4",
      "gpu-5",
      "gpu-6",
    ]);
    expect(run.deleted).toHaveLength(6);
    expect(run.leftBehind).toEqual([]);
    expect(api!.store.get("pods")!.filter((p) => p.metadata.namespace === "kube-rdma")).toEqual([]);
  });

  test("a node whose pod never starts times out, one whose collector fails is named with its log; both are cleaned up", async () => {
    const clients = await start(gpuNodes(3), {
      onPodCreated: (pod) =>
        pod.spec.nodeName === "gpu-2"
          ? undefined
          : pod.spec.nodeName === "gpu-3"
            ? { phase: "Failed", log: "kube-rdma collect: cannot read /host/sys/class/infiniband: EACCES\n" }
            : { phase: "Succeeded", log: emptySnapshotLog("gpu-1") },
    });
    const run = await collectFleet(clients, {
      nodes: ["gpu-1", "gpu-2", "gpu-3"],
      namespace: "kube-rdma",
      image: "kube-rdma:test",
      runId: "t1",
      timeoutMs: 300,
      pollMs: 10,
      concurrency: 3,
      handle: snapshotFromLog,
    });
    const byNode = Object.fromEntries(run.outcomes.map((o) => [o.node, o.ok ? "ok" : o.reason]));
    expect(byNode["gpu-1"]).toBe("ok");
    expect(byNode["gpu-2"]).toMatch(/no snapshot within 0 s \(pod phase Pending/);
    expect(byNode["gpu-3"]).toMatch(/collector failed \(exit 1\): kube-rdma collect: cannot read \/host\/sys/);
    expect(api!.store.get("pods")!.filter((p) => p.metadata.namespace === "kube-rdma")).toEqual([]);
  });

  test("a log that is not a snapshot is reported for that node", async () => {
    const clients = await start(gpuNodes(1), {
      onPodCreated: () => ({ phase: "Succeeded", log: "exec /usr/local/bin/kube-rdma: no such file or directory\n" }),
    });
    const run = await collectFleet(clients, {
      nodes: ["gpu-1"],
      namespace: "kube-rdma",
      image: "busybox",
      runId: "t2",
      timeoutMs: 2000,
      pollMs: 5,
      concurrency: 1,
      handle: snapshotFromLog,
    });
    expect(run.outcomes[0]).toMatchObject({ ok: false, reason: expect.stringMatching(/printed no snapshot JSON/) });
  });

  test("RBAC denial of pod creation stops the run with exit 2 naming create pods and the fleet role", async () => {
    api = await startFakeApi(seedCluster(), { deny: [{ verb: "create", resource: "pods" }] });
    const io = captureIo();
    expect(await main(["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5"], io)).toBe(2);
    expect(io.err).toMatch(/refused to create pods in namespace kube-rdma \(403/);
    expect(io.err).toMatch(/kube-rdma-fleet \(kubectl apply -f deploy\/fleet\/rbac\.yaml\)/);
  });

  test("an interrupted run (Ctrl-C) stops creating pods and deletes the ones it made", async () => {
    const clients = await start(gpuNodes(8), { onPodCreated: () => undefined });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const run = await collectFleet(clients, {
      nodes: gpuNodes(8).map((n) => n.metadata.name),
      namespace: "kube-rdma",
      image: "kube-rdma:test",
      runId: "t3",
      timeoutMs: 60_000,
      pollMs: 10,
      concurrency: 2,
      signal: controller.signal,
      handle: snapshotFromLog,
    });
    expect(run.interrupted).toBe(true);
    expect(run.outcomes.every((o) => !o.ok)).toBe(true);
    expect(run.outcomes.filter((o) => !o.ok && /before it started/.test(o.reason)).length).toBeGreaterThan(0);
    expect(api!.store.get("pods")!.filter((p) => p.metadata.namespace === "kube-rdma")).toEqual([]);
  });
});

describe("deploy/: the manifests kube-rdma ships", () => {
  test("namespace and RBAC are valid core objects and grant only what fleet verify uses", () => {
    const docs = [
      "deploy/fleet/namespace.yaml",
      "deploy/fleet/rbac.yaml",
      "deploy/cluster/rbac.yaml",
      "deploy/job/rbac.yaml",
    ].flatMap((f) => parseAllDocuments(readFileSync(f, "utf8")).map((d) => d.toJS() as Obj));
    for (const d of docs) expect(validateCoreObject(d), `${d.kind}/${d.metadata.name}`).toEqual([]);
    const role = docs.find((d) => d.kind === "Role" && d.metadata.name === "kube-rdma-fleet")!;
    expect(role.metadata.namespace).toBe("kube-rdma");
    expect(role.rules).toEqual([
      { apiGroups: [""], resources: ["pods"], verbs: ["create", "get", "list", "delete"] },
      { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
      // The agents' reports, read before any collector pod is started.
      { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] },
    ]);
    const clusterRole = docs.find((d) => d.kind === "ClusterRole" && d.metadata.name === "kube-rdma-fleet")!;
    expect(clusterRole.rules).toEqual([{ apiGroups: [""], resources: ["nodes"], verbs: ["get", "list"] }]);
  });
});

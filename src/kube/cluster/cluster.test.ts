import { afterEach, describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { namespace, node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { type FakeApi, type FakeApiOptions, type Obj, startFakeApi } from "../../../test/support/kube/fake-api.js";
import { validateCoreObject } from "../../../test/support/kube/schemas.js";
import { main } from "../../cli/main.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

type Report = {
  schemaVersion: number;
  findings: { code: string; severity: string; subject: string; fix: string; message: string }[];
  summary: { status: string };
  nodes: { name: string }[];
};

async function runCluster(objects: Record<string, Obj[]>, args: string[] = [], opts: FakeApiOptions = {}) {
  api = await startFakeApi(objects, opts);
  const io = captureIo();
  const code = await main(["cluster", "--kubeconfig", api.kubeconfig, "-o", "json", ...args], io);
  const report = io.out ? (JSON.parse(io.out) as Report) : undefined;
  return { code, io, report, codes: report?.findings.map((f) => `${f.code}:${f.subject}`) ?? [] };
}

describe("cluster: the seed's system through the API", () => {
  // API priority and fairness answers 429 with Retry-After when a client is over its share
  // (https://kubernetes.io/docs/concepts/cluster-administration/flow-control/): wait and ask again, not fail.
  test("an API server that answers 429 Too Many Requests twice (Retry-After: 0) is waited out; the report is the same", async () => {
    let refused = 0;
    const { code, report } = await runCluster(seedCluster(), [], {
      intercept: (req, res) => {
        if (req.plural !== "nodes" || refused >= 2) return false;
        refused++;
        res.writeHead(429, { "content-type": "application/json", "retry-after": "0" });
        res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: 429 }));
        return true;
      },
    });
    expect(refused).toBe(2);
    expect(report?.summary.status).toBe("pass");
    expect(code).toBe(0);
  });

  test("a healthy 2-node seed cluster (rdma/hca 1k, Volcano, training operator) passes", async () => {
    const { code, report } = await runCluster(seedCluster());
    expect(report?.findings).toEqual([]);
    expect(report?.summary.status).toBe("pass");
    expect(report?.schemaVersion).toBe(1);
    expect(code).toBe(0);
  });

  test("the text report lists nodes with their GPU and RDMA resources and says PASS", async () => {
    api = await startFakeApi(seedCluster());
    const io = captureIo();
    expect(await main(["cluster", "--kubeconfig", api.kubeconfig], io)).toBe(0);
    expect(io.out).toMatch(/gpu-a100-1\s+Ready\s+GPU nvidia.com\/gpu 8\s+RDMA rdma\/hca 1000/);
    expect(io.out).toMatch(/rdma-device-plugin\s+kube-system\/rdma-device-plugin\s+2\/2 ready/);
    expect(io.out).toMatch(/PASS/);
  });

  test("one GPU node without rdma/hca is named, and the cluster drops below 2 RDMA nodes", async () => {
    const { code, report, codes } = await runCluster(
      seedCluster({
        nodes: [node({ name: "gpu-a100-1", gpus: 8, rdma: "1k" }), node({ name: "gpu-a100-2", gpus: 8, rdma: null })],
      }),
    );
    expect(codes).toContain("NODE_NO_RDMA_RESOURCE:gpu-a100-2");
    expect(codes).toContain("TOO_FEW_RDMA_GPU_NODES:cluster");
    expect(report?.findings.find((f) => f.code === "NODE_NO_RDMA_RESOURCE")?.fix).toMatch(/spec.nodeName=gpu-a100-2/);
    expect(code).toBe(1);
  });

  test("RDMA allocatable 0 on one node → RDMA_ALLOCATABLE_ZERO naming the plugin pod to look at", async () => {
    const { code, report } = await runCluster(
      seedCluster({
        nodes: [
          node({ name: "gpu-a100-1", gpus: 8, rdma: "1k" }),
          node({ name: "gpu-a100-2", gpus: 8, rdma: "1k", rdmaAllocatable: "0" }),
        ],
      }),
    );
    const f = report?.findings.find((x) => x.code === "RDMA_ALLOCATABLE_ZERO");
    expect(f?.subject).toBe("gpu-a100-2");
    expect(f?.message).toMatch(/capacity 1000 but allocatable 0/);
    expect(f?.fix).toMatch(/Look at the RDMA device plugin pod on gpu-a100-2/);
    expect(code).toBe(1);
  });

  test("allocatable RDMA that differs between identical nodes names the odd one", async () => {
    const { codes } = await runCluster(
      seedCluster({
        nodes: [1, 2, 3, 4].map((i) => node({ name: `gpu-${i}`, gpus: 8, rdma: i === 3 ? "500" : "1k" })),
      }),
    );
    expect(codes).toEqual(["RDMA_ALLOCATABLE_DIFFERS:gpu-3"]);
  });

  test("Volcano missing (no CRDs, no scheduler) → VOLCANO_CRD_MISSING and VOLCANO_SCHEDULER_MISSING", async () => {
    const { code, codes, report } = await runCluster(
      seedCluster({
        noVolcanoScheduler: true,
        dropCrds: ["jobs.batch.volcano.sh", "podgroups.scheduling.volcano.sh", "queues.scheduling.volcano.sh"],
      }),
    );
    expect(codes).toEqual(["VOLCANO_CRD_MISSING:volcano", "VOLCANO_SCHEDULER_MISSING:volcano"]);
    expect(report?.findings[0]?.fix).toMatch(/volcano-development\.yaml/);
    expect(report?.findings[0]?.fix).toMatch(/--scheduler default\|kueue\|coscheduling/);
    expect(code).toBe(1);
  });

  test("PyTorchJob CRD missing → TRAINING_CRD_MISSING error for pytorchjobs.kubeflow.org", async () => {
    const { code, report } = await runCluster(seedCluster({ dropCrds: ["pytorchjobs.kubeflow.org"] }));
    expect(report?.findings).toMatchObject([
      { code: "TRAINING_CRD_MISSING", severity: "error", subject: "pytorchjobs.kubeflow.org" },
    ]);
    expect(report?.findings[0]?.fix).toMatch(/training operator/);
    expect(code).toBe(1);
  });

  test("the RDMA device plugin pod not ready on one node names the DaemonSet and the node", async () => {
    const { code, report } = await runCluster(seedCluster({ rdmaPluginNotReadyOn: "gpu-a100-2" }));
    const f = report?.findings.find((x) => x.code === "DEVICE_PLUGIN_NOT_READY");
    expect(f?.subject).toBe("kube-system/rdma-device-plugin");
    expect(f?.message).toMatch(/1 of 2 pods ready; not ready on gpu-a100-2/);
    expect(f?.fix).toMatch(/logs POD --previous/);
    expect(code).toBe(1);
  });

  test("a sidecar-injecting namespace is a warning, and an error when it is the job namespace (-n)", async () => {
    const objects = seedCluster({ extraNamespaces: [namespace("training", { "istio-injection": "enabled" })] });
    const warn = await runCluster(objects);
    await api?.close();
    expect(warn.report?.findings).toMatchObject([
      { code: "SIDECAR_INJECTION", severity: "warning", subject: "namespace/training" },
    ]);
    expect(warn.code).toBe(0);
    const err = await runCluster(objects, ["-n", "training"]);
    expect(err.report?.findings[0]?.severity).toBe("error");
    expect(err.report?.findings[0]?.fix).toMatch(/sidecar.istio.io\/inject: "false"/);
    expect(err.code).toBe(1);
  });
});

describe("the API fixtures", () => {
  test("are written in the shapes of the Kubernetes models (client-node OpenAPI models)", () => {
    const models: Record<string, string> = {
      nodes: "V1Node",
      daemonsets: "V1DaemonSet",
      deployments: "V1Deployment",
      pods: "V1Pod",
      namespaces: "V1Namespace",
      customresourcedefinitions: "V1CustomResourceDefinition",
    };
    for (const [plural, items] of Object.entries(seedCluster())) {
      for (const item of items)
        expect(validateCoreObject(item, models[plural]), `${plural}/${item.metadata.name}`).toEqual([]);
    }
  });
});

describe("cluster: when it cannot run", () => {
  test("RBAC denial of list nodes → exit 2 naming the verb, resource and ClusterRole", async () => {
    const { code, io } = await runCluster(seedCluster(), [], { deny: [{ verb: "list", resource: "nodes" }] });
    expect(code).toBe(2);
    expect(io.err).toMatch(/refused to list nodes \(403 Forbidden: RBAC\)/);
    expect(io.err).toMatch(/kube-rdma-cluster-reader/);
    expect(io.err).not.toMatch(/at .*\.js:\d+/);
  });

  test("RBAC denial of reading a CRD names customresourcedefinitions", async () => {
    const { code, io } = await runCluster(seedCluster(), [], {
      deny: [{ verb: "get", resource: "customresourcedefinitions" }],
    });
    expect(code).toBe(2);
    expect(io.err).toMatch(/get customresourcedefinitions.apiextensions.k8s.io/);
  });

  test("an unreachable API server → exit 2 naming the address and the context", async () => {
    api = await startFakeApi(seedCluster());
    const kubeconfig = api.kubeconfig;
    await api.close();
    api = undefined;
    const io = captureIo();
    expect(await main(["cluster", "--kubeconfig", kubeconfig], io)).toBe(2);
    expect(io.err).toMatch(/cannot reach the Kubernetes API at http:\/\/127\.0\.0\.1:\d+ \(context "fake"/);
  });

  test("a context the kubeconfig does not have → exit 2 listing the contexts it has", async () => {
    api = await startFakeApi(seedCluster());
    const io = captureIo();
    expect(await main(["cluster", "--kubeconfig", api.kubeconfig, "--context", "prod"], io)).toBe(2);
    expect(io.err).toMatch(/has no context "prod"; it has "fake", "other"/);
  });

  test("--context selects another context of the same kubeconfig", async () => {
    const { code } = await runCluster(seedCluster(), ["--context", "other"]);
    expect(code).toBe(0);
  });
});

describe("cluster: the text report", () => {
  test("three GPU nodes whose RDMA plugin lost its registration print RDMA_ALLOCATABLE_ZERO once with the 3 names", async () => {
    api = await startFakeApi(
      seedCluster({
        nodes: [
          node({ name: "gpu-a100-1", gpus: 8, rdma: "1k" }),
          node({ name: "gpu-a100-2", gpus: 8, rdma: "1k" }),
          node({ name: "gpu-a100-3", gpus: 8, rdma: "1k", rdmaAllocatable: "0" }),
          node({ name: "gpu-a100-4", gpus: 8, rdma: "1k", rdmaAllocatable: "0" }),
          node({ name: "gpu-a100-5", gpus: 8, rdma: "1k", rdmaAllocatable: "0" }),
        ],
      }),
    );
    const io = captureIo();
    expect(await main(["cluster", "--kubeconfig", api.kubeconfig], io)).toBe(1);
    expect(io.out.match(/RDMA_ALLOCATABLE_ZERO/g)).toHaveLength(1);
    expect(io.out).toMatch(
      /RDMA_ALLOCATABLE_ZERO \(gpu-a100-3\.\.gpu-a100-5\): gpu-a100-3\.\.gpu-a100-5 has rdma\/hca/,
    );
    expect(io.out).toMatch(/FAIL: 3 error\(s\)/);
    const json = captureIo();
    await main(["cluster", "--kubeconfig", api.kubeconfig, "-o", "json"], json);
    const zero = JSON.parse(json.out).findings.filter((f: { code: string }) => f.code === "RDMA_ALLOCATABLE_ZERO");
    expect(zero.map((f: { subject: string }) => f.subject)).toEqual(["gpu-a100-3", "gpu-a100-4", "gpu-a100-5"]);
  });
});

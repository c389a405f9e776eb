/**
 * fleet verify over 10,000 nodes whatever their state: the fake API server (this process) serves 10,000 realistic
 * Node objects (50 images and 150 labels each, as a GPU node of a large cluster carries: kubelet image list and
 * cloud/operator labels; shapes as `kubectl get node -o json` prints them,
 * https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/), report ConfigMaps for 97 % of
 * them, no report for 2 % (their collector pods succeed after 5 s with a snapshot of the example host) and no report
 * for 1 % whose collector pods are never scheduled (PodScheduled=False, Unschedulable). `kube-rdma fleet verify
 * -o json` with its defaults runs as a child process (the built CLI). Target: under 60 s wall and under 500 MB peak
 * RSS of the child.
 */
import { runOnce } from "../src/agent/run.js";
import { collectSnapshot, openReader } from "../src/host/index.js";
import { readInventory } from "../src/inventory/index.js";
import { node } from "../test/support/kube/cluster-fixtures.js";
import { type Obj, type PodOutcome, startFakeApi } from "../test/support/kube/fake-api.js";
import { fleetVerifyProcess } from "./measure.js";

const TOTAL = 10_000;
const TARGET_S = 60;
const TARGET_MB = 500;
const PLACEHOLDER = "node-placeholder-0";
const name = (i: number) => `gpu-${String(i).padStart(5, "0")}`;
/** 2 % without a report (collected by pods), 1 % without a report whose pods never schedule. */
const missing = (i: number) => i % 50 === 11;
const unschedulable = (i: number) => i % 100 === 23;

async function reportText(): Promise<string> {
  const r = await runOnce({
    node: PLACEHOLDER,
    read: async () => readInventory(await openReader({ example: "a100-8x-roce" })),
    settings: { namespace: "kube-rdma", heartbeatSeconds: 1200, taint: null },
    withinGrace: () => false,
    cluster: null,
    source: "a100-8x-roce",
  });
  return JSON.stringify(r.plan.configMap);
}

/** A GPU node as a real cluster serves it: 150 labels and the kubelet's list of 50 images. */
function realisticNode(i: number): Obj {
  const n = node({ name: name(i), gpus: 8, rdma: "1k" });
  for (let l = 0; l < 150 - Object.keys(n.metadata.labels).length; l++) {
    n.metadata.labels[`example.com/attribute-${l}`] = `value-${(i * 7 + l) % 97}-${"x".repeat(12)}`;
  }
  n.status.images = Array.from({ length: 50 }, (_, k) => ({
    names: [
      `registry.example.com/team-${k % 9}/image-${k}@sha256:${(i * 31 + k).toString(16).padStart(64, "0")}`,
      `registry.example.com/team-${k % 9}/image-${k}:v${k}.${i % 13}.0`,
    ],
    sizeBytes: 100_000_000 + k * 12_345_678,
  }));
  n.status.nodeInfo = {
    machineID: `${i.toString(16).padStart(32, "0")}`,
    systemUUID: `4c4c4544-${i.toString(16).padStart(4, "0")}-3010-8052-b7c04f4e4d32`,
    bootID: `b5a0d5e1-${i.toString(16).padStart(4, "0")}-4e11-9a61-2d0c3c3e6f10`,
    kernelVersion: "5.15.0-119-generic",
    osImage: "Ubuntu 22.04.4 LTS",
    containerRuntimeVersion: "containerd://1.7.13",
    kubeletVersion: "v1.30.4",
    kubeProxyVersion: "v1.30.4",
    operatingSystem: "linux",
    architecture: "amd64",
  };
  n.status.addresses = [
    { type: "InternalIP", address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
    { type: "Hostname", address: name(i) },
  ];
  return n;
}

const report = await reportText();
const snapshot = JSON.stringify(await collectSnapshot(await openReader({ example: "a100-8x-roce" })));
const nodes: Obj[] = [];
const configmaps: Obj[] = [];
for (let i = 0; i < TOTAL; i++) {
  nodes.push(realisticNode(i));
  if (!missing(i) && !unschedulable(i)) configmaps.push(JSON.parse(report.replaceAll(PLACEHOLDER, name(i))));
}
const nodeKiB = JSON.stringify(nodes[0]).length / 1024;
console.log(
  `Node object ${nodeKiB.toFixed(1)} KiB (150 labels, 50 images): ${((nodeKiB * TOTAL) / 1024).toFixed(0)} MiB for ${TOTAL} nodes; ${configmaps.length} reports, ${TOTAL - configmaps.length} nodes without one`,
);

let firstPod: number | undefined;
let lastPod = 0;
const api = await startFakeApi(
  { nodes, configmaps, namespaces: [{ metadata: { name: "kube-rdma" } }] },
  {
    onPodCreated: (pod): PodOutcome => {
      firstPod ??= performance.now();
      lastPod = performance.now();
      const at = pod.spec.nodeName as string;
      if (unschedulable(Number(at.slice(4)))) {
        return {
          phase: "Pending",
          afterMs: 200,
          conditions: [
            {
              type: "PodScheduled",
              status: "False",
              reason: "Unschedulable",
              message: "0/10000 nodes are available: 1 node(s) had untolerated taint.",
            },
          ],
        };
      }
      return { phase: "Succeeded", afterMs: 5000, log: snapshot.replace(/"host":"[^"]*"/, `"host":"${at}"`) };
    },
  },
);
const { out, err, wallS, rssMb, startedAt: start } = await fleetVerifyProcess(api.kubeconfig);
await api.close();
let r: Obj = {};
try {
  r = JSON.parse(out);
} catch {
  console.log(`fleet verify did not print a JSON report:\n${err.slice(0, 2000)}`);
}
const failed = (r.failedNodes ?? []) as Obj[];
const unscheduled = failed.filter((f) => /PodScheduled=False/.test(f.reason)).length;
const timedOut = failed.filter((f) => /no snapshot within/.test(f.reason)).length;
const listPages = api.requests.filter((q) => q === "GET /api/v1/nodes").length;
console.log(
  `fleet verify over ${TOTAL} nodes: ${wallS.toFixed(1)} s wall, peak RSS ${rssMb.toFixed(0)} MB; ${r.nodes?.length ?? 0} nodes reported, ${r.run?.fromReports ?? 0} from reports, ${r.run?.collected ?? 0} collected by pods, ${unscheduled} unschedulable answered at once, ${timedOut} timed out; node list in ${listPages} page(s)`,
);
const sinceStart = (t: number | undefined) => (t === undefined ? "-" : ((t - start) / 1000).toFixed(1));
console.log(
  `  first collector pod created at ${sinceStart(firstPod)} s (node list and reports read before), last at ${sinceStart(lastPod)} s`,
);
const ok =
  wallS < TARGET_S && rssMb < TARGET_MB && r.nodes?.length === TOTAL && unscheduled === TOTAL / 100 && timedOut === 0;
console.log(
  `target (defaults): ${TOTAL} nodes (2 % reports missing, 1 % unschedulable) < ${TARGET_S} s and < ${TARGET_MB} MB → ${ok ? "PASS" : "MISS"} (${wallS.toFixed(1)} s, ${rssMb.toFixed(0)} MB)`,
);

/**
 * fleet verify over 10,000 nodes whose agents keep reports: the fake API server (this process) serves 10,000 Nodes
 * and 10,000 report ConfigMaps; `kube-rdma fleet verify -o json` runs as a child process (the built CLI), lists
 * the nodes and the reports, judges every node from its report and computes fleet consistency. No pod is started.
 * Target: under 60 s wall and under 1 GB of memory (the child's peak RSS). Also prints the projected API load of
 * 10,000 agents at the default interval and heartbeat.
 */
import { runOnce } from "../src/agent/run.js";
import { openReader } from "../src/host/index.js";
import { readInventory } from "../src/inventory/index.js";
import { node } from "../test/support/kube/cluster-fixtures.js";
import { type Obj, startFakeApi } from "../test/support/kube/fake-api.js";
import { fleetVerifyProcess } from "./measure.js";

const TOTAL = 10_000;
const TARGET_S = 60;
const TARGET_MB = 1024;
const ODD = ["fw-mismatch", "half-rate", "gid-index-5", "port-down", "h100-18hca"];
const PLACEHOLDER = "node-placeholder-0";

/** One example's report ConfigMap as JSON text, for a placeholder node name. */
async function reportText(example: string): Promise<string> {
  const r = await runOnce({
    node: PLACEHOLDER,
    read: async () => readInventory(await openReader({ example })),
    settings: { namespace: "kube-rdma", heartbeatSeconds: 1200, taint: null },
    withinGrace: () => false,
    cluster: null,
    source: example,
  });
  return JSON.stringify(r.plan.configMap);
}

const texts = new Map<string, string>();
for (const e of ["a100-8x-roce", ...ODD]) texts.set(e, await reportText(e));
const name = (i: number) => `gpu-${String(i).padStart(5, "0")}`;
const nodes: Obj[] = [];
const configmaps: Obj[] = [];
for (let i = 0; i < TOTAL; i++) {
  const example = i % 50 === 7 ? ODD[((i / 50) % ODD.length) | 0]! : "a100-8x-roce";
  nodes.push(node({ name: name(i), gpus: 8, rdma: "1k" }));
  configmaps.push(JSON.parse(texts.get(example)!.replaceAll(PLACEHOLDER, name(i))));
}
const kib = (e: string) => `${e} ${(texts.get(e)!.length / 1024).toFixed(1)} KiB`;
console.log(`report ConfigMaps: ${["a100-8x-roce", ...ODD].map(kib).join(", ")}`);

const api = await startFakeApi({ nodes, configmaps, namespaces: [{ metadata: { name: "kube-rdma" } }] });
const { out, err, wallS, rssMb } = await fleetVerifyProcess(api.kubeconfig);
await api.close();
let nodesReported = 0;
let fromReports = 0;
try {
  const r = JSON.parse(out);
  nodesReported = r.nodes.length;
  fromReports = r.run.fromReports;
} catch {
  console.log(`fleet verify did not print a JSON report:\n${err.slice(0, 2000)}`);
}
const podsCreated = api.requests.filter((r) => r.startsWith("POST") && r.endsWith("/pods")).length;
console.log(
  `fleet verify over ${TOTAL} nodes from agent reports: ${wallS.toFixed(1)} s wall, peak RSS ${rssMb.toFixed(0)} MB; ${nodesReported} nodes reported, ${fromReports} from reports, ${podsCreated} pod(s) created`,
);
// The agents' own load on the API server: per agent, one status PATCH and one ConfigMap PUT per heartbeat
// (1200 s) while nothing changes; runs in between (every 300 s) read and write nothing.
const writesPerS = (TOTAL * 2) / 1200;
console.log(
  `projected API load of ${TOTAL} agents (interval 300 s, heartbeat 1200 s, no change): ${writesPerS.toFixed(1)} writes/s, 0 reads/s in steady state (2 GETs per agent at start)`,
);
const ok = wallS < TARGET_S && rssMb < TARGET_MB && nodesReported === TOTAL && fromReports === TOTAL;
console.log(
  `target: ${TOTAL} nodes < ${TARGET_S} s and < ${TARGET_MB} MB → ${ok ? "PASS" : "MISS"} (${wallS.toFixed(1)} s, ${rssMb.toFixed(0)} MB)`,
);

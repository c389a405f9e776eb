/**
 * A 16-pod gang meeting in one ConfigMap on the local fake API server: each pod publishes the facts of an example
 * training pod and waits for the others on watch events.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { type FakeApi, startFakeApi } from "../../test/support/kube/fake-api.js";
import { openReader } from "../host/index.js";
import { makeClients } from "../kube/api/client.js";
import { loadKubeConfig } from "../kube/api/config.js";
import { PREFLIGHT_ROLE, preflightConfigMapName, rendezvous } from "./gang.js";
import { readPodFacts } from "./read.js";
import { preflightReport } from "./report.js";
import type { PodFacts } from "./types.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const CM = preflightConfigMapName("llama-70b");
const podName = (i: number) => `llama-70b-worker-${i}`;

const read = new Map<string, Promise<PodFacts>>();
/** An example pod's facts under another pod name (each example is read once). */
async function factsOf(example: string, pod: string): Promise<PodFacts> {
  if (!read.has(example))
    read.set(
      example,
      openReader({ example }).then((r) => readPodFacts(r)),
    );
  return { ...(await read.get(example)!), pod };
}

async function gang(opts: {
  odd?: { index: number; example: string };
  absent?: number;
  late?: number;
  timeoutMs: number;
}) {
  api = await startFakeApi({ configmaps: [{ metadata: { name: CM, namespace: "team-a" }, data: {} }] });
  const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig }), PREFLIGHT_ROLE);
  const pod = async (i: number) => {
    const example = opts.odd?.index === i ? opts.odd.example : "training-pod";
    const facts = await factsOf(example, podName(i));
    return rendezvous({ clients, namespace: "team-a", configMap: CM, facts, members: 16, timeoutMs: opts.timeoutMs });
  };
  const early = Array.from({ length: 16 }, (_, i) => i).filter((i) => i !== opts.absent && i !== opts.late);
  const running = early.map(pod);
  if (opts.late !== undefined) {
    // The late pod starts only once every other pod has published and is waiting on its watch.
    const watching = () => api!.requests.filter((r) => r === "GET /api/v1/namespaces/team-a/configmaps").length;
    await vi.waitFor(() => expect(watching()).toBeGreaterThanOrEqual(early.length), { timeout: 5000 });
    running.push(pod(opts.late));
  }
  return Promise.all(running);
}

describe("preflight gang rendezvous through one ConfigMap per job", () => {
  test("16 identical pods, one of them late: every pod sees all 16 and the comparison passes", async () => {
    const results = await gang({ late: 11, timeoutMs: 10_000 });
    expect(results).toHaveLength(16);
    for (const r of results) {
      expect(r.complete).toBe(true);
      expect(r.members.map((m) => m.name)).toHaveLength(16);
      expect(preflightReport(r.members).summary.status).toBe("pass");
    }
    const cm = api!.store.get("configmaps")![0]!;
    expect(Object.keys(cm.data)).toContain(`${podName(11)}.json`);
  });

  test("worker-7 whose mlx5_5 moved its RoCE v2 GID to index 5 is named against the 15 others, with the per-pod-safe fix", async () => {
    const results = await gang({ odd: { index: 7, example: "training-pod-gid-index-5" }, timeoutMs: 10_000 });
    const report = preflightReport(results[0]!.members);
    expect(report.summary.status).toBe("fail");
    const gid = report.findings.filter((f) => f.code === "PREFLIGHT_GID_INDEX_DIFFERS");
    expect(gid).toHaveLength(1);
    expect(gid[0]!.subject).toBe(`${podName(7)}: mlx5_5`);
    expect(gid[0]!.message).toContain(`mlx5_5 RoCE v2 GID index: 3 on 15 pods, 5 on ${podName(7)}`);
    expect(gid[0]!.fix).toContain("NCCL_IB_ADDR_RANGE=25.11.128.0/24");
    // Every pod reaches the same verdict, so every init container fails and no rank starts.
    for (const r of results) expect(preflightReport(r.members).summary.status).toBe("fail");
  });

  test("one pod never publishes: each waiting pod times out with a message that counts who is there", async () => {
    const results = await gang({ absent: 4, timeoutMs: 400 });
    expect(results).toHaveLength(15);
    for (const r of results) {
      expect(r.complete).toBe(false);
      if (r.complete) continue;
      expect(r.finding.code).toBe("PREFLIGHT_GANG_INCOMPLETE");
      expect(r.finding.message).toMatch(
        /^15 of 16 pods published their facts to ConfigMap llama-70b-preflight within 0\.4 s/,
      );
      expect(r.finding.message).toContain("1 missing");
    }
  });

  test("without the ConfigMap the first pod creates it and the others merge into it", async () => {
    api = await startFakeApi({});
    const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig }), PREFLIGHT_ROLE);
    const facts = await Promise.all([0, 1].map((i) => factsOf("training-pod", podName(i))));
    const results = await Promise.all(
      facts.map((f) =>
        rendezvous({ clients, namespace: "team-a", configMap: CM, facts: f, members: 2, timeoutMs: 5000 }),
      ),
    );
    expect(results.every((r) => r.complete)).toBe(true);
    expect(Object.keys(api.store.get("configmaps")![0]!.data).sort()).toEqual([
      `${podName(0)}.json`,
      `${podName(1)}.json`,
    ]);
  });
});

describe("kube-rdma preflight --job NAME --members N (the init container's command line)", () => {
  async function runPod(pod: string, example: string, members: number, timeout: number, extra: string[] = []) {
    const { captureIo } = await import("../../test/support/io.js");
    const { main } = await import("../cli/main.js");
    const io = captureIo();
    io.env = { POD_NAME: pod, POD_NAMESPACE: "team-a" };
    const args = ["preflight", "--job", "llama-70b", "--members", String(members), "--timeout", String(timeout)];
    const code = await main([...args, "--example", example, "--kubeconfig", api!.kubeconfig, ...extra], io);
    return { code, out: io.out, err: io.err };
  }

  test("two pods that agree pass (exit 0); the ConfigMap holds both, keyed by POD_NAME", async () => {
    api = await startFakeApi({ configmaps: [{ metadata: { name: CM, namespace: "team-a" }, data: {} }] });
    const [a, b] = await Promise.all([runPod("w-0", "training-pod", 2, 10), runPod("w-1", "training-pod", 2, 10)]);
    expect([a!.code, b!.code]).toEqual([0, 0]);
    expect(a!.out).toContain(
      "kube-rdma preflight: job llama-70b, pod w-0 (ConfigMap team-a/llama-70b-preflight): 2 pods",
    );
    expect(a!.out).toContain("PASS");
    expect(Object.keys(api.store.get("configmaps")![0]!.data).sort()).toEqual(["w-0.json", "w-1.json"]);
  });

  test("a pod whose image carries another NCCL fails every init container (exit 1), naming it", async () => {
    api = await startFakeApi({ configmaps: [{ metadata: { name: CM, namespace: "team-a" }, data: {} }] });
    const runs = await Promise.all([
      runPod("w-0", "training-pod", 3, 10),
      runPod("w-1", "training-pod", 3, 10),
      runPod("w-2", "training-pod-nccl-2.12", 3, 10),
    ]);
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1]);
    expect(runs[0]!.out.replace(/\s+/g, " ")).toContain("NCCL library: NCCL 2.11.4 on w-0, w-1, NCCL 2.12.12 on w-2.");
  });

  test("alone in a gang of 2 it gives up after --timeout with exit 1 and says who is missing", async () => {
    api = await startFakeApi({ configmaps: [{ metadata: { name: CM, namespace: "team-a" }, data: {} }] });
    const r = await runPod("w-0", "training-pod", 2, 0.3, ["-o", "json"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as { findings: { code: string; message: string }[] };
    expect(report.findings.map((f) => f.code)).toEqual(["PREFLIGHT_GANG_INCOMPLETE"]);
    expect(report.findings[0]!.message).toBe(
      "1 of 2 pods published their facts to ConfigMap llama-70b-preflight within 0.3 s (present: w-0); 1 missing.",
    );
  });

  test("a service account without rights on the ConfigMap is exit 2 naming the rule and deploy/preflight/rbac.yaml", async () => {
    api = await startFakeApi(
      { configmaps: [{ metadata: { name: CM, namespace: "team-a" }, data: {} }] },
      { deny: [{ verb: "patch", resource: "configmaps" }] },
    );
    const r = await runPod("w-0", "training-pod", 2, 5);
    expect(r.code).toBe(2);
    expect(r.err).toContain("refused to patch configmaps llama-70b-preflight in namespace team-a (403");
    expect(r.err).toContain("deploy/preflight/rbac.yaml");
  });
});

test("a watch the API refuses does not turn into a busy loop: reads are spaced by the retry pause", async () => {
  api = await startFakeApi(
    { configmaps: [{ metadata: { name: CM, namespace: "team-a" }, data: {} }] },
    { deny: [{ verb: "watch", resource: "configmaps" }] },
  );
  const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig }), PREFLIGHT_ROLE);
  const facts = await factsOf("training-pod", podName(0));
  const r = await rendezvous({ clients, namespace: "team-a", configMap: CM, facts, members: 2, timeoutMs: 1500 });
  expect(r.complete).toBe(false);
  const reads = api.requests.filter((q) => q === `GET /api/v1/namespaces/team-a/configmaps/${CM}`).length;
  // 1.5 s with a refused watch and a 1 s pause: the first read, one after the pause, one at the deadline.
  expect(reads).toBeGreaterThanOrEqual(2);
  expect(reads).toBeLessThanOrEqual(3);
});

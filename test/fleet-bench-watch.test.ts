/**
 * The cluster runner watches its jobs instead of polling them (src/kube/bench/watch.ts), against the local API
 * server: one list and one watch of the run's MPIJobs and of the launcher pods per round, whatever the number of
 * jobs; a watch the server ends is opened again from the last resourceVersion seen; a resourceVersion too old to
 * resume from — delivered, as the API server does, as an ERROR event carrying a Status with code 410 inside a
 * 200 stream (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes: "clients
 * must handle the case by recognizing the status code 410 Gone, clearing their local cache, performing a new get
 * or list operation, and starting the watch from the resourceVersion that was returned"; kubernetes/kubernetes#25151
 * for the event form) — costs one list again; a watch refused (a Role without the `watch` verb) falls back to polling.
 */
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, test } from "vitest";
import { formatNcclTestsOutput } from "../src/fabric/bench/job-log.js";
import type { BenchJob } from "../src/fabric/types.js";
import { DEFAULT_PAIR_SWEEP, DEFAULT_RAIL_SWEEP } from "../src/fabric/types.js";
import { makeClients } from "../src/kube/api/client.js";
import { loadKubeConfig } from "../src/kube/api/config.js";
import { benchApi } from "../src/kube/bench/api.js";
import {
  BENCH_ROLE,
  benchJobManifest,
  MPI_JOB_NAME_LABEL,
  MPI_JOB_ROLE_LABEL,
  REQUESTS_PER_TICK,
  runBenchRound,
} from "../src/kube/bench/index.js";
import { WATCH_START_REQUESTS } from "../src/kube/bench/watch.js";
import { node, seedCluster } from "./support/kube/cluster-fixtures.js";
import { type FakeApi, type InterceptedRequest, type Obj, startFakeApi } from "./support/kube/fake-api.js";
import { mpiJobPods } from "./support/kube/mpi-operator.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const NS = "kube-rdma-bench";
const NODES = 64;
const names = Array.from({ length: NODES }, (_, i) => `gpu-${String(i + 1).padStart(2, "0")}`);
const nodes = names.map((name) => node({ name, gpus: 8, rdma: "1k" }));
/** Two waves of a round: every node once per wave, with a new partner in the second. */
const jobs: BenchJob[] = [0, 1].flatMap((wave) =>
  Array.from({ length: NODES / 2 }, (_, i) => {
    const a = names[2 * i]!;
    const b = wave === 0 ? names[2 * i + 1]! : names[(2 * i + 3) % NODES]!;
    return { id: `r2-${wave * 100 + i + 1}`, round: 2, kind: "pair" as const, nodes: [a, b] as const, why: "", wave };
  }),
);
const rows = [
  { bytes: 2 ** 26, busbw: 46.2 },
  { bytes: 2 ** 27, busbw: 46.9 },
];
const options = (runId: string, pollMs: number, extra: { watch?: boolean; onWatchFallback?: (w: string) => void }) => ({
  namespace: NS,
  runId,
  manifest: (j: BenchJob) =>
    benchJobManifest(j, {
      runId,
      namespace: NS,
      image: "ghcr.io/coreweave/nccl-tests:12.9.1-devel-ubuntu24.04-nccl2.29.2-1-d73ec07",
      gpusPerNode: 8,
      hcas: ["mlx5_0", "mlx5_1"],
      gpuResource: "nvidia.com/gpu",
      rdmaResource: "rdma/hca",
      rdmaCount: 1,
      schedulerName: "volcano",
      pairSweep: DEFAULT_PAIR_SWEEP,
      railSweep: DEFAULT_RAIL_SWEEP,
    }),
  timeoutMs: 60_000,
  pollMs,
  concurrency: 256,
  ...extra,
});

/** The operator stand-in: each MPIJob gets a launcher and two workers; launchers succeed after 600–900 ms. */
function operator(intercept?: (req: InterceptedRequest, res: ServerResponse) => boolean) {
  const hostsOf = new Map<string, string[]>();
  let k = 0;
  return {
    ...(intercept ? { intercept } : {}),
    onObjectCreated(plural: string, obj: Obj): Obj[] | undefined {
      if (plural !== "mpijobs") return undefined;
      const name = obj.metadata.name as string;
      hostsOf.set(name, (obj.metadata.annotations["kube-rdma.io/bench-nodes"] as string).split(","));
      return mpiJobPods(obj, "nccl-tests");
    },
    onPodCreated(p: Obj) {
      const name = p.metadata.labels?.[MPI_JOB_NAME_LABEL] as string;
      if (p.metadata.labels[MPI_JOB_ROLE_LABEL] !== "launcher") return { phase: "Running" as const };
      return {
        phase: "Succeeded" as const,
        log: formatNcclTestsOutput(rows, hostsOf.get(name) ?? [], 8),
        afterMs: 600 + ((k++ * 37) % 300),
      };
    },
  };
}

/** Requests by kind: lists and watches of the run's MPIJobs and of pods, and everything per job. */
function tally(fake: FakeApi) {
  const mpijobs = /^GET \/apis\/kubeflow\.org\/v2beta1\/namespaces\/[\w-]+\/mpijobs$/;
  const pods = /^GET \/api\/v1\/namespaces\/[\w-]+\/pods$/;
  const jobWatches = fake.watches.filter((w) => w.includes("/mpijobs?")).length;
  const podWatches = fake.watches.filter((w) => w.includes("/pods?")).length;
  const count = (re: RegExp) => fake.requests.filter((r) => re.test(r)).length;
  return {
    jobLists: count(mpijobs) - jobWatches,
    jobWatches,
    // Pod lists include each job's own pod list (before its pods are deleted).
    podLists: count(pods) - podWatches,
    podWatches,
    total: fake.requests.length,
  };
}

async function run(fake: FakeApi, runId: string, pollMs: number, watch = true) {
  const clients = makeClients(loadKubeConfig({ kubeconfig: fake.kubeconfig, env: {} }), BENCH_ROLE);
  const fallbacks: string[] = [];
  const started = Date.now();
  const results = await runBenchRound(
    clients,
    benchApi(clients, NS),
    jobs,
    options(runId, pollMs, { watch, onWatchFallback: (w) => fallbacks.push(w) }),
    new Map(),
  );
  return { results, fallbacks, seconds: (Date.now() - started) / 1000 };
}

describe("the cluster runner watches its jobs", () => {
  test(`${NODES} nodes, ${jobs.length} jobs in two waves: 4 requests to follow them all, against ${REQUESTS_PER_TICK} per poll`, async () => {
    api = await startFakeApi(seedCluster({ nodes }), operator());
    const pollMs = 50;
    const watched = await run(api, "wa", pollMs);
    expect(watched.results.every((r) => r.ok)).toBe(true);
    expect(watched.fallbacks).toEqual([]);
    const w = tally(api);
    // One list and one watch of each, for the whole round; nothing that grows with the jobs or the time.
    expect([w.jobLists, w.jobWatches, w.podWatches]).toEqual([1, 1, 1]);
    expect(w.podLists).toBe(1 + jobs.length);
    const perJob = (w.total - WATCH_START_REQUESTS) / jobs.length;
    expect(perJob).toBeLessThanOrEqual(7);
    const before = api.requests.length;

    // The same round polled at the same interval: two lists per tick, as long as the jobs run.
    const polled = await run(api, "wb", pollMs, false);
    expect(polled.results.every((r) => r.ok)).toBe(true);
    const pollRequests = api.requests.length - before;
    const ticks = (pollRequests - perJob * jobs.length) / REQUESTS_PER_TICK;
    // Two waves of 0.6–0.9 s jobs polled every 50 ms: many ticks of 2 lists (about 36 on an idle machine, fewer
    // when each tick's work takes longer), where the watch made 4 requests.
    expect(ticks).toBeGreaterThanOrEqual(10);
    const rate = (n: number, s: number) => (n / s).toFixed(1);
    console.info(
      `watched: ${w.total} requests in ${watched.seconds.toFixed(1)} s (${rate(w.total, watched.seconds)}/s, of which ${WATCH_START_REQUESTS} to follow the jobs); ` +
        `polled every ${pollMs} ms: ${pollRequests} requests in ${polled.seconds.toFixed(1)} s (${rate(pollRequests, polled.seconds)}/s, ~${Math.round(ticks)} ticks × ${REQUESTS_PER_TICK})`,
    );
    // Watching: what follows the jobs is a constant; the rest is each job's own 7 at most.
    expect(w.total).toBeLessThanOrEqual(WATCH_START_REQUESTS + 7 * jobs.length);
    expect(w.total).toBeLessThan(pollRequests);
  }, 60_000);

  test("a watch that expires (410 Gone as an ERROR event) is listed again and resumed from the new resourceVersion", async () => {
    let expired = false;
    const gone = (req: InterceptedRequest, res: ServerResponse) => {
      if (expired || !req.watch || req.plural !== "mpijobs") return false;
      expired = true;
      res.writeHead(200, { "content-type": "application/json" });
      const status = {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `too old resource version: ${req.resourceVersion} (9999)`,
        reason: "Expired",
        code: 410,
      };
      res.end(`${JSON.stringify({ type: "ERROR", object: status })}\n`);
      return true;
    };
    api = await startFakeApi(seedCluster({ nodes }), operator(gone));
    const { results, fallbacks } = await run(api, "wc", 50);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(fallbacks).toEqual([]);
    const t = tally(api);
    expect(t.jobLists).toBe(2);
    expect(t.jobWatches).toBe(2);
    const [first, second] = api.watches.filter((w) => w.includes("/mpijobs?"));
    const rv = (w: string) => Number(new URLSearchParams(w.split("?")[1]).get("resourceVersion"));
    // From the re-list's resourceVersion: not older than the one that expired (equal when nothing changed between).
    expect(rv(second!)).toBeGreaterThanOrEqual(rv(first!));
    expect(rv(second!)).toBeGreaterThan(0);
  }, 60_000);

  test("a watch the server ends is opened again from the last resourceVersion it saw", async () => {
    let cut = false;
    const ends = (req: InterceptedRequest, res: ServerResponse) => {
      if (cut || !req.watch || req.plural !== "pods") return false;
      cut = true;
      res.writeHead(200, { "content-type": "application/json" });
      res.end();
      return true;
    };
    api = await startFakeApi(seedCluster({ nodes }), operator(ends));
    const { results, fallbacks } = await run(api, "wd", 50);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(fallbacks).toEqual([]);
    const podWatches = api.watches.filter((w) => w.includes("/pods?"));
    expect(podWatches).toHaveLength(2);
    expect(tally(api).podLists).toBe(1 + jobs.length);
  }, 60_000);

  test("a watch refused (a Role without the watch verb): polled instead, said once, every job still read", async () => {
    const refuse = (req: InterceptedRequest, res: ServerResponse) => {
      if (!req.watch) return false;
      res.writeHead(403, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          reason: "Forbidden",
          code: 403,
          message: `mpijobs.kubeflow.org is forbidden: User "u" cannot watch resource "${req.plural}"`,
        }),
      );
      return true;
    };
    api = await startFakeApi(seedCluster({ nodes }), operator(refuse));
    const { results, fallbacks } = await run(api, "we", 50);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]).toMatch(/the watch of \S+ failed: .*403/);
    expect(tally(api).jobLists).toBeGreaterThan(2);
  }, 60_000);
});

/**
 * The cluster runner of `fleet bench` against the local API server: waves are barriers (a wave's MPIJobs have all
 * ended and been deleted before the next wave's first is created), and a launcher that fails and is restarted —
 * restartCount and lastState.terminated as the API server reports a restarted container
 * (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-restarts) — fails its job at once
 * with its log, not at the job's timeout.
 */
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
  type CreatedJobs,
  MPI_JOB_NAME_LABEL,
  MPI_JOB_ROLE_LABEL,
  runBenchRound,
} from "../src/kube/bench/index.js";
import { node, seedCluster } from "./support/kube/cluster-fixtures.js";
import { type FakeApi, type Obj, type PodOutcome, startFakeApi } from "./support/kube/fake-api.js";
import { mpiJobPods } from "./support/kube/mpi-operator.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const NS = "kube-rdma-bench";
const nodes = ["gpu-w1", "gpu-w2", "gpu-w3", "gpu-w4"].map((name) => node({ name, gpus: 8, rdma: "1k" }));
const job = (id: string, a: string, b: string, wave: number): BenchJob => ({
  id,
  round: 2,
  kind: "pair",
  nodes: [a, b],
  why: "",
  wave,
});
const options = (runId: string, timeoutMs: number) => ({
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
  timeoutMs,
  pollMs: 20,
  concurrency: 8,
});
const rows = [
  { bytes: 2 ** 26, busbw: 46.2 },
  { bytes: 2 ** 27, busbw: 46.9 },
];

/** An operator stand-in: pods per MPIJob; each launcher ends as `outcome(jobName)` says. */
function operator(outcome: (job: string, hosts: string[]) => PodOutcome, onJob?: (name: string) => void) {
  const hostsOf = new Map<string, string[]>();
  return {
    onObjectCreated(plural: string, obj: Obj): Obj[] | undefined {
      if (plural !== "mpijobs") return undefined;
      const name = obj.metadata.name as string;
      onJob?.(name);
      hostsOf.set(name, (obj.metadata.annotations["kube-rdma.io/bench-nodes"] as string).split(","));
      return mpiJobPods(obj, "nccl-tests");
    },
    onPodCreated(p: Obj): PodOutcome | undefined {
      const name = p.metadata.labels?.[MPI_JOB_NAME_LABEL] as string;
      if (p.metadata.labels[MPI_JOB_ROLE_LABEL] !== "launcher") return { phase: "Running" };
      return outcome(name, hostsOf.get(name) ?? []);
    },
  };
}

describe("the cluster runner", () => {
  test("waves are barriers: no job of wave 1 exists while one of wave 0 does", async () => {
    const seenAtCreate = new Map<string, string[]>();
    api = await startFakeApi(
      seedCluster({ nodes }),
      operator(
        (_, hosts) => ({ phase: "Succeeded", log: formatNcclTestsOutput(rows, hosts, 8), afterMs: 150 }),
        (name) =>
          seenAtCreate.set(
            name,
            (api?.store.get("mpijobs") ?? []).map((j) => j.metadata.name as string),
          ),
      ),
    );
    const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig, env: {} }), BENCH_ROLE);
    const jobs = [
      job("r2-1", "gpu-w1", "gpu-w2", 0),
      job("r2-2", "gpu-w3", "gpu-w4", 0),
      job("r2-3", "gpu-w1", "gpu-w3", 1),
      job("r2-4", "gpu-w2", "gpu-w4", 1),
    ];
    const created: CreatedJobs = new Map();
    const results = await runBenchRound(clients, benchApi(clients, NS), jobs, options("w1", 30_000), created);
    expect(results.map((r) => [r.job.id, r.ok])).toEqual([
      ["r2-1", true],
      ["r2-2", true],
      ["r2-3", true],
      ["r2-4", true],
    ]);
    const wave1 = [...seenAtCreate].filter(([name]) => /r2-[34]$/.test(name));
    expect(wave1).toHaveLength(2);
    for (const [, present] of wave1) expect(present.filter((n) => /r2-[12]$/.test(n))).toEqual([]);
    // The second wave started after the first had ended: its results say when.
    const startedAt = results.map((r) => (r.ok ? r.startedAt : undefined));
    expect(startedAt[0]).toBe(0);
    expect(startedAt[2]!).toBeGreaterThanOrEqual(0.15);
    expect(created.size).toBe(0);
  });

  test("a launcher restarted after exit code 1 fails its job at once, with its log, not at the 60 s timeout", async () => {
    const crashed = {
      name: "launcher",
      image: "nccl-tests",
      imageID: "",
      ready: false,
      restartCount: 1,
      state: { running: { startedAt: new Date(0).toISOString() } },
      lastState: { terminated: { exitCode: 1, reason: "Error" } },
    };
    api = await startFakeApi(
      seedCluster({ nodes }),
      operator(() => ({
        phase: "Running",
        containerStatuses: [crashed],
        log: "gpu-w1: Test NCCL failure common.cu:1146 'remote process exited or there was a network error / '\n",
        afterMs: 30,
      })),
    );
    const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig, env: {} }), BENCH_ROLE);
    const started = Date.now();
    const [r] = await runBenchRound(
      clients,
      benchApi(clients, NS),
      [job("r2-1", "gpu-w1", "gpu-w2", 0)],
      options("w2", 60_000),
      new Map(),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r?.ok).toBe(false);
    expect(r && !r.ok && r.reason).toMatch(
      /^the launcher failed \(exit code 1 \(Error\), restarted 1 time\(s\)\): gpu-w1: Test NCCL failure/,
    );
    expect(api.store.get("mpijobs")).toEqual([]);
  });
});

/**
 * `fleet bench --topology rail-optimised` end to end through the local API server: a fleet whose nodes carry their
 * unit as a topology label and their driver as GPU Feature Discovery labels, an MPI operator stand-in that answers
 * each MPIJob's launcher log from the rail-optimised simulator's truth for the same fleet (the simulator lives in
 * this test, never in the product), and the cluster path's findings checked against that truth. The API request
 * rate the run made is measured and bounded (the jobs are watched: src/kube/bench/watch.ts).
 */
import { afterEach, describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { main } from "../src/cli/main.js";
import { unitIndex } from "../src/fabric/model.js";
import { simulateRailFleet } from "../src/fabric/simulate/fleet.js";
import { BENCH_NODES_ANNOTATION } from "../src/kube/bench/manifests.js";
import { WATCH_START_REQUESTS } from "../src/kube/bench/watch.js";
import { captureIo } from "./support/io.js";
import { seedCluster } from "./support/kube/cluster-fixtures.js";
import { type FakeApi, type Obj, startFakeApi } from "./support/kube/fake-api.js";
import { railClusterNodes, soloOperator } from "./support/kube/mpi-operator.js";
import { validateCustomResource } from "./support/kube/schemas.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const RAILS = 4;

function fleet(seed: number) {
  const sim = simulateRailFleet({
    nodes: 32,
    units: 4,
    rails: RAILS,
    oversubscription: 2,
    badNodes: 1,
    badRails: 1,
    downNics: 1,
    badUplinks: 1,
    noise: 0.02,
    seed,
  });
  const nodes = railClusterNodes(sim, RAILS);
  return { sim, nodes };
}

describe("fleet bench --topology rail-optimised on a cluster (local API server)", () => {
  for (const seed of [5, 6]) {
    test(`seed ${seed}: nodes and NICs as the simulator planted them, every planted hop listed as not cleared, within 4 requests per round to follow the jobs`, async () => {
      const { sim, nodes } = fleet(seed);
      const op = soloOperator(sim, RAILS);
      api = await startFakeApi(seedCluster({ nodes }), op);
      const io = captureIo();
      const pollMs = 50;
      const started = Date.now();
      const code = await main(
        [
          "fleet",
          "bench",
          "--topology",
          "rail-optimised",
          "--oversubscription",
          "2",
          "--hcas",
          sim.view.hcas.join(","),
          "--timeout",
          "30",
          "--poll-interval",
          String(pollMs),
          "-o",
          "json",
          "--kubeconfig",
          api.kubeconfig,
        ],
        io,
      );
      const seconds = (Date.now() - started) / 1000;
      const out = JSON.parse(io.out);
      const report = out;
      expect(code, io.err).toBe(1);
      expect(report.plan).toBe("adaptive");
      // Nodes and NICs: exactly what was planted (a down NIC is a NIC finding, from its failed rail test).
      expect(report.found.nodes).toEqual(sim.truth.nodes);
      expect(report.found.rails).toEqual([...new Set([...sim.truth.rails, ...sim.truth.downNics])].sort());
      expect(report.findings.filter((f: { code: string }) => f.code === "FLEET_NIC_DOWN")).toHaveLength(1);
      // Nothing traces a flow's path on the cluster: no uplink is judged, and the planted one is listed, not passed.
      expect(report.found.uplinks).toEqual([]);
      const notCleared = report.findings.find((f: { code: string }) => f.code === "FLEET_HOPS_NOT_CLEARED");
      expect(notCleared?.severity).toBe("warning");
      expect(notCleared.message).toMatch(/were never crossed at full load/);
      for (const hop of [...sim.truth.uplinks, ...sim.truth.spinePorts])
        expect(notCleared.evidence.hops).toContain(hop);
      expect(notCleared.evidence.hops).toHaveLength(notCleared.evidence.total);
      expect(io.err).toContain("every leaf uplink and spine port is listed as not cleared");
      // The budget counts only the waves that run: no spine sweep where nothing traces a flow's path.
      expect(io.err).toContain("no spine tests (nothing traces a flow's path), so no sweep waves");
      expect(io.err).not.toContain("spine sweep");
      // What the jobs asked for came from the nodes: 4 GPUs, rdma/hca 1 of the shared pool; an image for R570.
      const posts = api.requests.filter((r) => r.startsWith("POST") && r.includes("/mpijobs"));
      expect(posts.length).toBe(report.jobs);
      expect(io.err).toMatch(/jobs ask for nvidia\.com\/gpu: 4 and rdma\/hca: 1 per worker; image \S+:12\.\d/);
      // Every object deleted.
      expect(api.store.get("mpijobs")).toEqual([]);
      expect(api.store.get("pods")!.filter((p) => p.metadata.name.startsWith("kr-bench-"))).toEqual([]);
      // Request rate: per round, one list and one watch of the run's MPIJobs and of the launcher pods, whatever the
      // number of jobs or how long they run; each job adds its create, log read, deletion, and the list and deletion
      // of its 3 pods.
      const count = (re: RegExp) => api!.requests.filter((r) => re.test(r)).length;
      const jobGets = count(/^GET \/apis\/kubeflow\.org\/v2beta1\/namespaces\/[\w-]+\/mpijobs$/);
      const podGets = count(/^GET \/api\/v1\/namespaces\/[\w-]+\/pods$/);
      const rounds = report.rounds.length;
      expect(api.watches.filter((w) => w.includes("/mpijobs?"))).toHaveLength(rounds);
      expect(jobGets).toBe(2 * rounds);
      expect(podGets).toBe(2 * rounds + report.jobs);
      const setup = api.requests.findIndex((r) => r.startsWith("POST"));
      const perJob = (api.requests.length - setup - WATCH_START_REQUESTS * rounds) / report.jobs;
      expect(perJob).toBeLessThanOrEqual(7);
      const rate = api.requests.length / seconds;
      console.info(
        `seed ${seed}: ${api.requests.length} API requests in ${seconds.toFixed(1)} s (${rate.toFixed(0)}/s): ${report.jobs} jobs in ${rounds} rounds, ${WATCH_START_REQUESTS * rounds} of them to follow the jobs`,
      );
      // Bounded: WATCH_START_REQUESTS per round plus at most 7 per job, however long the jobs run; polling each job
      // made one request per job per poll (256/s at concurrency 256 and a 1 s poll).
      expect(api.requests.length).toBeLessThanOrEqual(setup + WATCH_START_REQUESTS * rounds + 7 * report.jobs);
    }, 120_000);
  }

  test("--dry-run: round 1 pairs every node inside its unit; the workers ask for the nodes' GPUs and one rdma/hca of the shared pool", async () => {
    const { sim, nodes } = fleet(5);
    api = await startFakeApi(seedCluster({ nodes }));
    const io = captureIo();
    const args = ["fleet", "bench", "--dry-run", "--topology", "rail-optimised", "--oversubscription", "2"];
    expect(await main([...args, "--hcas", sim.view.hcas.join(","), "--kubeconfig", api.kubeconfig], io)).toBe(0);
    const jobs = parseAllDocuments(io.out).map((d) => d.toJS() as Obj);
    expect(jobs).toHaveLength(16);
    const unitOf = unitIndex(sim.fabric);
    for (const j of jobs) {
      const [a, b] = (j.metadata.annotations[BENCH_NODES_ANNOTATION] as string).split(",");
      expect(unitOf.get(a!)).toBe(unitOf.get(b!));
      const limits = j.spec.mpiReplicaSpecs.Worker.template.spec.containers[0].resources.limits;
      expect(limits).toEqual({ "nvidia.com/gpu": String(RAILS), "rdma/hca": "1" });
      // A failing test is a result, not retried: the launcher's first failure fails the job.
      expect(j.spec.runPolicy.backoffLimit).toBe(0);
      expect(j.spec.mpiReplicaSpecs.Launcher.restartPolicy).toBe("Never");
      expect(validateCustomResource(j as { apiVersion: string; kind: string })).toEqual([]);
    }
    expect(io.out).toContain("leaves from node label network.topology/leaf: 4 unit(s) of one leaf per rail");
    expect(api.store.get("mpijobs")).toEqual([]);
    // Without the oversubscription, which no node shows, it asks for it.
    const io2 = captureIo();
    expect(
      await main(["fleet", "bench", "--dry-run", "--topology", "rail-optimised", "--kubeconfig", api.kubeconfig], io2),
    ).toBe(2);
    expect(io2.err).toMatch(/needs its leaves' oversubscription.*--oversubscription/);
  });

  test("an --image built for a newer CUDA than the nodes' driver runs is refused before anything is created", async () => {
    const { nodes } = fleet(5);
    for (const n of nodes) n.metadata.labels["nvidia.com/cuda.driver-version.full"] = "550.163.01";
    api = await startFakeApi(seedCluster({ nodes }));
    const io = captureIo();
    const image = "ghcr.io/coreweave/nccl-tests:13.0.2-devel-ubuntu22.04-nccl2.29.2-1-d73ec07";
    const hcas = ["--hcas", "mlx5_0,mlx5_1,mlx5_2,mlx5_3"];
    expect(await main(["fleet", "bench", ...hcas, "--image", image, "--kubeconfig", api.kubeconfig], io)).toBe(2);
    expect(io.err).toMatch(/CUDA 13\.0/);
    expect(io.err).toMatch(/--skip-driver-check/);
    expect(api.requests.some((r) => r.startsWith("POST"))).toBe(false);
  });

  test("more HCAs than the nodes have GPUs (rail i runs on GPU i): refused, naming --hcas", async () => {
    const { nodes } = fleet(5);
    api = await startFakeApi(seedCluster({ nodes }));
    const io = captureIo();
    expect(await main(["fleet", "bench", "--kubeconfig", api.kubeconfig], io)).toBe(2);
    expect(io.err).toMatch(/the 8 HCAs \(mlx5_1, .*\) need 8 GPUs per node, and the jobs have 4/);
    expect(io.err).toMatch(/--hcas/);
    expect(api.requests.some((r) => r.startsWith("POST"))).toBe(false);
  });
});

import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { parseAllDocuments } from "yaml";
import { main } from "../src/cli/main.js";
import { type BenchJob, renderJobLog, simulateFleet } from "../src/fabric/index.js";
import { MPI_JOB_NAME_LABEL, MPI_JOB_ROLE_LABEL } from "../src/kube/bench/manifests.js";
import { captureIo } from "./support/io.js";
import { node, seedCluster } from "./support/kube/cluster-fixtures.js";
import { type FakeApi, type Obj, startFakeApi } from "./support/kube/fake-api.js";
import { validateCoreObject, validateCustomResource } from "./support/kube/schemas.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** 16 GPU nodes under 4 leaves (label network.topology/leaf), as the simulator lays them out. */
function fleet(seed: number) {
  const sim = simulateFleet({ nodes: 16, leafSize: 4, badNodes: 1, badRails: 1, noise: 0.02, seed });
  const nodes = sim.view.nodes.map((name) =>
    node({ name, gpus: 8, rdma: "1k", labels: { "network.topology/leaf": sim.view.leafOf.get(name)! } }),
  );
  return { sim, nodes };
}

/**
 * A stand-in for the MPI operator: an MPIJob gets a launcher and two worker pods. The launcher's log is the
 * simulator's nccl-tests output for the job's two nodes; jobs on `unschedulable` stay Pending; the first job on
 * `failsOnce` has its launcher fail.
 */
function operator(sim: ReturnType<typeof fleet>["sim"], unschedulable: string, failsOnce: string) {
  const jobOf = new Map<string, BenchJob>();
  let failed = false;
  return {
    onObjectCreated(plural: string, obj: Obj): Obj[] | undefined {
      if (plural !== "mpijobs") return undefined;
      const name = obj.metadata.name as string;
      const nodes = (obj.metadata.annotations["kube-rdma.io/bench-nodes"] as string).split(",") as [string, string];
      const kind = obj.metadata.labels["kube-rdma.io/bench-kind"] as BenchJob["kind"];
      jobOf.set(name, { id: name, round: 0, kind, nodes, why: "" });
      const pod = (suffix: string, role: string, container: string) => ({
        metadata: { name: `${name}-${suffix}`, labels: { [MPI_JOB_NAME_LABEL]: name, [MPI_JOB_ROLE_LABEL]: role } },
        spec: { containers: [{ name: container, image: "nccl-tests" }] },
      });
      return [
        pod("launcher", "launcher", "launcher"),
        pod("worker-0", "worker", "worker"),
        pod("worker-1", "worker", "worker"),
      ];
    },
    onPodCreated(pod: Obj) {
      const jobName = pod.metadata.labels?.[MPI_JOB_NAME_LABEL] as string | undefined;
      const job = jobName ? jobOf.get(jobName) : undefined;
      if (!job) return undefined;
      if (job.nodes.includes(unschedulable)) return undefined; // stays Pending: no node can take it
      if (pod.metadata.labels[MPI_JOB_ROLE_LABEL] !== "launcher") return { phase: "Running" as const };
      if (!failed && job.nodes.includes(failsOnce)) {
        failed = true;
        return {
          phase: "Failed" as const,
          log: "NCCL WARN NET/IB : Got completion with error 12, opcode 0, len 0\nmpirun noticed that process rank 3 exited on signal 6\n",
        };
      }
      return { phase: "Succeeded" as const, log: logFor(sim, job) };
    },
  };
}

function logFor(sim: ReturnType<typeof fleet>["sim"], job: BenchJob): string {
  const r = sim.runJob(job);
  return r.ok ? renderJobLog(r, 8) : "";
}

describe("fleet bench through Kubernetes (local API server)", () => {
  test("--dry-run prints round 1's MPIJobs: two workers pinned to the pair, gang of 3, nothing created", async () => {
    const { nodes } = fleet(3);
    api = await startFakeApi(seedCluster({ nodes }));
    const io = captureIo();
    expect(await main(["fleet", "bench", "--dry-run", "--kubeconfig", api.kubeconfig], io)).toBe(0);
    const jobs = parseAllDocuments(io.out).map((d) => d.toJS() as Obj);
    expect(jobs).toHaveLength(8);
    expect(io.out).toContain("# Budget for 16 node(s), plan adaptive");
    expect(io.out).toContain("leaves from node label network.topology/leaf");
    const j = jobs[0]!;
    expect(j).toMatchObject({
      apiVersion: "kubeflow.org/v2beta1",
      kind: "MPIJob",
      metadata: { namespace: "kube-rdma-bench" },
    });
    expect(j.spec.runPolicy.schedulingPolicy.minAvailable).toBe(3);
    const worker = j.spec.mpiReplicaSpecs.Worker.template.spec;
    const pinned =
      worker.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
        .matchExpressions[0];
    expect(pinned.values).toEqual(j.metadata.annotations["kube-rdma.io/bench-nodes"].split(","));
    expect(worker.schedulerName).toBe("volcano");
    const launcher = j.spec.mpiReplicaSpecs.Launcher.template.spec.containers[0];
    expect(launcher.args.join(" ")).toContain("all_reduce_perf -b 64M -e 4G -f 2 -g 1 -n 20 -w 5");
    for (const job of jobs) expect(validateCustomResource(job as { apiVersion: string; kind: string })).toEqual([]);
    expect(api.store.get("mpijobs")).toEqual([]);
  });

  test("16 nodes, a bad node and a bad rail planted, one job never schedules, one fails: the faults are named, both jobs listed, every object deleted", async () => {
    const { sim, nodes } = fleet(3);
    const healthy = sim.view.nodes.filter(
      (n) => !sim.truth.nodes.includes(n) && !sim.truth.rails.some((r) => r.startsWith(`${n}/`)),
    );
    const [unschedulable, failsOnce] = [healthy[0]!, healthy[5]!];
    api = await startFakeApi(seedCluster({ nodes }), operator(sim, unschedulable, failsOnce));
    const io = captureIo();
    const code = await main(
      ["fleet", "bench", "--timeout", "2", "--poll-interval", "10", "-o", "json", "--kubeconfig", api.kubeconfig],
      io,
    );
    const report = JSON.parse(io.out);
    expect(report.found.nodes).toEqual(sim.truth.nodes);
    expect(report.found.rails).toEqual(sim.truth.rails);
    expect(code).toBe(1);
    const reasons = report.failedJobs.map(
      (f: { nodes: string[]; reason: string }) =>
        `${f.nodes.includes(unschedulable) ? "pending" : "other"}: ${f.reason}`,
    );
    expect(reasons).toContainEqual(
      expect.stringMatching(/^pending: no result within 2 s: never scheduled: pod kr-bench-\w+-r1-\d+-\w+ Pending/),
    );
    expect(reasons).toContainEqual(
      expect.stringMatching(/^other: the launcher failed: NCCL WARN NET\/IB : Got completion with error 12/),
    );
    expect(report.findings.filter((f: { code: string }) => f.code === "FLEET_JOB_FAILED").length).toBe(
      report.failedJobs.length,
    );
    expect(io.err).toContain("Budget for 16 node(s)");
    // The node whose jobs never scheduled was never measured: an error naming it, not only job warnings.
    const untested = report.findings.find((f: { code: string }) => f.code === "FLEET_NODES_UNTESTED");
    expect(untested?.severity).toBe("error");
    expect(untested?.message).toContain(unschedulable);
    expect(api.store.get("mpijobs")).toEqual([]);
    expect(api.store.get("pods")!.filter((p) => p.metadata.name.startsWith("kr-bench-"))).toEqual([]);
    expect(api.requests.filter((r) => r.startsWith("POST") && r.includes("mpijobs")).length).toBe(report.jobs);
  });

  // API priority and fairness answers 429 with Retry-After (https://kubernetes.io/docs/concepts/cluster-administration/flow-control/).
  test("an API server that answers 429 to each first MPIJob create and launcher log read: waited out, the same faults found", async () => {
    const { sim, nodes } = fleet(3);
    const seen = new Set<string>();
    let refused = 0;
    api = await startFakeApi(seedCluster({ nodes }), {
      ...operator(sim, "none", "none"),
      intercept: (req, res) => {
        const what =
          req.plural === "mpijobs" && req.method === "POST" ? "create" : req.sub === "log" ? `log ${req.name}` : "";
        if (!what || (what === "create" ? refused % 2 === 1 : seen.has(what))) {
          if (what === "create") refused++;
          return false;
        }
        if (what === "create") refused++;
        else seen.add(what);
        res.writeHead(429, { "content-type": "application/json", "retry-after": "0" });
        res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: 429 }));
        return true;
      },
    });
    const io = captureIo();
    await main(
      ["fleet", "bench", "--timeout", "5", "--poll-interval", "10", "-o", "json", "--kubeconfig", api.kubeconfig],
      io,
    );
    const report = JSON.parse(io.out);
    expect(seen.size).toBeGreaterThan(0);
    expect(report.failedJobs).toEqual([]);
    expect(report.found.nodes).toEqual(sim.truth.nodes);
    expect(report.found.rails).toEqual(sim.truth.rails);
  });

  test("an MPI operator that never starts the jobs (no pod ever created): nothing was measured, so FAIL and exit 1 with FLEET_NODES_UNTESTED naming every node, not 'WARN … 4 warning(s)' and exit 0", async () => {
    const nodes = ["gpu-01", "gpu-02", "gpu-03", "gpu-04"].map((name) => node({ name, gpus: 8, rdma: "1k" }));
    api = await startFakeApi(seedCluster({ nodes }));
    const io = captureIo();
    const code = await main(
      ["fleet", "bench", "--timeout", "1", "--poll-interval", "10", "-o", "json", "--kubeconfig", api.kubeconfig],
      io,
    );
    const report = JSON.parse(io.out);
    expect(code).toBe(1);
    expect(report.summary.status).toBe("fail");
    expect(report.failedJobs.length).toBe(report.jobs);
    const untested = report.findings.filter((f: { code: string }) => f.code === "FLEET_NODES_UNTESTED");
    expect(untested).toHaveLength(1);
    expect(untested[0].message).toBe(
      "4 of 4 node(s) never gave a result in any test, so nothing was measured for them: gpu-01, gpu-02, gpu-03, gpu-04.",
    );
  });

  test("RBAC refuses to create MPIJobs → exit 2 naming the role and deploy/fleet/bench-rbac.yaml; no MPIJob CRD → exit 2 naming the operator", async () => {
    const { nodes } = fleet(3);
    api = await startFakeApi(seedCluster({ nodes }), { deny: [{ verb: "create", resource: "mpijobs" }] });
    const io = captureIo();
    expect(await main(["fleet", "bench", "--kubeconfig", api.kubeconfig], io)).toBe(2);
    expect(io.err).toContain("kube-rdma-bench");
    expect(io.err).toContain("deploy/fleet/bench-rbac.yaml");
    await api.close();
    api = await startFakeApi(seedCluster({ nodes }), { unserved: ["mpijobs"] });
    const io2 = captureIo();
    expect(await main(["fleet", "bench", "--kubeconfig", api.kubeconfig], io2)).toBe(2);
    expect(io2.err).toMatch(/does not serve kubeflow.org\/v2beta1 MPIJob/);
  });

  test("deploy/fleet/bench-rbac.yaml: valid core objects granting what fleet bench uses, in namespace kube-rdma-bench only", () => {
    const docs = parseAllDocuments(readFileSync("deploy/fleet/bench-rbac.yaml", "utf8")).map((d) => d.toJS() as Obj);
    for (const d of docs) expect(validateCoreObject(d), `${d.kind}/${d.metadata.name}`).toEqual([]);
    const role = docs.find((d) => d.kind === "Role")!;
    expect(role.metadata).toMatchObject({ name: "kube-rdma-bench", namespace: "kube-rdma-bench" });
    expect(role.rules).toEqual([
      { apiGroups: ["kubeflow.org"], resources: ["mpijobs"], verbs: ["create", "get", "list", "watch", "delete"] },
      { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch", "delete"] },
      { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
    ]);
  });

  test("Ctrl-C while jobs wait to schedule → exit 130, a partial report, and every MPIJob and pod it created deleted; --save keeps what finished", async () => {
    const { sim, nodes } = fleet(5);
    const ops = operator(sim, "gpu-03", "none");
    api = await startFakeApi(seedCluster({ nodes }), ops);
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-bench-save-"));
    const io = captureIo();
    const running = main(
      [
        "fleet",
        "bench",
        "--timeout",
        "30",
        "--poll-interval",
        "10",
        "--save",
        dir,
        "-o",
        "json",
        "--kubeconfig",
        api.kubeconfig,
      ],
      io,
    );
    const fake = api;
    await vi.waitFor(() => expect(fake.logs.size).toBeGreaterThanOrEqual(7), { timeout: 5000, interval: 10 });
    await vi.waitFor(() => expect(fake.store.get("mpijobs")!.length).toBe(1), { timeout: 5000, interval: 10 }); // only the stuck one
    process.emit("SIGINT");
    expect(await running).toBe(130);
    expect(io.err).toContain("interrupted; the report above is partial");
    const report = JSON.parse(io.out);
    expect(report.run.interrupted).toBe(true);
    expect(report.failedJobs).toEqual([expect.objectContaining({ reason: "interrupted before the job finished" })]);
    expect(fake.store.get("mpijobs")).toEqual([]);
    expect(fake.store.get("pods")!.filter((p) => p.metadata.name.startsWith("kr-bench-"))).toEqual([]);
    const saved = readdirSync(join(dir, "round-1"));
    expect(saved).toHaveLength(7);
    expect(saved.every((f) => /^gpu-\d+\+gpu-\d+\.txt$/.test(f))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, "report.json"), "utf8")).jobs).toBe(8);
  });
});

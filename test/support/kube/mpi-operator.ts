/**
 * The pieces every fleet bench test's MPI operator stand-in shares: the pods an MPIJob gets (a launcher and two
 * workers, labelled as the MPI operator labels them), the bench job an MPIJob runs (read back from the labels and
 * annotations the product writes), the launcher's log for a simulated result, and a cluster's nodes for a simulated
 * rail-optimised fleet (each labelled with its unit's leaf and a GPU driver as GPU Feature Discovery labels it).
 */
import { renderJobLog } from "../../../src/fabric/bench/job-log.js";
import { unitIndex } from "../../../src/fabric/model.js";
import type { RailSimulation } from "../../../src/fabric/simulate/fleet.js";
import type { BenchJob, JobResult, RailRoute } from "../../../src/fabric/types.js";
import {
  BENCH_JOB_LABEL,
  BENCH_KIND_LABEL,
  BENCH_NODES_ANNOTATION,
  BENCH_ROUTES_ANNOTATION,
  BENCH_WAVE_LABEL,
  MPI_JOB_NAME_LABEL,
  MPI_JOB_ROLE_LABEL,
} from "../../../src/kube/bench/manifests.js";
import { node } from "./cluster-fixtures.js";
import type { FakeApi, Obj } from "./fake-api.js";

/** A driver of the R570 branch, as GPU Feature Discovery labels it (our own version string). */
export const GFD_DRIVER = "570.133.20";

/** The launcher and two workers the MPI operator creates for `mpiJob`, running its launcher's image (or `image`). */
export function mpiJobPods(mpiJob: Obj, image?: string): Obj[] {
  const name = mpiJob.metadata.name as string;
  const img = image ?? mpiJob.spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].image;
  const pod = (suffix: string, role: string) => ({
    metadata: { name: `${name}-${suffix}`, labels: { [MPI_JOB_NAME_LABEL]: name, [MPI_JOB_ROLE_LABEL]: role } },
    spec: { containers: [{ name: role, image: img }] },
  });
  return [pod("launcher", "launcher"), pod("worker-0", "worker"), pod("worker-1", "worker")];
}

/** The bench job an MPIJob runs, from its labels and annotations (its wave and planned routes where it has them). */
export function benchJobOf(mpiJob: Obj): BenchJob {
  const labels = mpiJob.metadata.labels;
  const annotations = mpiJob.metadata.annotations;
  const id = labels[BENCH_JOB_LABEL] as string;
  const routes = annotations[BENCH_ROUTES_ANNOTATION] as string | undefined;
  const wave = labels[BENCH_WAVE_LABEL] as string | undefined;
  return {
    id,
    round: Number(/^r(\d+)-/.exec(id)?.[1] ?? 0),
    kind: labels[BENCH_KIND_LABEL],
    nodes: (annotations[BENCH_NODES_ANNOTATION] as string).split(",") as [string, string],
    why: "",
    ...(wave !== undefined ? { wave: Number(wave) } : {}),
    ...(routes ? { routes: JSON.parse(routes) as RailRoute[] } : {}),
  };
}

/** The launcher's log for a simulated result: nccl-tests output, or the NCCL failure a down NIC on the path gives. */
export function launcherLog(r: JobResult, gpus: number): string {
  return r.ok
    ? renderJobLog(r, gpus)
    : `${r.job.nodes[0]}: Test NCCL failure common.cu:1146 'unhandled system error (run with NCCL_DEBUG=INFO for details) / ${r.reason}'\n`;
}

/** The cluster's nodes for a simulated rail-optimised fleet: GPUs per node = rails, a unit's leaf label, the driver. */
/** The small fleet the cluster tests run: 32 nodes in 4 units of 4 rails, 2:1, one bad node, NIC, uplink and spine port. */
export const CLUSTER_FLEET = {
  nodes: 32,
  units: 4,
  rails: 4,
  oversubscription: 2,
  badNodes: 1,
  badRails: 1,
  badUplinks: 1,
  badSpinePorts: 1,
  noise: 0.02,
} as const;

export function railClusterNodes(sim: RailSimulation, rails: number) {
  const unitOf = unitIndex(sim.fabric);
  return sim.view.nodes.map((name) =>
    node({
      name,
      gpus: rails,
      rdma: "1k",
      labels: { "network.topology/leaf": `unit${unitOf.get(name)}`, "nvidia.com/cuda.driver-version.full": GFD_DRIVER },
    }),
  );
}

/** No job created for this long: the wave's jobs all exist (the runner creates them back to back). */
const QUIET_MS = 300;

/**
 * The MPI operator stand-in: an MPIJob gets a launcher and two workers, all Running. Once no job has been created
 * for QUIET_MS, every job created and not yet measured is measured together by the simulator (the jobs of one wave:
 * the runner creates a wave's jobs before it waits on any), and each launcher then ends through the API as a
 * kubelet's status update would (a merge patch of its status; the log set first). The batches are kept so the test
 * can check they were the waves, whole.
 */
export function waveOperator(sim: RailSimulation, gpus: number, server: () => FakeApi) {
  const pending: { name: string; namespace: string; job: BenchJob }[] = [];
  const batches: BenchJob[][] = [];
  let quiet: NodeJS.Timeout | undefined;
  const end = async (p: (typeof pending)[number], r: JobResult) => {
    const pod = `${p.name}-launcher`;
    const log = launcherLog(r, gpus);
    const api = server();
    api.logs.set(`${p.namespace}/${pod}`, log);
    const exitCode = r.ok ? 0 : 1;
    const status = {
      phase: r.ok ? "Succeeded" : "Failed",
      containerStatuses: [
        {
          name: "launcher",
          ready: false,
          restartCount: 0,
          image: "nccl-tests",
          imageID: "",
          state: { terminated: { exitCode, reason: r.ok ? "Completed" : "Error" } },
        },
      ],
    };
    await fetch(`${api.url}/api/v1/namespaces/${p.namespace}/pods/${pod}`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ status }),
    });
  };
  const measurePending = async () => {
    const batch = pending.splice(0);
    if (batch.length === 0) return;
    batches.push(batch.map((b) => b.job));
    const results = await sim.oracle.measure(batch.map((b) => b.job));
    await Promise.all(results.map((r, i) => end(batch[i]!, r)));
  };
  return {
    batches,
    onObjectCreated(plural: string, obj: Obj): Obj[] | undefined {
      if (plural !== "mpijobs") return undefined;
      const name = obj.metadata.name as string;
      pending.push({ name, namespace: obj.metadata.namespace as string, job: benchJobOf(obj) });
      clearTimeout(quiet);
      quiet = setTimeout(() => void measurePending(), QUIET_MS);
      quiet.unref();
      return mpiJobPods(obj);
    },
    onPodCreated(p: Obj) {
      return p.metadata.labels?.[MPI_JOB_NAME_LABEL] ? { phase: "Running" as const } : undefined;
    },
  };
}

/**
 * An MPI operator stand-in that measures each MPIJob alone: it gets a launcher and two workers; the launcher ends
 * (200 ms later) with the simulator's result for the job — its nccl-tests output, or the NCCL failure when a NIC on
 * the path is down. Right where the plan crosses no spine (nothing traces flows), so jobs share no link.
 */
export function soloOperator(sim: RailSimulation, gpus: number) {
  const result = new Map<string, JobResult>();
  const created: string[] = [];
  return {
    created,
    onObjectCreated(plural: string, obj: Obj): Obj[] | undefined {
      if (plural !== "mpijobs") return undefined;
      const name = obj.metadata.name as string;
      created.push(name);
      const job = benchJobOf(obj);
      void sim.oracle.measure([job]).then(([r]) => result.set(name, r!));
      return mpiJobPods(obj);
    },
    onPodCreated(p: Obj) {
      const name = p.metadata.labels?.[MPI_JOB_NAME_LABEL] as string | undefined;
      if (!name) return undefined;
      if (p.metadata.labels[MPI_JOB_ROLE_LABEL] !== "launcher") return { phase: "Running" as const };
      // Read when the pod ends (a few ms later): by then the simulator has answered.
      return {
        get phase() {
          return result.get(name)?.ok ? ("Succeeded" as const) : ("Failed" as const);
        },
        get log() {
          const r = result.get(name);
          return r ? launcherLog(r, gpus) : "";
        },
        afterMs: 200,
      };
    },
  };
}

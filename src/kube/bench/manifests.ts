/**
 * The MPIJob of one `fleet bench` job, built with the job generator: two GPU workers placed on the job's two nodes
 * (`--on a,b`: node affinity plus one-per-node anti-affinity), gang-scheduled by Volcano (minAvailable = every
 * pod), a launcher running the pair test (all_reduce_perf, one rank per GPU) or the rail tests (one 2-rank test per
 * HCA). Pure.
 */

import { railTestScript, sweepArgs } from "../../fabric/bench/job-log.js";
import type { BenchJob, SweepSpec } from "../../fabric/types.js";
import { ncclTestsCommand } from "../../nccl/bench-command.js";
import { buildMpiJob } from "../job/mpi.js";
import { withForwardedEnv } from "../job/mpirun.js";
import { SEED_NCCL_ENV } from "../job/pod-template.js";
import type { MPIJob } from "../job/types.js";

/**
 * The bench jobs' own namespace: not the fleet namespace kube-rdma, whose admission policy admits only collector
 * pods (and whose hostPath rights a bench job does not need).
 */
export const BENCH_NAMESPACE = "kube-rdma-bench";
export const BENCH_RUN_LABEL = "kube-rdma.io/bench-run";
export const BENCH_JOB_LABEL = "kube-rdma.io/bench-job";
export const BENCH_KIND_LABEL = "kube-rdma.io/bench-kind";
export const BENCH_NODES_ANNOTATION = "kube-rdma.io/bench-nodes";
/** The wave of its round a job runs in (jobs of one wave run together, waves one after another). */
export const BENCH_WAVE_LABEL = "kube-rdma.io/bench-wave";
/**
 * A spine test's rails and, per rail, the UDP source port the planner meant for each direction and the leaf uplink
 * and spine port it traced for it (JSON, `[{"rail":0,"sports":[a→b,b→a],"paths":[…,…]}]`): what the test was
 * meant to cross, beside what it measured.
 */
export const BENCH_ROUTES_ANNOTATION = "kube-rdma.io/bench-routes";
/** Labels the MPI operator (v2beta1) puts on a job's pods. */
export const MPI_JOB_NAME_LABEL = "training.kubeflow.org/job-name";
export const MPI_JOB_ROLE_LABEL = "training.kubeflow.org/job-role";

export type BenchManifestOptions = {
  runId: string;
  namespace: string;
  image: string;
  gpusPerNode: number;
  hcas: readonly string[];
  gpuResource: string;
  rdmaResource: string;
  /** Units of the RDMA resource each worker asks for (node-resources.ts: one per HCA, or 1 of a shared pool). */
  rdmaCount: number;
  schedulerName: string;
  queue?: string | undefined;
  pairSweep: SweepSpec;
  railSweep: SweepSpec;
};

/** `kr-bench-<run>-r2-17`: unique per run and job, a DNS-1123 name. */
export const benchJobName = (runId: string, job: BenchJob) => `kr-bench-${runId}-${job.id}`.toLowerCase();

export function benchJobManifest(job: BenchJob, o: BenchManifestOptions): MPIJob {
  const env = { ...SEED_NCCL_ENV };
  let launcherArgv: string[];
  if (job.kind === "pair") {
    const cmd = ncclTestsCommand({ nodes: 2, gpusPerNode: o.gpusPerNode });
    const perf = cmd.argv.findIndex((a) => a.endsWith("_perf"));
    launcherArgv = withForwardedEnv([...cmd.argv.slice(0, perf + 1), ...sweepArgs(o.pairSweep)], env);
  } else {
    const rails = job.routes?.map((r) => r.rail);
    launcherArgv = ["/bin/bash", "-c", railTestScript(o.hcas, o.railSweep, Object.keys(env).sort(), rails)];
  }
  const name = benchJobName(o.runId, job);
  const mpiJob = buildMpiJob({
    name,
    namespace: o.namespace,
    nodes: 2,
    gpusPerNode: o.gpusPerNode,
    gpuResource: o.gpuResource,
    rdmaResource: o.rdmaResource,
    rdmaCount: o.rdmaCount,
    image: o.image,
    queue: o.queue,
    schedulerName: o.schedulerName,
    hostNetwork: false,
    shmSize: "32Gi",
    env,
    onNodes: [...job.nodes],
    launcherArgv,
  });
  // A bench job that fails is a result, not something to retry: the launcher's first failure fails the MPIJob
  // (RunPolicy.backoffLimit and ReplicaSpec.restartPolicy of kubeflow.org/v2beta1,
  // https://github.com/kubeflow/mpi-operator/blob/master/pkg/apis/kubeflow/v2beta1/types.go).
  Object.assign(mpiJob.spec.runPolicy, { backoffLimit: 0 });
  mpiJob.spec.mpiReplicaSpecs.Launcher.restartPolicy = "Never";
  mpiJob.metadata = {
    ...mpiJob.metadata,
    labels: {
      "app.kubernetes.io/name": "kube-rdma",
      [BENCH_RUN_LABEL]: o.runId,
      [BENCH_JOB_LABEL]: job.id,
      [BENCH_KIND_LABEL]: job.kind,
      [BENCH_WAVE_LABEL]: String(job.wave ?? 0),
    },
    annotations: {
      [BENCH_NODES_ANNOTATION]: job.nodes.join(","),
      "kube-rdma.io/why": job.why,
      ...(job.routes ? { [BENCH_ROUTES_ANNOTATION]: JSON.stringify(job.routes) } : {}),
    },
  };
  return mpiJob;
}

/**
 * Runs a round's bench jobs through the cluster: creates each MPIJob (at most `concurrency` at a time), waits for
 * its launcher pod, reads the nccl-tests results from the launcher's log, and deletes the job and its pods — after
 * each job, and again at the end of the run for anything left (errors, Ctrl-C). A job that does not finish within
 * the per-job timeout becomes a failed result with the reason (pods Pending: why), never a silent gap.
 */
import { setMaxListeners } from "node:events";

import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
import { UsageError } from "../../cli/spec.js";
import { parseJobLog } from "../../fabric/bench/job-log.js";
import type { BenchJob, JobResult } from "../../fabric/types.js";
import type { KubeClients } from "../api/client.js";
import { apiFailure, statusOf } from "../api/errors.js";
import { abortable, withRetry } from "../api/retry.js";
import type { MPIJob } from "../job/types.js";
import { MPI_JOB_NAME_LABEL, MPI_JOB_ROLE_LABEL } from "./manifests.js";

/** ClusterRole/Role `fleet bench` needs (deploy/fleet/bench-rbac.yaml). */
export const BENCH_ROLE = "kube-rdma-bench";

export type BenchClusterOptions = {
  namespace: string;
  manifest: (job: BenchJob) => MPIJob;
  timeoutMs: number;
  pollMs: number;
  concurrency: number;
  signal?: AbortSignal;
  onJobDone?: (result: JobResult) => void;
  /** Called with each launcher log (for --save). */
  keepLog?: (job: BenchJob, log: string) => Promise<void>;
};

/** The jobs created and not yet deleted, across rounds: the final clean-up deletes whatever is left. */
export type CreatedJobs = Map<string, MPIJob>;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

function isFatal(err: unknown): boolean {
  const s = statusOf(err);
  return s === 401 || s === 403 || s === null;
}

function pendingReason(pods: readonly V1Pod[]): string {
  if (pods.length === 0) return "no pods were created (is the MPI operator running, and the MPIJob CRD installed?)";
  const stuck = pods.find((p) => p.status?.phase === "Pending");
  if (!stuck) return `pods ${pods.map((p) => `${p.metadata?.name}: ${p.status?.phase}`).join(", ")}`;
  const cond = stuck.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status !== "True");
  const waiting = stuck.status?.containerStatuses?.[0]?.state?.waiting;
  const why =
    cond?.message ?? (waiting?.reason ? `${waiting.reason}${waiting.message ? `: ${waiting.message}` : ""}` : "");
  return `never scheduled: pod ${stuck.metadata?.name} Pending${why ? ` (${why})` : ""}`;
}

async function listJobPods(clients: KubeClients, namespace: string, name: string, role?: string): Promise<V1Pod[]> {
  const labelSelector = `${MPI_JOB_NAME_LABEL}=${name}${role ? `,${MPI_JOB_ROLE_LABEL}=${role}` : ""}`;
  const list = await clients.core.listNamespacedPod({ namespace, labelSelector });
  return list.items;
}

function failedCondition(obj: KubernetesObject): string | null {
  const conditions = (obj as { status?: { conditions?: { type?: string; status?: string; message?: string }[] } })
    .status?.conditions;
  const failed = conditions?.find((c) => c.type === "Failed" && c.status === "True");
  return failed ? (failed.message ?? "the MPIJob failed") : null;
}

async function runOne(
  clients: KubeClients,
  job: BenchJob,
  o: BenchClusterOptions,
  created: CreatedJobs,
): Promise<JobResult> {
  const started = Date.now();
  const body = o.manifest(job);
  const name = body.metadata.name!;
  const namespace = o.namespace;
  const fail = (reason: string, raw?: string, corrupt?: true): JobResult => ({
    job,
    ok: false,
    reason,
    seconds: (Date.now() - started) / 1000,
    ...(raw ? { raw } : {}),
    ...(corrupt ? { corrupt } : {}),
  });
  try {
    await withRetry(() => clients.objects.create(body as KubernetesObject), { signal: o.signal });
  } catch (err) {
    if (statusOf(err) === 404 || /Unrecognized API version and kind/.test(String(err))) {
      throw new UsageError(
        `the cluster does not serve ${body.apiVersion} ${body.kind}: the MPI operator (its CRD) is not installed.`,
        "Install the Kubeflow MPI operator (v2beta1) and Volcano; `kube-rdma cluster` shows which components are missing.",
      );
    }
    if (isFatal(err)) {
      throw apiFailure(
        err,
        { verb: "create", resource: "mpijobs", group: "kubeflow.org", namespace },
        clients.target,
        BENCH_ROLE,
      );
    }
    return fail(`could not create the MPIJob: HTTP ${statusOf(err)} ${String((err as Error).message).split("\n")[0]}`);
  }
  created.set(name, body);
  const deadline = started + o.timeoutMs;
  const retry = { signal: o.signal, deadline };
  while (!o.signal?.aborted && Date.now() < deadline) {
    let launchers: V1Pod[];
    try {
      launchers = await withRetry(() => listJobPods(clients, namespace, name, "launcher"), retry);
    } catch (err) {
      if (isFatal(err))
        throw apiFailure(err, { verb: "list", resource: "pods", namespace }, clients.target, BENCH_ROLE);
      return fail(`could not list the job's pods (HTTP ${statusOf(err)})`);
    }
    const done = launchers.find((p) => p.status?.phase === "Succeeded" || p.status?.phase === "Failed");
    if (done) {
      let log: string;
      try {
        // The read is cut at the job's deadline (a log stream that stalls half way ends the job, not the run).
        const cut = new AbortController();
        const timer = setTimeout(() => cut.abort(), Math.max(1, deadline - Date.now()));
        const stop = () => cut.abort();
        o.signal?.addEventListener("abort", stop, { once: true });
        try {
          log = await withRetry(
            () =>
              clients.core.readNamespacedPodLog(
                { name: done.metadata!.name!, namespace, container: "launcher" },
                abortable(cut.signal),
              ),
            retry,
          );
        } finally {
          clearTimeout(timer);
          o.signal?.removeEventListener("abort", stop);
        }
      } catch (err) {
        if (isFatal(err)) {
          throw apiFailure(
            err,
            { verb: "get", resource: "pods/log", namespace, name: done.metadata?.name ?? "" },
            clients.target,
            BENCH_ROLE,
          );
        }
        return fail(`could not read the launcher's log (HTTP ${statusOf(err)})`);
      }
      await o.keepLog?.(job, log);
      if (done.status?.phase === "Failed") {
        const tail = log.trim().split("\n").slice(-3).join(" | ").slice(0, 300);
        return fail(`the launcher failed${tail ? `: ${tail}` : ""}`, log);
      }
      const parsed = parseJobLog(job, log);
      return parsed.ok
        ? { job, ok: true, seconds: (Date.now() - started) / 1000, tests: parsed.tests }
        : fail(parsed.reason, log, parsed.corrupt);
    }
    try {
      const current = await withRetry(
        () => clients.objects.read({ apiVersion: body.apiVersion, kind: body.kind, metadata: { name, namespace } }),
        retry,
      );
      const failed = failedCondition(current);
      if (failed) return fail(`the MPIJob failed: ${failed}`);
    } catch (err) {
      if (isFatal(err))
        throw apiFailure(
          err,
          { verb: "get", resource: "mpijobs", group: "kubeflow.org", namespace, name },
          clients.target,
          BENCH_ROLE,
        );
    }
    await sleep(o.pollMs, o.signal);
  }
  if (o.signal?.aborted) return fail("interrupted before the job finished");
  let pods: V1Pod[] = [];
  try {
    pods = await listJobPods(clients, namespace, name);
  } catch {
    // the reason below says what is known
  }
  return fail(`no result within ${Math.round(o.timeoutMs / 1000)} s: ${pendingReason(pods)}`);
}

/** Deletes a job and its pods (the operator's garbage collection would too; this does not wait for it). */
export async function deleteBenchJob(clients: KubeClients, namespace: string, job: MPIJob): Promise<boolean> {
  const name = job.metadata.name!;
  let ok = true;
  try {
    await clients.objects.delete(
      { apiVersion: job.apiVersion, kind: job.kind, metadata: { name, namespace } },
      undefined,
      undefined,
      0,
      undefined,
      "Background",
    );
  } catch (err) {
    ok = statusOf(err) === 404;
  }
  try {
    for (const pod of await listJobPods(clients, namespace, name)) {
      try {
        await clients.core.deleteNamespacedPod({ name: pod.metadata!.name!, namespace, gracePeriodSeconds: 0 });
      } catch (err) {
        if (statusOf(err) !== 404) ok = false;
      }
    }
  } catch {
    ok = false;
  }
  return ok;
}

/** Runs one round: every job, `concurrency` at a time; each job's objects are deleted as soon as it is done. */
export async function runBenchRound(
  clients: KubeClients,
  jobs: readonly BenchJob[],
  o: BenchClusterOptions,
  created: CreatedJobs,
): Promise<JobResult[]> {
  const results: JobResult[] = new Array(jobs.length);
  let next = 0;
  let fatal: unknown;
  const stop = new AbortController();
  // Every concurrent node (or job) listens on it, each removing its listener when done: not a leak, so no warning.
  setMaxListeners(0, stop.signal);
  const forward = () => stop.abort();
  o.signal?.addEventListener("abort", forward, { once: true });
  const opts = { ...o, signal: stop.signal };
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      const job = jobs[i]!;
      let result: JobResult;
      if (stop.signal.aborted) result = { job, ok: false, seconds: 0, reason: "not started (interrupted)" };
      else {
        try {
          result = await runOne(clients, job, opts, created);
        } catch (err) {
          fatal ??= err;
          stop.abort();
          result = { job, ok: false, seconds: 0, reason: "stopped by an API error" };
        }
        const made = created.get(o.manifest(job).metadata.name!);
        if (made && (await deleteBenchJob(clients, o.namespace, made))) created.delete(made.metadata.name!);
      }
      results[i] = result;
      o.onJobDone?.(result);
    }
  };
  await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(o.concurrency, jobs.length)) }, worker));
  o.signal?.removeEventListener("abort", forward);
  if (fatal !== undefined) throw fatal;
  return results;
}

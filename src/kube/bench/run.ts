/**
 * Runs a round's bench jobs through the cluster, wave by wave: every job of a wave ends (a result, a failure or its
 * timeout) before the next wave's first job is created, so that the tests the planner meant to share the fabric run
 * together and no others. Inside a wave at most `concurrency` jobs exist at a time.
 *
 * The jobs are watched (watch.ts): per round, one list and one watch of the run's MPIJobs and of the namespace's
 * launcher pods, whatever the number of jobs; where no watch can be had, bounded polling (the same two lists per
 * --poll-interval). A job that ended costs a log read and its deletion. A launcher that fails is failed at once with its log read — its pod Failed, its
 * container restarted after a non-zero exit (the operator's backoff), or the MPIJob's Failed condition — never
 * waited on until the timeout. A job without a result within the per-job timeout becomes a failed result with the
 * reason (pods Pending: why), never a silent gap. Every call is tied to the run's signal.
 */
import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
import { UsageError } from "../../cli/spec.js";
import { parseJobLog } from "../../fabric/bench/job-log.js";
import type { BenchJob, JobResult } from "../../fabric/types.js";
import type { KubeClients } from "../api/client.js";
import { apiFailure, statusOf } from "../api/errors.js";
import { withRetry } from "../api/retry.js";
import type { MPIJob } from "../job/types.js";
import type { BenchApi } from "./api.js";
import { MPI_JOB_NAME_LABEL } from "./manifests.js";
import { type JobStateSource, type JobStates, pollingSource, startWatching } from "./watch.js";

/** ClusterRole/Role `fleet bench` needs (deploy/fleet/bench-rbac.yaml). */
export const BENCH_ROLE = "kube-rdma-bench";

/** API requests one poll tick makes (where jobs are polled), whatever the number of jobs: the run's MPIJobs and the launcher pods. */
export const REQUESTS_PER_TICK = 2;

export type BenchClusterOptions = {
  namespace: string;
  runId: string;
  manifest: (job: BenchJob) => MPIJob;
  timeoutMs: number;
  pollMs: number;
  concurrency: number;
  signal?: AbortSignal;
  onJobDone?: (result: JobResult) => void;
  /** Called with each launcher log (for --save). */
  keepLog?: (job: BenchJob, log: string) => Promise<void>;
  /** False: poll (two lists per pollMs) instead of watching. */
  watch?: boolean;
  /** Hears why the watch was given up for polling (once per round at most). */
  onWatchFallback?: (why: string) => void;
};

/** The jobs created and not yet deleted, across rounds: the final clean-up deletes whatever is left. */
export type CreatedJobs = Map<string, MPIJob>;

/** Where a job's launcher stands, from its pods. */
export type LauncherState =
  | { state: "waiting" }
  | { state: "ended"; pod: string; ok: boolean }
  | { state: "crashed"; pod: string; why: string };

/**
 * The launcher's state from its pods: Succeeded or Failed ends the job; a launcher container that restarted after a
 * non-zero exit (restartPolicy OnFailure: the operator would retry it until its backoff limit) or waits in
 * CrashLoopBackOff has failed already (its log is the previous container's).
 */
export function launcherState(pods: readonly V1Pod[]): LauncherState {
  const ended = pods.find((p) => p.status?.phase === "Succeeded") ?? pods.find((p) => p.status?.phase === "Failed");
  if (ended) return { state: "ended", pod: ended.metadata?.name ?? "", ok: ended.status?.phase === "Succeeded" };
  for (const p of pods) {
    for (const c of p.status?.containerStatuses ?? []) {
      const last = c.lastState?.terminated;
      const waiting = c.state?.waiting?.reason;
      if ((c.restartCount ?? 0) > 0 && last && last.exitCode !== 0) {
        return {
          state: "crashed",
          pod: p.metadata?.name ?? "",
          why: `exit code ${last.exitCode}${last.reason ? ` (${last.reason})` : ""}, restarted ${c.restartCount} time(s)`,
        };
      }
      if (waiting === "CrashLoopBackOff")
        return { state: "crashed", pod: p.metadata?.name ?? "", why: "CrashLoopBackOff" };
    }
  }
  return { state: "waiting" };
}

export function failedCondition(obj: KubernetesObject | undefined): string | null {
  const conditions = (obj as { status?: { conditions?: { type?: string; status?: string; message?: string }[] } })
    ?.status?.conditions;
  const failed = conditions?.find((c) => c.type === "Failed" && c.status === "True");
  return failed ? (failed.message ?? "the MPIJob failed") : null;
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

/** An RBAC refusal, an unauthenticated call or an unreachable server ends the run; anything else fails one job. */
const isFatal = (err: unknown) => {
  const s = statusOf(err);
  return s === 401 || s === 403 || s === null;
};

const tail = (log: string) => log.trim().split("\n").slice(-3).join(" | ").slice(0, 300);

type Active = { job: BenchJob; name: string; body: MPIJob; started: number; deadline: number };

/** Deletes a job and its pods (the operator's garbage collection would too; this does not wait for it). */
export async function deleteBenchJob(api: BenchApi, name: string, signal?: AbortSignal): Promise<boolean> {
  let ok = true;
  try {
    await api.deleteJob(name, signal);
  } catch (err) {
    ok = statusOf(err) === 404;
  }
  try {
    for (const pod of await api.listJobPods(name, signal)) {
      try {
        await api.deletePod(pod.metadata!.name!, signal);
      } catch (err) {
        if (statusOf(err) !== 404) ok = false;
      }
    }
  } catch {
    ok = false;
  }
  return ok;
}

/** One wave: create up to `concurrency` jobs, poll until each has ended, create the next as one ends. */
async function runWave(
  clients: KubeClients,
  api: BenchApi,
  jobs: readonly BenchJob[],
  o: BenchClusterOptions,
  created: CreatedJobs,
  states: JobStateSource,
): Promise<JobResult[]> {
  const results: JobResult[] = [];
  const queue = [...jobs];
  const active = new Map<string, Active>();
  const signal = o.signal;
  const fatal = (err: unknown, verb: string, resource: string, name = "") =>
    apiFailure(err, { verb, resource, namespace: o.namespace, ...(name ? { name } : {}) }, clients.target, BENCH_ROLE);
  const finish = async (a: Active, r: Omit<Extract<JobResult, { ok: false }>, "job" | "seconds"> | JobResult) => {
    const result = { job: a.job, seconds: (Date.now() - a.started) / 1000, ...r } as JobResult;
    active.delete(a.name);
    if (await deleteBenchJob(api, a.name, signal)) created.delete(a.name);
    results.push(result);
    o.onJobDone?.(result);
  };
  const readLog = async (a: Active, pod: string, previous: boolean): Promise<string | null> => {
    try {
      // The read is cut at the job's deadline (a log stream that stalls half way ends the job, not the run).
      const cut = AbortSignal.timeout(Math.max(1, a.deadline - Date.now()));
      const log = await withRetry(
        () => api.readLog(pod, { previous, signal: signal ? AbortSignal.any([signal, cut]) : cut }),
        { signal, deadline: a.deadline },
      );
      await o.keepLog?.(a.job, log);
      return log;
    } catch (err) {
      if (signal?.aborted) return null;
      if (isFatal(err) && statusOf(err) !== null) throw fatal(err, "get", "pods/log", pod);
      return null;
    }
  };

  while (queue.length || active.size) {
    while (queue.length && active.size < o.concurrency && !signal?.aborted) {
      const job = queue.shift()!;
      const body = o.manifest(job);
      const name = body.metadata.name!;
      const started = Date.now();
      try {
        await withRetry(() => api.createJob(body, signal), { signal });
      } catch (err) {
        if (signal?.aborted) {
          queue.unshift(job);
          break;
        }
        if (statusOf(err) === 404) {
          throw new UsageError(
            `the cluster does not serve ${body.apiVersion} ${body.kind}: the MPI operator (its CRD) is not installed.`,
            "Install the Kubeflow MPI operator (v2beta1) and Volcano; `kube-rdma cluster` shows which components are missing.",
          );
        }
        if (isFatal(err)) throw fatal(err, "create", "mpijobs");
        const r: JobResult = {
          job,
          ok: false,
          seconds: 0,
          reason: `could not create the MPIJob: HTTP ${statusOf(err)} ${String((err as Error).message).split("\n")[0]}`,
        };
        results.push(r);
        o.onJobDone?.(r);
        continue;
      }
      created.set(name, body);
      active.set(name, { job, name, body, started, deadline: started + o.timeoutMs });
    }
    if (signal?.aborted) break;
    if (active.size === 0) continue;
    let now: JobStates;
    try {
      now = await states.next(o.pollMs);
    } catch (err) {
      if (signal?.aborted) break;
      if (isFatal(err)) throw fatal(err, "list", "mpijobs and pods");
      continue; // a passing failure: the next tick asks again, the jobs' deadlines still run
    }
    if (signal?.aborted) break;
    const { mpiJobs, launchers } = now;
    const jobByName = new Map(mpiJobs.map((j) => [j.metadata?.name ?? "", j]));
    const launchersOf = new Map<string, V1Pod[]>();
    for (const p of launchers) {
      const job = p.metadata?.labels?.[MPI_JOB_NAME_LABEL];
      if (job && active.has(job)) launchersOf.set(job, [...(launchersOf.get(job) ?? []), p]);
    }
    for (const a of [...active.values()]) {
      if (signal?.aborted) break;
      const pods = launchersOf.get(a.name) ?? [];
      const st = launcherState(pods);
      const failed = failedCondition(jobByName.get(a.name));
      if (st.state === "ended") {
        const log = await readLog(a, st.pod, false);
        if (log === null) {
          if (signal?.aborted) break;
          await finish(a, { ok: false, reason: "could not read the launcher's log" });
        } else if (!st.ok) await finish(a, { ok: false, reason: `the launcher failed: ${tail(log)}`, raw: log });
        else {
          const parsed = parseJobLog(a.job, log);
          await finish(
            a,
            parsed.ok
              ? { job: a.job, ok: true, seconds: (Date.now() - a.started) / 1000, tests: parsed.tests }
              : { ok: false, reason: parsed.reason, raw: log, ...(parsed.corrupt ? { corrupt: true as const } : {}) },
          );
        }
      } else if (st.state === "crashed" || failed !== null) {
        const pod = st.state === "crashed" ? st.pod : pods[0]?.metadata?.name;
        const log = pod ? await readLog(a, pod, st.state === "crashed") : null;
        if (signal?.aborted) break;
        const why = st.state === "crashed" ? `the launcher failed (${st.why})` : `the MPIJob failed: ${failed}`;
        await finish(a, {
          ok: false,
          reason: `${why}${log?.trim() ? `: ${tail(log)}` : ""}`,
          ...(log ? { raw: log } : {}),
        });
      } else if (Date.now() >= a.deadline) {
        let all: V1Pod[] = [];
        try {
          all = await api.listJobPods(a.name, signal);
        } catch {
          // the reason below says what is known
        }
        if (signal?.aborted) break;
        await finish(a, {
          ok: false,
          reason: `no result within ${Math.round(o.timeoutMs / 1000)} s: ${pendingReason(all)}`,
        });
      }
    }
  }
  if (signal?.aborted) {
    for (const a of active.values()) {
      const r: JobResult = {
        job: a.job,
        ok: false,
        seconds: (Date.now() - a.started) / 1000,
        reason: "interrupted before the job finished",
      };
      results.push(r);
      o.onJobDone?.(r);
    }
    for (const job of queue) {
      const r: JobResult = { job, ok: false, seconds: 0, reason: "not started (interrupted)" };
      results.push(r);
      o.onJobDone?.(r);
    }
  }
  return results;
}

/** The waves of a round in order (jobs without a wave are wave 0). */
export function wavesOf(jobs: readonly BenchJob[]): BenchJob[][] {
  const by = new Map<number, BenchJob[]>();
  for (const j of jobs) by.set(j.wave ?? 0, [...(by.get(j.wave ?? 0) ?? []), j]);
  return [...by.entries()].sort(([a], [b]) => a - b).map(([, js]) => js);
}

/**
 * Runs one round, wave after wave (a barrier between waves). `startedAt` of each result is the seconds from the
 * round's start to its wave's start, so that the planner sees which tests overlapped.
 */
export async function runBenchRound(
  clients: KubeClients,
  api: BenchApi,
  jobs: readonly BenchJob[],
  o: BenchClusterOptions,
  created: CreatedJobs,
): Promise<JobResult[]> {
  const out: JobResult[] = [];
  const states =
    o.watch === false
      ? pollingSource(api, o.runId, o.signal)
      : startWatching(clients, api, o.runId, {
          pollMs: o.pollMs,
          signal: o.signal,
          ...(o.onWatchFallback ? { onFallback: o.onWatchFallback } : {}),
        });
  try {
    await runWaves(clients, api, jobs, o, created, states, out);
  } finally {
    states.close();
  }
  return out;
}

async function runWaves(
  clients: KubeClients,
  api: BenchApi,
  jobs: readonly BenchJob[],
  o: BenchClusterOptions,
  created: CreatedJobs,
  states: JobStateSource,
  out: JobResult[],
): Promise<void> {
  // From the first wave's start: that wave starts at 0 s whatever the time taken to plan the waves.
  let roundStart: number | null = null;
  for (const wave of wavesOf(jobs)) {
    if (o.signal?.aborted) {
      for (const job of wave) {
        const r: JobResult = { job, ok: false, seconds: 0, reason: "not started (interrupted)" };
        out.push(r);
        o.onJobDone?.(r);
      }
      continue;
    }
    const now = Date.now();
    roundStart ??= now;
    const startedAt = (now - roundStart) / 1000;
    for (const r of await runWave(clients, api, wave, o, created, states)) out.push(r.ok ? { ...r, startedAt } : r);
  }
}

import { setMaxListeners } from "node:events";
import type { V1Pod } from "@kubernetes/client-node";
import type { Snapshot } from "../../host/types.js";
import type { KubeClients } from "../api/client.js";
import { apiFailure, ResponseTooLargeError, statusOf } from "../api/errors.js";
import { MAX_LOG_RESPONSE_BYTES } from "../api/limits.js";
import { abortable, pollSleep, ThrottledError, withRetry } from "../api/retry.js";
import { collectorPod, collectorPodName } from "./collector.js";
import { parseSnapshotLog, SNAPSHOT_INVALID_PROBLEM } from "./snapshot-log.js";

export type CollectOutcome<R = Snapshot> =
  | { node: string; ok: true; result: R; pod: string }
  | { node: string; ok: false; reason: string; pod: string | null; invalidAt?: string };

/**
 * What became of one collector's log: the handler's result, or why not. `invalidAt` is set when the snapshot arrived
 * but is damaged: the JSON path of its first bad value (`$` when it is not JSON at all).
 */
export type LogOutcome<R> = { ok: true; value: R } | { ok: false; reason: string; invalidAt?: string };

/** What to do with a collector's log as soon as it arrives (so a 10,000-node run never holds every snapshot). */
export type LogHandler<R> = (log: string, node: string) => Promise<LogOutcome<R>>;

/** The default handler: the snapshot itself. */
export const snapshotFromLog: LogHandler<Snapshot> = async (log, node) => {
  const parsed = parseSnapshotLog(log, node);
  if (parsed.ok) return { ok: true, value: parsed.value };
  const reason = parsed.problems.map((p) => p.message).join("; ");
  const bad = parsed.problems.find((p) => p.code === SNAPSHOT_INVALID_PROBLEM);
  return bad ? { ok: false, reason, invalidAt: bad.path ?? "$" } : { ok: false, reason };
};

export type FleetRunOptions<R = Snapshot> = {
  nodes: string[];
  namespace: string;
  image: string;
  runId: string;
  /** Per-node limit: create → Succeeded → log. */
  timeoutMs: number;
  pollMs: number;
  concurrency: number;
  serviceAccountName?: string | undefined;
  onProgress?: (done: number, total: number, outcome: CollectOutcome<R>) => void;
  signal?: AbortSignal;
  handle: LogHandler<R>;
};

export type FleetRunResult<R = Snapshot> = {
  outcomes: CollectOutcome<R>[];
  /** Pods deleted at the end (all it created), and any it could not delete. */
  deleted: string[];
  leftBehind: string[];
  interrupted: boolean;
};

/** ClusterRole/Role `fleet verify` needs (deploy/fleet/rbac.yaml). */
export const FLEET_ROLE = "kube-rdma-fleet";

export { pollSleep } from "../api/retry.js";

/**
 * A collector's log is one snapshot (about 110 KB): more than the log cap of the HTTP layer (8 MiB) is not read, and
 * that node's snapshot is unreadable (what was cut is said), so a log without end costs the run no more than that.
 */
export const MAX_LOG_BYTES = MAX_LOG_RESPONSE_BYTES;

/**
 * Fatal for the whole run: RBAC refusals, bad credentials, an unreachable server. An answer that came but could not
 * be read (a log sent as JSON that is not: client-node's parse fails) is that node's problem, not the run's.
 */
function isFatal(err: unknown): boolean {
  const s = statusOf(err);
  if (err instanceof SyntaxError || err instanceof ResponseTooLargeError) return false;
  return s === 401 || s === 403 || s === null;
}

function waitingReason(pod: V1Pod): string {
  const cs = pod.status?.containerStatuses?.[0];
  const w = cs?.state?.waiting;
  if (w?.reason) return `${w.reason}${w.message ? `: ${w.message}` : ""}`;
  const cond = pod.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status !== "True");
  return cond?.message ?? pod.status?.reason ?? "";
}

/**
 * Why a Pending collector will never run, from its PodScheduled=False condition (reason Unschedulable, or what an
 * admission or quota said), or null: the node fails now, not at the timeout. Pod conditions:
 * https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-conditions
 */
export function unschedulable(pod: V1Pod): string | null {
  if (pod.status?.phase !== "Pending") return null;
  const c = pod.status.conditions?.find((x) => x.type === "PodScheduled" && x.status === "False");
  if (!c) return null;
  const why = [c.reason, c.message].filter((s) => s !== undefined && s !== "").join(": ");
  return `the collector pod cannot be scheduled (PodScheduled=False${why ? `, ${why}` : ""}); not collected`;
}

/** Why a call failed, in a few words: its HTTP status and first line (a 429 says how often it was retried). */
function httpWhy(err: unknown): string {
  if (err instanceof ThrottledError) return `HTTP 429: ${err.message}`;
  if (err instanceof SyntaxError) return `an answer that could not be read: ${err.message.slice(0, 120)}`;
  if (err instanceof ResponseTooLargeError) return err.message;
  return `HTTP ${statusOf(err)} ${String((err as Error).message).split("\n")[0]}`;
}

/**
 * One node: create its collector pod, wait for it to end, read its log, hand the log over. The node's deadline
 * (`timeoutMs` from the create) aborts whatever call is in flight, a log stream that stalls half way included.
 */
async function collectOne<R>(
  clients: KubeClients,
  node: string,
  o: FleetRunOptions<R>,
  created: Set<string>,
): Promise<CollectOutcome<R>> {
  const deadline = Date.now() + o.timeoutMs;
  const nodeAbort = new AbortController();
  const timer = setTimeout(() => nodeAbort.abort(), o.timeoutMs);
  const onStop = () => nodeAbort.abort();
  o.signal?.addEventListener("abort", onStop, { once: true });
  try {
    return await collectWithin(clients, node, o, created, { signal: nodeAbort.signal, deadline });
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onStop);
  }
}

async function collectWithin<R>(
  clients: KubeClients,
  node: string,
  o: FleetRunOptions<R>,
  created: Set<string>,
  limit: { signal: AbortSignal; deadline: number },
): Promise<CollectOutcome<R>> {
  const { core, target } = clients;
  const namespace = o.namespace;
  const name = collectorPodName(node, o.runId);
  const body = collectorPod({
    node,
    namespace,
    image: o.image,
    runId: o.runId,
    timeoutSeconds: Math.ceil(o.timeoutMs / 1000) + 30,
    serviceAccountName: o.serviceAccountName,
  });
  const fail = (reason: string, pod: string | null = name): CollectOutcome<R> => ({ node, ok: false, reason, pod });
  const seconds = Math.round(o.timeoutMs / 1000);
  const call = <T>(fn: () => Promise<T>) => withRetry(fn, limit);
  const options = abortable(limit.signal);
  /** The outcome of a call the deadline or Ctrl-C cut off, or null when it failed on its own. */
  const cutOff = (during: string, pod: string | null = name): CollectOutcome<R> | null => {
    if (o.signal?.aborted) return fail("interrupted before the collector finished", pod);
    return limit.signal.aborted
      ? fail(`no snapshot within ${seconds} s (${during} did not finish in time)`, pod)
      : null;
  };
  try {
    await call(() => core.createNamespacedPod({ namespace, body }, options));
  } catch (err) {
    const cut = cutOff("creating the collector pod");
    if (cut) {
      // The server may have made the pod before the request was cut off: the cleanup deletes it (404 is fine).
      created.add(name);
      return cut;
    }
    if (isFatal(err)) throw apiFailure(err, { verb: "create", resource: "pods", namespace }, target, FLEET_ROLE);
    return fail(`could not create the collector pod: ${httpWhy(err)}`, null);
  }
  created.add(name);
  let last: V1Pod | undefined;
  while (!limit.signal.aborted) {
    try {
      last = await call(() => core.readNamespacedPod({ name, namespace }, options));
    } catch (err) {
      // Cut off while polling: the final message says which phase the pod was last seen in.
      if (limit.signal.aborted) break;
      if (isFatal(err)) throw apiFailure(err, { verb: "get", resource: "pods", namespace, name }, target, FLEET_ROLE);
      return fail(statusOf(err) === 429 ? httpWhy(err) : `the collector pod disappeared (${httpWhy(err)})`);
    }
    const phase = last.status?.phase;
    const unscheduled = unschedulable(last);
    if (unscheduled !== null) return fail(unscheduled);
    if (phase === "Succeeded" || phase === "Failed") {
      let log: string;
      try {
        log = await call(() =>
          core.readNamespacedPodLog({ name, namespace, container: "collect", limitBytes: MAX_LOG_BYTES }, options),
        );
      } catch (err) {
        const cut = cutOff("its log stream");
        if (cut) return cut;
        if (isFatal(err))
          throw apiFailure(err, { verb: "get", resource: "pods/log", namespace, name }, target, FLEET_ROLE);
        return fail(`could not read the collector's log (${httpWhy(err)})`);
      }
      if (phase === "Failed") {
        const code = last.status?.containerStatuses?.[0]?.state?.terminated?.exitCode;
        const tail = log.trim().split("\n").slice(-3).join(" | ").slice(0, 300);
        return fail(`the collector failed${code !== undefined ? ` (exit ${code})` : ""}${tail ? `: ${tail}` : ""}`);
      }
      const handled = await o.handle(log, node);
      if (handled.ok) return { node, ok: true, result: handled.value, pod: name };
      return handled.invalidAt === undefined
        ? fail(handled.reason)
        : { node, ok: false, reason: handled.reason, pod: name, invalidAt: handled.invalidAt };
    }
    await pollSleep(o.pollMs, limit.signal);
  }
  if (o.signal?.aborted) return fail("interrupted before the collector finished");
  const why = last ? waitingReason(last) : "";
  return fail(
    `no snapshot within ${seconds} s (pod phase ${last?.status?.phase ?? "unknown"}${why ? `, ${why}` : ""})`,
  );
}

async function deletePod(clients: KubeClients, namespace: string, name: string): Promise<boolean> {
  try {
    await clients.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
    return true;
  } catch (err) {
    return statusOf(err) === 404;
  }
}

/**
 * Runs one collector pod per node (at most `concurrency` at a time), gathers the snapshots from their logs and
 * deletes every pod it created — after each node, and again at the end for anything left (errors, Ctrl-C).
 */
export async function collectFleet<R>(clients: KubeClients, o: FleetRunOptions<R>): Promise<FleetRunResult<R>> {
  const created = new Set<string>();
  const deleted: string[] = [];
  const outcomes: CollectOutcome<R>[] = new Array(o.nodes.length);
  // One fatal error (RBAC, unreachable API) stops every worker; Ctrl-C (o.signal) does the same.
  const stop = new AbortController();
  // Every concurrent node (or job) listens on it, each removing its listener when done: not a leak, so no warning.
  setMaxListeners(0, stop.signal);
  const onCallerAbort = () => stop.abort();
  o.signal?.addEventListener("abort", onCallerAbort, { once: true });
  const opts = { ...o, signal: stop.signal };
  let fatal: unknown;
  let next = 0;
  let done = 0;
  const release = async (name: string | null) => {
    if (!name || !created.has(name)) return;
    if (await deletePod(clients, o.namespace, name)) {
      created.delete(name);
      deleted.push(name);
    }
  };
  const worker = async () => {
    while (next < o.nodes.length) {
      const i = next++;
      const node = o.nodes[i]!;
      let outcome: CollectOutcome<R>;
      if (stop.signal.aborted) outcome = { node, ok: false, reason: "interrupted before it started", pod: null };
      else {
        try {
          outcome = await collectOne(clients, node, opts, created);
        } catch (err) {
          fatal ??= err;
          stop.abort();
          outcome = { node, ok: false, reason: "stopped by an API error", pod: null };
        } finally {
          await release(collectorPodName(node, o.runId));
        }
      }
      outcomes[i] = outcome;
      o.onProgress?.(++done, o.nodes.length, outcome);
    }
  };
  try {
    await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(o.concurrency, o.nodes.length)) }, worker));
  } finally {
    for (const name of [...created]) await release(name);
    o.signal?.removeEventListener("abort", onCallerAbort);
  }
  if (fatal !== undefined) throw fatal;
  return { outcomes, deleted, leftBehind: [...created], interrupted: o.signal?.aborted ?? false };
}

/**
 * What the bench runner waits on: the run's MPIJobs and the bench namespace's launcher pods, as they stand.
 *
 * Watched: one list of each, then one watch of each from its list's resourceVersion, the API server's way of
 * following changes (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes):
 * 4 requests however many jobs run and however long, and the runner wakes as a launcher ends instead of at the
 * next poll. A watch the server ends (its timeout, a proxy) is opened again from the last resourceVersion seen, at
 * most once per poll interval; a resourceVersion too old to resume from (410 Gone, as an answer or as an ERROR event
 * in the stream) costs one list again, at most MAX_RELISTS times. A watch that cannot be had (RBAC without the
 * `watch` verb, a proxy that refuses streams, relists used up) falls back to polling: both lists every poll interval.
 */
import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
import type { KubeClients } from "../api/client.js";
import { statusOf } from "../api/errors.js";
import { type WatchEvent, watchEvents } from "../api/http.js";
import { pollSleep, withRetry } from "../api/retry.js";
import type { BenchApi } from "./api.js";

export type JobStates = { mpiJobs: KubernetesObject[]; launchers: V1Pod[] };

export type JobStateSource = {
  /**
   * The states after the next change, or after `waitMs` without one (the runner's deadlines still run). Polling:
   * after `waitMs`, both lists. Throws what a failed list throws.
   */
  next(waitMs: number): Promise<JobStates>;
  /** Ends the watches (their requests are aborted). */
  close(): void;
  /** `watch`, or `poll` once the watch was given up, with why. */
  readonly mode: "watch" | "poll";
  readonly fallbackReason: string | null;
};

/** Lists again after 410 Gone, per source, before it polls instead. */
export const MAX_RELISTS = 4;
/** API requests a watched source makes to start: one list and one watch each of MPIJobs and launcher pods. */
export const WATCH_START_REQUESTS = 4;

type Versioned<T> = { items: T[]; resourceVersion: string };

/** Both lists, each retried through 429s: what one poll tick asks. */
export function pollStates(api: BenchApi, runId: string, signal?: AbortSignal): Promise<JobStates> {
  return Promise.all([
    withRetry(() => api.listRunJobs(runId, signal), { signal }),
    withRetry(() => api.listLaunchers(signal), { signal }),
  ]).then(([mpiJobs, launchers]) => ({ mpiJobs, launchers }));
}

/** A source that polls: `next` sleeps, then lists both. */
export function pollingSource(api: BenchApi, runId: string, signal?: AbortSignal): JobStateSource {
  return {
    mode: "poll",
    fallbackReason: null,
    async next(waitMs) {
      await pollSleep(waitMs, signal);
      return signal?.aborted ? { mpiJobs: [], launchers: [] } : pollStates(api, runId, signal);
    },
    close() {},
  };
}

const nameOf = (o: KubernetesObject) => o.metadata?.name ?? "";
const versionOf = (o: unknown) =>
  String((o as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion ?? "");

/** One watched collection: its objects by name and the resourceVersion to resume from. */
class Collection<T extends KubernetesObject> {
  readonly items = new Map<string, T>();
  version = "";
  expired = false;
  constructor(readonly list: () => Promise<Versioned<T>>) {}
  async relist() {
    const got = await this.list();
    this.items.clear();
    for (const o of got.items) this.items.set(nameOf(o), o);
    this.version = got.resourceVersion;
    this.expired = false;
  }
  /** Applies one event; false when it says nothing about the objects. */
  apply(e: WatchEvent): boolean {
    if (e.type === "ERROR") {
      if ((e.object as { code?: unknown } | null)?.code === 410) this.expired = true;
      return false;
    }
    const v = versionOf(e.object);
    if (v) this.version = v;
    if (e.type === "BOOKMARK") return false;
    const o = e.object as T;
    if (e.type === "DELETED") this.items.delete(nameOf(o));
    else if (e.type === "ADDED" || e.type === "MODIFIED") this.items.set(nameOf(o), o);
    else return false;
    return true;
  }
}

/**
 * Lists both, opens both watches and returns the source; a list that fails throws (as a poll tick's would). `onFallback`
 * hears once why the watch was given up.
 */
export async function watchingSource(
  clients: KubeClients,
  api: BenchApi,
  runId: string,
  o: { pollMs: number; signal?: AbortSignal | undefined; onFallback?: (why: string) => void },
): Promise<JobStateSource> {
  const stop = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal;
  const jobs = new Collection<KubernetesObject>(() =>
    withRetry(() => api.listRunJobsVersioned(runId, o.signal), { signal: o.signal }),
  );
  const launchers = new Collection<V1Pod>(() =>
    withRetry(() => api.listLaunchersVersioned(o.signal), { signal: o.signal }),
  );
  await Promise.all([jobs.relist(), launchers.relist()]);
  const paths = api.watchPaths(runId);
  let changed = true;
  let wake: (() => void) | null = null;
  const poke = () => {
    changed = true;
    wake?.();
  };
  const source = {
    mode: "watch" as "watch" | "poll",
    fallbackReason: null as string | null,
    async next(waitMs: number): Promise<JobStates> {
      if (source.mode === "poll") {
        await pollSleep(waitMs, o.signal);
        return o.signal?.aborted ? { mpiJobs: [], launchers: [] } : pollStates(api, runId, o.signal);
      }
      if (!changed) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(t);
            o.signal?.removeEventListener("abort", done);
            wake = null;
            resolve();
          };
          const t = setTimeout(done, waitMs);
          o.signal?.addEventListener("abort", done, { once: true });
          wake = done;
        });
      }
      if (polling()) return pollStates(api, runId, o.signal);
      changed = false;
      return { mpiJobs: [...jobs.items.values()], launchers: [...launchers.items.values()] };
    },
    close: () => stop.abort(),
  };
  const polling = () => source.mode === "poll";
  const fallBack = (why: string) => {
    if (source.mode === "poll") return;
    source.mode = "poll";
    source.fallbackReason = why;
    stop.abort();
    o.onFallback?.(why);
    poke();
  };

  const follow = async (c: Collection<KubernetesObject>, where: { path: string; labelSelector: string }) => {
    let relists = 0;
    while (!signal.aborted) {
      const opened = Date.now();
      try {
        await watchEvents(
          clients.target.kc,
          where.path,
          { labelSelector: where.labelSelector, resourceVersion: c.version, allowWatchBookmarks: "true" },
          signal,
          (e) => {
            if (c.apply(e)) poke();
          },
        );
      } catch (err) {
        if (signal.aborted) return;
        if (statusOf(err) === 410) c.expired = true;
        else return fallBack(`the watch of ${where.path} failed: ${(err as Error).message}`);
      }
      if (signal.aborted) return;
      if (c.expired) {
        if (++relists > MAX_RELISTS) return fallBack(`the watch of ${where.path} expired ${relists} times (410 Gone)`);
        try {
          await c.relist();
        } catch (err) {
          if (signal.aborted) return;
          return fallBack(`listing ${where.path} again failed: ${(err as Error).message}`);
        }
        poke();
        continue;
      }
      // Ended by the server: open it again from where it was, at most once per poll interval.
      await pollSleep(Math.max(0, o.pollMs - (Date.now() - opened)), signal);
    }
  };
  void follow(jobs, paths.jobs);
  void follow(launchers as unknown as Collection<KubernetesObject>, paths.launchers);
  return source;
}

/**
 * A watched source that starts at the first `next` (after the first wave's jobs were created): the lists and
 * watches open then. A start refused by RBAC, unauthenticated or unreachable throws (the run ends, as a poll's list
 * would end it); any other failure to start falls back to polling.
 */
export function startWatching(
  clients: KubeClients,
  api: BenchApi,
  runId: string,
  o: { pollMs: number; signal?: AbortSignal | undefined; onFallback?: (why: string) => void },
): JobStateSource {
  let inner: JobStateSource | null = null;
  let closed = false;
  return {
    get mode() {
      return inner?.mode ?? "watch";
    },
    get fallbackReason() {
      return inner?.fallbackReason ?? null;
    },
    async next(waitMs) {
      if (!inner) {
        try {
          inner = await watchingSource(clients, api, runId, o);
        } catch (err) {
          const s = statusOf(err);
          if (o.signal?.aborted || s === 401 || s === 403 || s === null) throw err;
          o.onFallback?.(`listing the jobs to watch them failed: ${(err as Error).message.split("\n")[0]}`);
          inner = pollingSource(api, runId, o.signal);
        }
        if (closed) inner.close();
      }
      return inner.next(waitMs);
    },
    close() {
      closed = true;
      inner?.close();
    },
  };
}

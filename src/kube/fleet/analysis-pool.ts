import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { startModuleWorker } from "../../core/worker.js";
import { analyseLog, type FleetCheckOptions, type NodeAnalysis } from "./node-analyser.js";
import type { LogHandler, LogOutcome } from "./run.js";

type Reply = { id: number; result?: LogOutcome<NodeAnalysis>; error?: string; ready?: undefined } | { ready: true };

export type AnalysisPool = { handle: LogHandler<NodeAnalysis>; threads: number; close(): Promise<void> };

/** Analysis in this thread (--analysis-threads 0): no time budget, a heavy snapshot holds up the whole run. */
export const analyseInThread: LogHandler<NodeAnalysis> = (log, node) => analyseLog(log, node);

/** analyseInThread with what the user said of every node (`--vm-host`). */
export const analyseInThreadWith =
  (opts: FleetCheckOptions): LogHandler<NodeAnalysis> =>
  (log, node) =>
    analyseLog(log, node, opts);

/**
 * The most one node's analysis may take. A real snapshot takes milliseconds; one that takes longer is damaged or
 * hostile (built to be heavy), and its worker is stopped so that the other nodes go on.
 */
export const ANALYSIS_BUDGET_MS = 20_000;

/**
 * Threads for `nodes` collector logs: at least one for any fleet, so the main thread only waits on the API server
 * and every snapshot's analysis has a time budget; one per 32 nodes up to one per core (≤ 8).
 */
export function defaultAnalysisThreads(nodes: number): number {
  if (nodes === 0) return 0;
  return Math.max(1, Math.min(8, availableParallelism(), Math.ceil(nodes / 32)));
}

type Job = { id: number; log: string; node: string; resolve: (r: LogOutcome<NodeAnalysis>) => void };
/** A worker, its job, the job's budget timer, and whether the worker has loaded (jobs wait for that). */
type Slot = { worker: Worker; job: Job | null; timer: NodeJS.Timeout | null; ready: boolean };

/**
 * Spreads log → snapshot → inventory → checks over worker threads, one log per worker at a time: building a node's
 * inventory costs milliseconds, so a 10,000-node fleet needs every core. A log whose analysis runs past `budgetMs`
 * is answered as this node's failure and its worker is replaced; a worker that dies fails only its own log.
 */
export function createAnalysisPool(
  threads: number,
  budgetMs = ANALYSIS_BUDGET_MS,
  opts: FleetCheckOptions = {},
): AnalysisPool {
  const queue: Job[] = [];
  let nextId = 0;
  let closed = false;
  const slots: Slot[] = [];

  const finish = (slot: Slot, outcome: LogOutcome<NodeAnalysis>) => {
    const job = slot.job;
    if (slot.timer) clearTimeout(slot.timer);
    slot.job = null;
    slot.timer = null;
    job?.resolve(outcome);
    dispatch();
  };
  const replace = (slot: Slot) => {
    void slot.worker.terminate();
    slot.worker = spawn(slot);
  };
  function spawn(slot: Slot): Worker {
    const w = startModuleWorker(import.meta.url, "analysis-worker");
    slot.ready = false;
    w.on("message", (m: Reply) => {
      if (slot.worker !== w) return;
      if (m.ready) {
        slot.ready = true;
        dispatch();
        return;
      }
      if (slot.job?.id !== m.id) return;
      const failed = `the analysis of its snapshot failed (${m.error})`;
      finish(slot, m.error !== undefined ? { ok: false, reason: failed } : m.result!);
    });
    w.on("error", (err) => {
      if (slot.worker !== w) return;
      const reason = `the analysis of its snapshot failed (${err instanceof Error ? err.message : String(err)})`;
      // A worker that failed to start answers the next waiting log, so that a start that always fails still ends.
      if (!slot.ready && !slot.job) slot.job = queue.shift() ?? null;
      if (!closed) replace(slot);
      finish(slot, { ok: false, reason });
    });
    return w;
  }
  function dispatch(): void {
    for (const slot of slots) {
      if (closed || !slot.ready || slot.job || queue.length === 0) continue;
      const job = queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => {
        replace(slot);
        finish(slot, {
          ok: false,
          reason: `the analysis of its snapshot took over ${budgetMs / 1000} s and was stopped (a real node's takes milliseconds: the snapshot is damaged or built to be heavy)`,
        });
      }, budgetMs);
      // Nothing of the log is kept after the hand-over: a 100 KB log alive until the reply would outlive a young GC.
      slot.worker.postMessage({ id: job.id, log: job.log, node: job.node, opts });
      job.log = "";
    }
  }
  for (let i = 0; i < threads; i++) {
    const slot: Slot = { worker: undefined as unknown as Worker, job: null, timer: null, ready: false };
    slot.worker = spawn(slot);
    slots.push(slot);
  }
  return {
    threads,
    handle: (log, node) =>
      new Promise((resolve) => {
        queue.push({ id: nextId++, log, node, resolve });
        dispatch();
      }),
    async close() {
      closed = true;
      for (const slot of slots) if (slot.timer) clearTimeout(slot.timer);
      for (const job of queue.splice(0)) job.resolve({ ok: false, reason: "the run ended before it was analysed" });
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}

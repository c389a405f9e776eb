import { availableParallelism } from "node:os";
import { startModuleWorker } from "../../core/worker.js";
import { analyseLog, type NodeAnalysis } from "./node-analyser.js";
import type { LogHandler } from "./run.js";

type NodeAnalysisReply = Awaited<ReturnType<typeof analyseLog>>;
type Reply = { id: number; result?: NodeAnalysisReply; error?: string };

export type AnalysisPool = { handle: LogHandler<NodeAnalysis>; threads: number; close(): Promise<void> };

/** Analysis in this thread (small fleets, tests). */
export const analyseInThread: LogHandler<NodeAnalysis> = (log, node) => analyseLog(log, node);

/**
 * Threads worth starting for `nodes` collector logs: none for small fleets, else one per core (≤ 8) — the main
 * thread only waits on the API server and hands logs over.
 */
export function defaultAnalysisThreads(nodes: number): number {
  if (nodes < 64) return 0;
  return Math.max(1, Math.min(8, availableParallelism()));
}

/**
 * Spreads log → snapshot → inventory → checks over worker threads: building a node's inventory costs
 * milliseconds (thousands of sysfs values, the nvidia-smi XML), so a 10,000-node fleet needs every core.
 */
export function createAnalysisPool(threads: number): AnalysisPool {
  const pending = new Map<number, { resolve: (r: Reply["result"]) => void; reject: (e: Error) => void }>();
  const load: number[] = [];
  const workers = Array.from({ length: threads }, (_, i) => {
    const w = startModuleWorker(import.meta.url, "analysis-worker");
    load[i] = 0;
    w.on("message", (m: Reply) => {
      load[i]!--;
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (!p) return;
      if (m.error !== undefined) p.reject(new Error(`fleet analysis worker failed: ${m.error}`));
      else p.resolve(m.result);
    });
    w.on("error", (err) => {
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    });
    return w;
  });
  let nextId = 0;
  /** The reply's promise. Holds nothing of the log: a 100 KB log kept alive until the reply would outlive a young GC. */
  const reply = (id: number) =>
    new Promise<NodeAnalysisReply>((resolve, reject) => pending.set(id, { resolve: (r) => resolve(r!), reject }));
  return {
    threads,
    handle: (log, node) => {
      const id = nextId++;
      let pick = 0;
      for (let i = 1; i < workers.length; i++) if (load[i]! < load[pick]!) pick = i;
      load[pick]!++;
      const answer = reply(id);
      workers[pick]!.postMessage({ id, log, node });
      return answer;
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

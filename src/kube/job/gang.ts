/** The parts of a job object that say how it is gang-scheduled (see scheduler.ts). Pure. */
import type { V1ObjectMeta } from "@kubernetes/client-node";
import { KUEUE_QUEUE_LABEL } from "./scheduler.js";
import type { JobOptions, SchedulingPolicy } from "./types.js";

/** runPolicy.schedulingPolicy: the training operator's PodGroup (Volcano or coscheduling) wants every pod. */
export function schedulingPolicyFor(opts: JobOptions, pods: number): { schedulingPolicy?: SchedulingPolicy } {
  const gang = opts.gang ?? "volcano";
  if (gang !== "volcano" && gang !== "coscheduling") return {};
  return {
    schedulingPolicy: { minAvailable: pods, ...(opts.queue && gang === "volcano" ? { queue: opts.queue } : {}) },
  };
}

/** The job's metadata; with Kueue, the queue it is submitted to (--queue, default "default"). */
export function jobMetadata(opts: JobOptions): V1ObjectMeta {
  return {
    name: opts.name,
    namespace: opts.namespace,
    ...(opts.gang === "kueue" ? { labels: { [KUEUE_QUEUE_LABEL]: opts.queue ?? "default" } } : {}),
  };
}

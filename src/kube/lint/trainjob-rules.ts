/**
 * Kubeflow Trainer v2: a TrainJob's `trainer.resourcesPerNode` replaces the whole `resources` of the runtime's
 * `node` container (Trainer's JobSet builder sets it anew from the TrainJob), so an rdma/hca or GPU request the
 * ClusterTrainingRuntime carries is gone unless resourcesPerNode repeats it.
 */
import { makeFinding } from "../../core/finding.js";
import { isGpuResource, isRdmaResource } from "../resources.js";
import { LINT_FINDINGS as L } from "./catalogue.js";
import type { LocatedFinding } from "./rules.js";
import { isObj, type Json } from "./templates.js";

const obj = (v: unknown): Json => (isObj(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const RUNTIME_KINDS = new Set(["ClusterTrainingRuntime", "TrainingRuntime"]);

export const isTrainerKind = (value: unknown, kinds: readonly string[]): boolean =>
  isObj(value) &&
  typeof value.apiVersion === "string" &&
  value.apiVersion.startsWith("trainer.kubeflow.org/") &&
  kinds.includes(String(value.kind));

/** `kind/name` → the GPU and RDMA resources the runtime's `node` container requests. */
export function runtimeResources(values: readonly unknown[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const v of values) {
    if (!isTrainerKind(v, [...RUNTIME_KINDS])) continue;
    const r = v as Json;
    const jobs = arr(obj(obj(obj(r.spec).template).spec).replicatedJobs).map(obj);
    const names = new Set<string>();
    for (const j of jobs) {
      for (const c of arr(obj(obj(obj(obj(j.template).spec).template).spec).containers).map(obj)) {
        if (c.name !== "node") continue;
        const res = obj(c.resources);
        for (const k of Object.keys({ ...obj(res.limits), ...obj(res.requests) })) {
          if (isGpuResource(k) || isRdmaResource(k)) names.add(k);
        }
      }
    }
    out.set(`${String(r.kind)}/${String(obj(r.metadata).name)}`, [...names].sort());
  }
  return out;
}

/** The TrainJob rule: resourcesPerNode must repeat the runtime's GPU and RDMA requests. */
export function lintTrainJob(value: Json, runtimes: ReadonlyMap<string, string[]>): LocatedFinding[] {
  const runtimeAbsent = runtimeNotInInput(value, runtimes);
  return [...resourcesDropped(value, runtimes), ...(runtimeAbsent ? [runtimeAbsent] : [])];
}

/**
 * A TrainJob carries no pod template: the runtime's holds every RDMA setting. Without the runtime in the input
 * nothing of that was checked, which must not read as a PASS.
 */
function runtimeNotInInput(value: Json, runtimes: ReadonlyMap<string, string[]>): LocatedFinding | null {
  const ref = obj(obj(value.spec).runtimeRef);
  const kind = String(ref.kind ?? "ClusterTrainingRuntime");
  const runtime = `${kind}/${String(ref.name)}`;
  if (runtimes.has(runtime)) return null;
  const where = `TrainJob/${String(obj(value.metadata).name ?? "(unnamed)")}`;
  const namespace = obj(value.metadata).namespace;
  const get = `${kind.toLowerCase()} ${String(ref.name)}${kind === "TrainingRuntime" && typeof namespace === "string" ? ` -n ${namespace}` : ""}`;
  return {
    finding: makeFinding(L, "TRAINJOB_RUNTIME_NOT_IN_INPUT", where, { where, runtime, get }),
    location: { container: null, field: ["spec", "runtimeRef"] },
  };
}

function resourcesDropped(value: Json, runtimes: ReadonlyMap<string, string[]>): LocatedFinding[] {
  const spec = obj(value.spec);
  const trainer = obj(spec.trainer);
  const rpn = obj(trainer.resourcesPerNode);
  if (!isObj(rpn.limits) && !isObj(rpn.requests)) return [];
  const given = Object.keys({ ...obj(rpn.limits), ...obj(rpn.requests) });
  const ref = obj(spec.runtimeRef);
  const runtime = `${String(ref.kind ?? "ClusterTrainingRuntime")}/${String(ref.name)}`;
  const known = runtimes.get(runtime);
  let dropped: string[];
  if (known) {
    dropped = known.filter((k) => !given.includes(k));
  } else {
    const multiNode = trainer.numNodes === undefined || Number(trainer.numNodes) > 1;
    dropped =
      multiNode && given.some(isGpuResource) && !given.some(isRdmaResource) ? ["the RDMA resource (rdma/hca)"] : [];
  }
  if (dropped.length === 0) return [];
  const where = `TrainJob/${String(obj(value.metadata).name ?? "(unnamed)")}`;
  return [
    {
      finding: makeFinding(L, "TRAINJOB_RESOURCES_DROPPED", where, {
        where,
        runtime,
        given: given.join(", "),
        dropped,
        known: known !== undefined,
      }),
      location: { container: "node", field: ["spec", "trainer", "resourcesPerNode"] },
    },
  ];
}

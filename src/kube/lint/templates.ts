/** Finds the pod templates inside workload objects, with their field paths and replica counts. Pure. */

export type Path = (string | number)[];
export type Json = Record<string, unknown>;

export type PodTemplateRef = {
  /** Path of the pod spec (`spec.pytorchReplicaSpecs.Worker.template.spec`). */
  specPath: Path;
  /** Path of the pod metadata (annotations), when the object has one. */
  metaPath: Path | null;
  spec: Json;
  meta: Json;
  role: string;
  replicas: number;
};

export type WorkloadObject = {
  kind: string;
  apiVersion: string;
  name: string;
  templates: PodTemplateRef[];
  /** For Volcano Jobs: spec.schedulerName. */
  objectScheduler: string | null;
  /** The object's metadata.labels (a Kueue queue-name label makes Kueue admit the job as a whole). */
  labels: Record<string, string>;
  /** Where a pod template belongs but none (or not a mapping) is: nothing there can be linted. */
  missingTemplates: { path: Path; role: string }[];
  /** Replica counts that are not whole numbers ≥ 0 (`-3`, `two`): counted as the default, reported. */
  badCounts: { path: Path; value: unknown; counted: number }[];
};

export const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObj(v) ? v : {});
const int = (v: unknown, d: number) => (typeof v === "number" && Number.isFinite(v) ? v : d);

function template(base: Path, t: unknown, role: string, replicas: number): PodTemplateRef | null {
  if (!isObj(t)) return null;
  return {
    specPath: [...base, "spec"],
    metaPath: [...base, "metadata"],
    spec: obj(t.spec),
    meta: obj(t.metadata),
    role,
    replicas,
  };
}

const REPLICA_SPECS: Record<string, string> = {
  PyTorchJob: "pytorchReplicaSpecs",
  MPIJob: "mpiReplicaSpecs",
  TFJob: "tfReplicaSpecs",
  PaddleJob: "paddleReplicaSpecs",
  XGBoostJob: "xgbReplicaSpecs",
};

const TRAINING_RUNTIMES = new Set(["ClusterTrainingRuntime", "TrainingRuntime"]);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const SIMPLE_TEMPLATE = new Set(["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController"]);

/** The workload's pod templates, or null for a kind without pod templates. */
export function workloadOf(value: unknown): WorkloadObject | null {
  if (!isObj(value)) return null;
  const kind = typeof value.kind === "string" ? value.kind : "";
  const apiVersion = typeof value.apiVersion === "string" ? value.apiVersion : "";
  const name = typeof obj(value.metadata).name === "string" ? (obj(value.metadata).name as string) : "(unnamed)";
  const spec = obj(value.spec);
  const out: WorkloadObject = {
    kind,
    apiVersion,
    name,
    templates: [],
    objectScheduler: null,
    labels: Object.fromEntries(
      Object.entries(obj(obj(value.metadata).labels)).filter((e): e is [string, string] => typeof e[1] === "string"),
    ),
    missingTemplates: [],
    badCounts: [],
  };
  /** A replica count: absent → the default; not a whole number ≥ 0 → the default, and reported. */
  const count = (path: Path, v: unknown, d: number): number => {
    if (v === undefined || v === null) return d;
    if (typeof v === "number" && Number.isInteger(v) && v >= 0) return v;
    out.badCounts.push({ path, value: v, counted: d });
    return d;
  };
  const add = (base: Path, t: unknown, role: string, replicas: number) => {
    const ref = template(base, t, role, replicas);
    if (ref) out.templates.push(ref);
    else out.missingTemplates.push({ path: base, role });
  };
  if (kind === "Pod") {
    out.templates.push({
      specPath: ["spec"],
      metaPath: ["metadata"],
      spec,
      meta: obj(value.metadata),
      role: "pod",
      replicas: 1,
    });
  } else if (SIMPLE_TEMPLATE.has(kind)) {
    add(["spec", "template"], spec.template, kind.toLowerCase(), count(["spec", "replicas"], spec.replicas, 1));
  } else if (kind === "Job" && apiVersion.startsWith("batch.volcano.sh/")) {
    out.objectScheduler = typeof spec.schedulerName === "string" ? spec.schedulerName : null;
    const tasks = Array.isArray(spec.tasks) ? spec.tasks : [];
    tasks.forEach((t, i) => {
      const task = obj(t);
      add(
        ["spec", "tasks", i, "template"],
        task.template,
        String(task.name ?? `task${i}`),
        count(["spec", "tasks", i, "replicas"], task.replicas, 1),
      );
    });
    if (tasks.length === 0) out.missingTemplates.push({ path: ["spec", "tasks"], role: "tasks" });
  } else if (kind === "Job") {
    add(["spec", "template"], spec.template, "job", count(["spec", "parallelism"], spec.parallelism, 1));
  } else if (kind === "CronJob") {
    const jt = obj(obj(spec.jobTemplate).spec);
    const parallelism = count(["spec", "jobTemplate", "spec", "parallelism"], jt.parallelism, 1);
    add(["spec", "jobTemplate", "spec", "template"], jt.template, "cronjob", parallelism);
  } else if (TRAINING_RUNTIMES.has(kind) && apiVersion.startsWith("trainer.kubeflow.org/")) {
    // Kubeflow Trainer v2: a JobSet template; the trainer's replicated job runs mlPolicy.numNodes pods.
    const policy = obj(spec.podGroupPolicy);
    out.objectScheduler = isObj(policy.volcano)
      ? "volcano"
      : isObj(policy.coscheduling)
        ? "scheduler-plugins-scheduler"
        : null;
    const numNodes = int(obj(spec.mlPolicy).numNodes, 1);
    const jobs = arr(obj(obj(spec.template).spec).replicatedJobs);
    jobs.forEach((j, i) => {
      const rj = obj(j);
      const jobTemplate = obj(rj.template);
      const trainer =
        obj(obj(jobTemplate.metadata).labels)["trainer.kubeflow.org/trainjob-ancestor-step"] === "trainer";
      const jobSpec = obj(jobTemplate.spec);
      const pods = trainer ? numNodes : int(rj.replicas, 1) * int(jobSpec.parallelism, 1);
      const base = ["spec", "template", "spec", "replicatedJobs", i, "template", "spec", "template"];
      add(base, jobSpec.template, String(rj.name ?? `job${i}`), pods);
    });
    if (jobs.length === 0) {
      out.missingTemplates.push({ path: ["spec", "template", "spec", "replicatedJobs"], role: "replicatedJobs" });
    }
  } else if (REPLICA_SPECS[kind]) {
    const field = REPLICA_SPECS[kind]!;
    for (const [role, r] of Object.entries(obj(spec[field]))) {
      add(
        ["spec", field, role, "template"],
        obj(r).template,
        role,
        count(["spec", field, role, "replicas"], obj(r).replicas, 1),
      );
    }
    if (out.templates.length === 0 && out.missingTemplates.length === 0) {
      out.missingTemplates.push({ path: ["spec", field], role: "replica specs" });
    }
  } else {
    return null;
  }
  return out;
}

export function pathString(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

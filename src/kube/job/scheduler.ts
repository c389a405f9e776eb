/**
 * Which scheduler places a job's pods, and what gang scheduling then means. An RDMA training job whose pods start
 * one by one can deadlock: two half-started jobs each hold GPUs the other needs, and a rank that starts alone waits
 * at NCCL init until it times out. A gang scheduler starts all of a job's pods or none.
 *
 * - volcano (the default, the reference setup): schedulerName volcano; the training operator makes a Volcano
 *   PodGroup with minAvailable = every pod (https://volcano.sh/en/docs/podgroup/).
 * - coscheduling: the scheduler-plugins coscheduling plugin (schedulerName scheduler-plugins-scheduler); the
 *   training operator, started with --gang-scheduler-name=scheduler-plugins, makes a PodGroup
 *   scheduling.x-k8s.io/v1alpha1 with minMember = every pod
 *   (https://github.com/kubernetes-sigs/scheduler-plugins/tree/master/pkg/coscheduling).
 * - kueue: the default scheduler places the pods, Kueue admits the whole job or none of it (all-or-nothing needs
 *   waitForPodsReady in Kueue's configuration: https://kueue.sigs.k8s.io/docs/tasks/manage/setup_wait_for_pods_ready/);
 *   the job carries the label kueue.x-k8s.io/queue-name.
 * - default: the default scheduler and no gang: pods start as they fit.
 * Any other value is used as the schedulerName as given.
 */
export type GangKind = "volcano" | "coscheduling" | "kueue" | "none";

export type Scheduler = {
  /** What --scheduler was given. */
  name: string;
  /** The pods' spec.schedulerName. */
  schedulerName: string;
  gang: GangKind;
};

export const SCHEDULER_CHOICES = ["volcano", "coscheduling", "kueue", "default"] as const;

export const KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name";

export function schedulerFor(name: string): Scheduler {
  switch (name) {
    case "volcano":
      return { name, schedulerName: "volcano", gang: "volcano" };
    case "coscheduling":
    case "scheduler-plugins-scheduler":
      return { name, schedulerName: "scheduler-plugins-scheduler", gang: "coscheduling" };
    case "kueue":
      return { name, schedulerName: "default-scheduler", gang: "kueue" };
    case "default":
    case "default-scheduler":
      return { name, schedulerName: "default-scheduler", gang: "none" };
    default:
      return { name, schedulerName: name, gang: name === "volcano" ? "volcano" : "none" };
  }
}

/** What gang scheduling means with this scheduler, for the notes `job` prints. */
export function gangNote(s: Scheduler, pods: number): string | null {
  switch (s.gang) {
    case "volcano":
      return null;
    case "coscheduling":
      return `coscheduling: the training operator must run with --gang-scheduler-name=scheduler-plugins to make the PodGroup (minMember ${pods}); without it the pods are not gang-scheduled.`;
    case "kueue":
      return `kueue: Kueue admits all ${pods} pods or none; set waitForPodsReady in Kueue's configuration, or a job admitted while the cluster is short of GPUs can start part of its pods and wait.`;
    case "none":
      return `no gang scheduling (${s.schedulerName}): the ${pods} pods start as they fit; a job that gets only some of them waits at NCCL init, and two such jobs can hold each other's GPUs forever.`;
  }
}

/**
 * What the API must serve for the scheduler to exist, and how to install it: checked by `job --apply` and
 * `kube-rdma cluster --scheduler`.
 */
export function schedulerRequirement(s: Scheduler): { crd: string; install: string } | null {
  switch (s.gang) {
    case "volcano":
      return {
        crd: "podgroups.scheduling.volcano.sh",
        install: "Install Volcano (the volcano-development.yaml of a release)",
      };
    case "coscheduling":
      return {
        crd: "podgroups.scheduling.x-k8s.io",
        install: "Install scheduler-plugins as a second scheduler (its Helm chart as-a-second-scheduler)",
      };
    case "kueue":
      return {
        crd: "clusterqueues.kueue.x-k8s.io",
        install: "Install Kueue (the manifests.yaml of a release) and a LocalQueue",
      };
    case "none":
      return null;
  }
}

/** The CRD names the API serves; null when they cannot be read (then nothing is claimed). */
export type CrdLister = () => Promise<string[] | null>;

/**
 * Whether the chosen scheduler is installed, by its CRD: a job for a scheduler that is not there waits Pending
 * forever with nothing said. Returns the problem in words, or null.
 */
export async function missingScheduler(
  s: Scheduler,
  listCrds: CrdLister,
): Promise<{ message: string; hint: string } | null> {
  const need = schedulerRequirement(s);
  if (!need) return null;
  const crds = await listCrds();
  if (crds === null || crds.includes(need.crd)) return null;
  return {
    message: `--scheduler ${s.name}: the cluster has no ${need.crd} CRD, so ${s.name} is not installed and the job's pods would stay Pending.`,
    hint: `${need.install}, or choose another scheduler (--scheduler ${SCHEDULER_CHOICES.filter((c) => c !== s.name).join("|")}); kube-rdma cluster --scheduler ${s.name} checks it.`,
  };
}

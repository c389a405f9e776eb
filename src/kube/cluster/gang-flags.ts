/**
 * Whether the training and MPI operators create Volcano PodGroups for their jobs. Neither does by default: the
 * Kubeflow training operator needs `--gang-scheduler-name=volcano` (older releases: `--enable-gang-scheduling`), the
 * MPI operator `--gang-scheduling=volcano`; without it a PyTorchJob/MPIJob's pods are scheduled one at a time even
 * with schedulerName volcano, and a partly placed job holds its GPUs waiting for the rest.
 * Source: https://www.kubeflow.org/docs/components/training/user-guides/job-scheduling/ (the flags per operator).
 */
import type { V1Deployment } from "@kubernetes/client-node";

export type GangFlagCheck = { operator: "training-operator" | "mpi-operator"; flag: string; set: boolean };

function argv(d: V1Deployment): string[] {
  return (d.spec?.template.spec?.containers ?? []).flatMap((c) => [...(c.command ?? []), ...(c.args ?? [])]);
}

/** The value of `--name=value` or `--name value` (also `-name`), or undefined; "" for a bare boolean flag. */
export function flagValue(words: readonly string[], name: string): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!.replace(/^--?/, "");
    if (w === name) {
      const next = words[i + 1];
      return next !== undefined && !next.startsWith("-") ? next : "";
    }
    if (w.startsWith(`${name}=`)) return w.slice(name.length + 1);
  }
  return undefined;
}

/** Which operator the Deployment runs and whether it gang-schedules with Volcano; null for other operators. */
export function volcanoGangFlag(d: V1Deployment): GangFlagCheck | null {
  const name = d.metadata?.name ?? "";
  const images = (d.spec?.template.spec?.containers ?? []).map((c) => c.image ?? "");
  const words = argv(d);
  if (/mpi-operator/.test(name) || images.some((i) => /mpi-operator/.test(i))) {
    return {
      operator: "mpi-operator",
      flag: "--gang-scheduling=volcano",
      set: flagValue(words, "gang-scheduling") === "volcano",
    };
  }
  if (/training-operator/.test(name) || images.some((i) => /training-operator/.test(i))) {
    const named = flagValue(words, "gang-scheduler-name");
    const legacy = flagValue(words, "enable-gang-scheduling");
    const set = named === "volcano" || (named === undefined && (legacy === "" || legacy === "true"));
    return { operator: "training-operator", flag: "--gang-scheduler-name=volcano", set };
  }
  return null;
}

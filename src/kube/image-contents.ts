/**
 * What the images kube-rdma generates jobs for carry, one home for `job` (which image a pod gets) and `lint` (a
 * container must run a program its image carries). Only programs whose presence depends on the image are tracked:
 * `kube-rdma` (only its own image) and `sshd` (the MPI workers' PID 1).
 *
 * Sources: the NGC PyTorch image ships no SSH server (the mpi-operator maintainers tell users to build one on top,
 * as its base image does: https://github.com/kubeflow/mpi-operator/blob/master/build/base/Dockerfile); CoreWeave's
 * nccl-tests images install openssh-server (https://github.com/coreweave/nccl-tests/blob/master/Dockerfile);
 * deploy/images/pytorch-mpi/Dockerfile adds it to the NGC image.
 */
import { KUBE_RDMA_IMAGE_REPOSITORY } from "./image.js";

export const TRACKED_PROGRAMS = ["kube-rdma", "sshd"] as const;
export type TrackedProgram = (typeof TRACKED_PROGRAMS)[number];

/** The NGC PyTorch image with sshd added (deploy/images/pytorch-mpi), tagged as the NGC image it is built from. */
export const PYTORCH_MPI_REPOSITORY = "ghcr.io/kube-rdma/pytorch-mpi";
export const PYTORCH_MPI_DOCKERFILE = "deploy/images/pytorch-mpi/Dockerfile";

type Known = { repository: string; carries: readonly TrackedProgram[] };

/** Images whose contents are known, by repository path without the registry (a mirror keeps the path). */
const KNOWN: readonly Known[] = [
  { repository: "nvidia/pytorch", carries: [] },
  { repository: "kube-rdma/pytorch-mpi", carries: ["sshd"] },
  { repository: "coreweave/nccl-tests", carries: ["sshd"] },
  { repository: "kube-rdma/kube-rdma", carries: ["kube-rdma"] },
];

/** `nvcr.io/nvidia/pytorch:24.05-py3` → `nvidia/pytorch`; `busybox` → `busybox`. */
export function repositoryPath(image: string): string {
  const noDigest = image.split("@")[0] ?? image;
  const slash = noDigest.lastIndexOf("/");
  const colon = noDigest.lastIndexOf(":");
  const repo = colon > slash ? noDigest.slice(0, colon) : noDigest;
  const parts = repo.split("/");
  // A first part with a dot or a port, or `localhost`, is a registry (the Docker reference grammar).
  if (parts.length > 1 && /[.:]|^localhost$/.test(parts[0]!)) parts.shift();
  return parts.join("/");
}

/**
 * Whether the image carries the program: true / false where its contents are known, null where not. The kube-rdma
 * program is carried only by the kube-rdma image (or a mirror of it: the same repository name), so for it every
 * other image is false.
 */
export function imageCarries(image: string, program: TrackedProgram): boolean | null {
  const path = repositoryPath(image);
  const last = path.split("/").at(-1) ?? path;
  if (program === "kube-rdma") return last === KUBE_RDMA_IMAGE_REPOSITORY.split("/").at(-1);
  const known = KNOWN.find((k) => path === k.repository || path.endsWith(`/${k.repository}`));
  return known ? known.carries.includes(program) : null;
}

/** The image with sshd for an NGC PyTorch image (same tag); other images are returned as they are. */
export function withSshd(image: string): string {
  if (repositoryPath(image) !== "nvidia/pytorch") return image;
  const tag = image.split("@")[0]!.slice(image.lastIndexOf(":") + 1);
  return `${PYTORCH_MPI_REPOSITORY}:${tag}`;
}

/**
 * The kube-rdma container image, named once. Every object kube-rdma writes that runs `kube-rdma` (the device
 * plugin DaemonSet, fleet collector pods, the jobs' preflight init container, deploy/) takes its image from here;
 * the Dockerfile at the repository root builds it (`docker build -t IMAGE .`).
 */
import { VERSION } from "../cli/version.js";

/** Where the image is published; a mirror is given with each command's `--image`. */
export const KUBE_RDMA_IMAGE_REPOSITORY = "ghcr.io/kube-rdma/kube-rdma";
/** The image of this release. */
export const KUBE_RDMA_IMAGE = `${KUBE_RDMA_IMAGE_REPOSITORY}:${VERSION}`;

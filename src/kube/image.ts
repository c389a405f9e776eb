/**
 * The kube-rdma container image, named once. Every object kube-rdma writes that runs `kube-rdma` (the agent and
 * device plugin DaemonSets, fleet collector pods, the jobs' preflight init container, `job --env-from-node`'s
 * collector, deploy/) takes its image from here; the Dockerfile at the repository root builds it
 * (`docker build -t IMAGE .`).
 *
 * Mirroring it: the `images:` entry of deploy/overlays/default (kustomize rewrites both DaemonSets, and copies the
 * agent's image into the ConfigMap kube-rdma-image that the collector admission policy compares with and that
 * `fleet verify` reads for its collectors); for manifests written without the cluster (`job`), KUBE_RDMA_IMAGE (the
 * default of every `--image` that names this image, and an override of the ConfigMap).
 */
import { VERSION } from "../cli/version.js";
import type { KubeClients } from "./api/client.js";

/** Where the image is published. */
export const KUBE_RDMA_IMAGE_REPOSITORY = "ghcr.io/kube-rdma/kube-rdma";
/** The image of this release. */
export const KUBE_RDMA_IMAGE = `${KUBE_RDMA_IMAGE_REPOSITORY}:${VERSION}`;
/** The environment variable that names a mirror of the image for the pods the CLI creates. */
export const KUBE_RDMA_IMAGE_ENV = "KUBE_RDMA_IMAGE";
/** The ConfigMap (in the install's namespace) and key holding the image the install runs. */
export const IMAGE_CONFIGMAP = "kube-rdma-image";
export const IMAGE_CONFIGMAP_KEY = "image";

/** The image the CLI's pods run: KUBE_RDMA_IMAGE when set (a mirror), else this release's image. */
export function kubeRdmaImage(env: Readonly<Record<string, string | undefined>>): string {
  const v = env[KUBE_RDMA_IMAGE_ENV]?.trim();
  return v ? v : KUBE_RDMA_IMAGE;
}

/**
 * The image the install runs, from ConfigMap NAMESPACE/kube-rdma-image (deploy/overlays/default fills it from its
 * `images:` entry), so a mirror set there reaches the pods the CLI creates too; null when it cannot be read (no
 * install in that namespace, no right to read it), and the caller keeps its default.
 */
export async function readInstalledImage(clients: KubeClients, namespace: string): Promise<string | null> {
  try {
    const cm = await clients.call({ verb: "get", resource: "configmaps", namespace, name: IMAGE_CONFIGMAP }, () =>
      clients.core.readNamespacedConfigMap({ name: IMAGE_CONFIGMAP, namespace }),
    );
    const v = cm.data?.[IMAGE_CONFIGMAP_KEY]?.trim();
    return v ? v : null;
  } catch {
    return null;
  }
}

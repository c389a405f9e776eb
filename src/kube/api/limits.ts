/** The caps on what one Kubernetes answer may hold (http.ts enforces them); no imports, so any module may read them. */
const MiB = 2 ** 20;

/**
 * The most one answer (an object or a list) may hold. Kubernetes supports clusters of up to 5,000 nodes
 * (https://kubernetes.io/docs/setup/best-practices/cluster-large/) and a Node object, with the up to 50 images the
 * kubelet reports (nodeStatusMaxImages, default 50:
 * https://kubernetes.io/docs/reference/config-api/kubelet-config.v1beta1/), is about 10–15 KB: a full node list fits in 64 MiB.
 */
export const MAX_RESPONSE_BYTES = 64 * MiB;
/**
 * The most one pod log read may hold when the request sets no limitBytes: a collector's snapshot is about 110 KB, an
 * nccl-tests launcher log a few MiB at most.
 */
export const MAX_LOG_RESPONSE_BYTES = 8 * MiB;
/** The most one watch event (one line of the stream: an object) may hold; etcd stores objects of at most 1.5 MiB. */
export const MAX_WATCH_EVENT_BYTES = 4 * MiB;

/** The caps of one client: on any answer, and on a pod log read that sets no limitBytes. */
export type BodyCaps = { responseBytes: number; logBytes: number };
export const DEFAULT_CAPS: BodyCaps = { responseBytes: MAX_RESPONSE_BYTES, logBytes: MAX_LOG_RESPONSE_BYTES };

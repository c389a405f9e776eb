/** How large a distributed job can be: beyond these a number is a typo (`--nodes 1e9`), not a job. Pure. */

const LIMITS = {
  nodes: { max: 65_536, what: "more nodes than any Kubernetes cluster holds" },
  // The densest GPU servers carry 16 GPUs; 64 leaves room without accepting nonsense.
  gpus: { max: 64, what: "more GPUs than one node carries (the densest servers have 16)" },
  "rdma-count": { max: 64, what: "more HCAs than one node carries (the largest have 18)" },
} as const;

export type SizedFlag = keyof typeof LIMITS;

/** `--nodes 100000 is more nodes than any Kubernetes cluster holds: at most 65536`, or null within the limit. */
export function beyondLimit(flag: SizedFlag, n: number): string | null {
  const l = LIMITS[flag];
  return n > l.max ? `--${flag} ${n} is ${l.what}: at most ${l.max}` : null;
}

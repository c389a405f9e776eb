/**
 * The taint breaker's slots, claimed atomically. Every node that may carry the taint holds a slot in one Lease
 * (`kube-rdma-taint-slots` in the agent's namespace): its annotation lists the holders. A claim reads the Lease,
 * adds this node when a slot is free and writes it back with the resourceVersion it read; the API server refuses a
 * write against an older version with 409 Conflict
 * (https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions), so of N agents that claim at
 * the same instant exactly as many as there are free slots succeed; the others read again and find the budget full.
 * The decisions are pure (claimStep, releaseStep); the I/O is in taint-slots-io.ts.
 */

export const SLOTS_LEASE = "kube-rdma-taint-slots";
export const HOLDERS_ANNOTATION = "kube-rdma.io/taint-slot-holders";
/** A holder whose node no longer carries the taint is dropped only after this long (its taint may be on its way). */
export const STALE_HOLDER_SECONDS = 600;

/** Node name → when it claimed its slot (RFC 3339). */
export type Holders = Record<string, string>;

export type ClaimStep = { kind: "have" } | { kind: "claim"; next: Holders } | { kind: "full"; why: string };

/** Reads the holders annotation; anything unreadable counts as no holder (the tainted-node list refills it). */
export function parseHolders(text: string | undefined): Holders {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== "object" || v === null || Array.isArray(v)) return {};
    const out: Holders = {};
    for (const [k, t] of Object.entries(v)) if (typeof t === "string") out[k] = t;
    return out;
  } catch {
    return {};
  }
}

export function claimStep(holders: Holders, node: string, budget: number, now: Date): ClaimStep {
  if (node in holders) return { kind: "have" };
  const held = Object.keys(holders).length;
  if (held >= budget) {
    const names = Object.keys(holders).sort().slice(0, 5);
    return {
      kind: "full",
      why: `${held} node(s) already hold a taint slot (${names.join(", ")}${held > names.length ? ", …" : ""}); the budget is ${budget}`,
    };
  }
  return { kind: "claim", next: { ...holders, [node]: now.toISOString() } };
}

/** The holders without this node, or null when it held no slot. */
export function releaseStep(holders: Holders, node: string): Holders | null {
  if (!(node in holders)) return null;
  const { [node]: _gone, ...rest } = holders;
  return rest;
}

/**
 * Holders that no longer carry the taint (an operator removed it, the node left) and claimed long enough ago that
 * their taint is not merely on its way, dropped; nodes that carry the taint without a slot (tainted before the Lease
 * existed) added. `tainted` is the list of nodes labelled as tainted by the agent.
 */
export function reconcileHolders(holders: Holders, tainted: readonly string[], now: Date): Holders {
  const carrying = new Set(tainted);
  const out: Holders = {};
  for (const [node, at] of Object.entries(holders)) {
    const age = (now.getTime() - Date.parse(at)) / 1000;
    if (carrying.has(node) || age <= STALE_HOLDER_SECONDS) out[node] = at;
  }
  for (const node of tainted) out[node] ??= now.toISOString();
  return out;
}

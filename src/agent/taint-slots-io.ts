/** The taint slots' reads and writes (taint-slots.ts decides): one Lease, written with resourceVersion preconditions. */
import type { V1Lease } from "@kubernetes/client-node";
import { statusOf } from "../kube/api/errors.js";
import type { AgentCluster } from "./cluster-io.js";
import {
  claimStep,
  HOLDERS_ANNOTATION,
  type Holders,
  parseHolders,
  reconcileHolders,
  releaseStep,
  SLOTS_LEASE,
} from "./taint-slots.js";

/** Conflicts a claim waits out before it gives up for this run (each one means another agent's write went first). */
const MAX_ATTEMPTS = 200;

export type SlotClaim = { ok: true } | { ok: false; why: string };

const lease = (namespace: string, holders: Holders, resourceVersion?: string): V1Lease => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: {
    name: SLOTS_LEASE,
    namespace,
    annotations: { [HOLDERS_ANNOTATION]: JSON.stringify(holders) },
    ...(resourceVersion !== undefined ? { resourceVersion } : {}),
  },
  spec: {},
});

async function readLease(c: AgentCluster, namespace: string): Promise<V1Lease | null> {
  try {
    return await c.clients.coordination.readNamespacedLease({ name: SLOTS_LEASE, namespace });
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
}

/** The nodes labelled as carrying the agent's taint. */
async function taintedNodes(c: AgentCluster, label: string): Promise<string[]> {
  const list = await c.clients.call({ verb: "list", resource: "nodes" }, () =>
    c.clients.core.listNode({ labelSelector: `${label}=true` }),
  );
  return list.items.map((n) => n.metadata?.name ?? "").filter((n) => n !== "");
}

/**
 * Writes `holders` over the Lease read at `read` (create when there was none). False when another agent wrote
 * first (409 Conflict / AlreadyExists): read again.
 */
async function writeHolders(c: AgentCluster, namespace: string, read: V1Lease | null, holders: Holders) {
  const req = { verb: read ? "update" : "create", resource: "leases", group: "coordination.k8s.io", namespace };
  return c.clients.call({ ...req, name: SLOTS_LEASE }, async () => {
    try {
      if (read) {
        const body = lease(namespace, holders, read.metadata?.resourceVersion);
        await c.clients.coordination.replaceNamespacedLease({ name: SLOTS_LEASE, namespace, body });
      } else {
        await c.clients.coordination.createNamespacedLease({ namespace, body: lease(namespace, holders) });
      }
      return true;
    } catch (err) {
      if (statusOf(err) === 409) return false;
      throw err;
    }
  });
}

const pause = () => new Promise((r) => setTimeout(r, Math.random() * 20));

/** Claims a taint slot for `node` within `budget`; when none is free, says why. */
export async function claimTaintSlot(
  c: AgentCluster,
  node: string,
  namespace: string,
  budget: number,
  label: string,
  now: Date,
): Promise<SlotClaim> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const read = await c.clients.call(
      { verb: "get", resource: "leases", group: "coordination.k8s.io", namespace, name: SLOTS_LEASE },
      () => readLease(c, namespace),
    );
    let holders = parseHolders(read?.metadata?.annotations?.[HOLDERS_ANNOTATION]);
    // A new Lease starts from the nodes that carry the taint already; a full one is checked against them once.
    if (read === null) holders = reconcileHolders(holders, await taintedNodes(c, label), now);
    let step = claimStep(holders, node, budget, now);
    if (step.kind === "full" && read !== null) {
      const fresh = reconcileHolders(holders, await taintedNodes(c, label), now);
      if (JSON.stringify(fresh) !== JSON.stringify(holders)) {
        holders = fresh;
        step = claimStep(holders, node, budget, now);
      }
    }
    if (step.kind === "have" && read !== null) return { ok: true };
    if (step.kind === "full") return { ok: false, why: step.why };
    const next = step.kind === "claim" ? step.next : holders;
    if (await writeHolders(c, namespace, read, next)) return { ok: true };
    await pause();
  }
  return {
    ok: false,
    why: `${MAX_ATTEMPTS} writes of the slot Lease lost to other agents' writes; trying again next run`,
  };
}

/** Gives back this node's slot (after its taint was removed). */
export async function releaseTaintSlot(c: AgentCluster, node: string, namespace: string): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const read = await c.clients.call(
      { verb: "get", resource: "leases", group: "coordination.k8s.io", namespace, name: SLOTS_LEASE },
      () => readLease(c, namespace),
    );
    if (read === null) return;
    const next = releaseStep(parseHolders(read.metadata?.annotations?.[HOLDERS_ANNOTATION]), node);
    if (next === null) return;
    if (await writeHolders(c, namespace, read, next)) return;
    await pause();
  }
}

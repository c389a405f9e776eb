/**
 * The fleet's nodes, listed a page at a time and kept only as the few facts `fleet verify` uses: 10,000 Node objects
 * of a real cluster (50 images and 150 labels each) are hundreds of megabytes parsed; their summaries are a few.
 * Paging is the API's `limit`/`continue` (https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks).
 */
import type { V1Node } from "@kubernetes/client-node";
import type { KubeClients } from "../api/client.js";
import { isRdmaGpuNode } from "./select.js";

/** Nodes per list page: the size kubectl uses (`--chunk-size` 500). */
export const NODE_PAGE = 500;

export type NodeSummary = {
  name: string;
  rdmaGpu: boolean;
  /** The kubelet's Ready condition as the API server holds it; null when the Node has none yet. */
  ready: { status: string; reason: string; message: string } | null;
  /** Cordoned (spec.unschedulable). */
  cordoned: boolean;
};

/** The facts of one Node. Pure. */
export function summariseNode(n: V1Node): NodeSummary {
  const ready = n.status?.conditions?.find((c) => c.type === "Ready");
  return {
    name: n.metadata?.name ?? "",
    rdmaGpu: isRdmaGpuNode(n),
    ready: ready ? { status: ready.status, reason: ready.reason ?? "", message: ready.message ?? "" } : null,
    cordoned: n.spec?.unschedulable === true,
  };
}

/** Lists the nodes (those `selector` picks), a page at a time, keeping each page's summaries only. */
export async function listNodeSummaries(clients: KubeClients, selector?: string): Promise<NodeSummary[]> {
  const out: NodeSummary[] = [];
  let cont: string | undefined;
  do {
    const page = await clients.call({ verb: "list", resource: "nodes" }, () =>
      clients.core.listNode({
        limit: NODE_PAGE,
        ...(selector ? { labelSelector: selector } : {}),
        ...(cont ? { _continue: cont } : {}),
      }),
    );
    for (const n of page.items) out.push(summariseNode(n));
    cont = page.metadata?._continue || undefined;
  } while (cont);
  return out;
}

/**
 * Why a node cannot be collected now, from what the API server already says, or null. A node whose kubelet is not
 * Ready would leave its collector Pending until the timeout; it is answered at once instead. A cordoned node is
 * still collected (the collector is pinned with spec.nodeName and tolerates every taint), so it is not one of these.
 */
export function notCollectable(n: NodeSummary): string | null {
  if (n.ready === null || n.ready.status === "True") return null;
  const why = [n.ready.reason, n.ready.message].filter((s) => s !== "").join(": ");
  return (
    `node not Ready (Ready=${n.ready.status}${why ? `, ${why}` : ""}): its kubelet would not start the collector; ` +
    `not collected. Check the node (kubectl describe node ${n.name})${n.cordoned ? "; it is also cordoned" : ""}`
  );
}

/**
 * The agent's reads and writes through the Kubernetes API: its own Node (status condition, taint), its own report
 * ConfigMap, Events on its Node, and the DaemonSet's desired count for the taint breaker. Nothing else: the RBAC in
 * deploy/ grants exactly these, and an admission policy keeps each agent to its own Node and report.
 */
import { PatchStrategy, setHeaderOptions, type V1Node, type V1Taint } from "@kubernetes/client-node";
import type { KubeClients } from "../kube/api/client.js";
import { statusOf } from "../kube/api/errors.js";
import type { NodeCondition } from "./condition.js";
import type { AgentEvent } from "./events.js";
import { type AgentPlan, type ClusterState, conditionOf, reportErrors } from "./plan.js";
import { REPORT_DATA_KEY, reportDigest, reportName } from "./report.js";
import { TAINT_EFFECT, TAINT_KEY } from "./taint.js";
import { parseReport } from "./validate.js";

/** Marks a node the agent tainted, so the breaker counts tainted nodes with one label-selected list. */
export const TAINTED_LABEL = "kube-rdma.io/rdma-tainted";
export const AGENT_ROLE = "kube-rdma-agent";

export type AgentCluster = { clients: KubeClients; daemonSet: string };

const isNotFound = (err: unknown) => statusOf(err) === 404;

async function readNode(c: AgentCluster, node: string): Promise<V1Node> {
  return c.clients.callFor({ verb: "get", resource: "nodes", name: node }, "Node", () =>
    c.clients.core.readNode({ name: node }),
  );
}

/** What the cluster holds of earlier runs. A report that is missing or unreadable means "no earlier run". */
export async function readClusterState(c: AgentCluster, node: string, namespace: string): Promise<ClusterState> {
  const n = await readNode(c, node);
  let previousErrors: ClusterState["previousErrors"];
  let lastReport: ClusterState["lastReport"];
  try {
    const cm = await c.clients.core.readNamespacedConfigMap({ name: reportName(node), namespace });
    const parsed = parseReport(cm.data?.[REPORT_DATA_KEY] ?? "");
    if (parsed.ok) {
      previousErrors = reportErrors(parsed.report);
      lastReport = { digest: reportDigest(parsed.report), generatedAt: parsed.report.generatedAt };
    }
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  return {
    condition: conditionOf(n.status?.conditions) as NodeCondition | undefined,
    previousErrors,
    lastReport,
    tainted: (n.spec?.taints ?? []).some((t) => t.key === TAINT_KEY),
    taintedNodes: 0,
    selectedNodes: 1,
  };
}

/** How many nodes the agent runs on (its DaemonSet's desired count): the taint budget is a share of these. */
export async function readSelectedNodes(c: AgentCluster, namespace: string): Promise<number> {
  try {
    const ds = await c.clients.call(
      { verb: "get", resource: "daemonsets", group: "apps", namespace, name: c.daemonSet },
      () => c.clients.apps.readNamespacedDaemonSet({ name: c.daemonSet, namespace }),
    );
    return Math.max(1, ds.status?.desiredNumberScheduled ?? 1);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return 1;
  }
}

/** Writes a plan: the condition (strategic merge by type: the kubelet's conditions stay), events, report, taint. */
export async function applyPlan(c: AgentCluster, plan: AgentPlan, now: Date): Promise<void> {
  const { clients } = c;
  const node = plan.node;
  if (plan.statusPatch) {
    await clients.callFor({ verb: "patch", resource: "nodes/status", name: node }, "Node", () =>
      clients.core.patchNodeStatus(
        { name: node, body: plan.statusPatch },
        setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
      ),
    );
  }
  const cm = plan.configMap;
  if (cm) {
    const ns = cm.metadata.namespace;
    const name = cm.metadata.name;
    await clients.callFor({ verb: "update", resource: "configmaps", namespace: ns, name }, "ConfigMap", async () => {
      try {
        return await clients.core.replaceNamespacedConfigMap({ name, namespace: ns, body: cm });
      } catch (err) {
        if (!isNotFound(err)) throw err;
        return await clients.core.createNamespacedConfigMap({ namespace: ns, body: cm });
      }
    });
  }
  for (const [i, e] of plan.events.entries()) await emitEvent(c, node, e, now, i);
  if (plan.taint && (plan.taint.action === "taint" || plan.taint.action === "untaint")) {
    await setTaint(c, node, plan.taint.action === "taint");
  }
}

async function emitEvent(c: AgentCluster, node: string, e: AgentEvent, now: Date, i: number): Promise<void> {
  // Node events live in the default namespace, as the kubelet's do.
  const body = {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `${node}.kube-rdma.${now.getTime().toString(16)}.${i}`, namespace: "default" },
    involvedObject: { apiVersion: "v1", kind: "Node", name: node, uid: node },
    reason: e.reason,
    message: e.message,
    type: e.type,
    source: { component: "kube-rdma-agent", host: node },
    reportingComponent: "kube-rdma.io/agent",
    reportingInstance: node,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
  await c.clients.callFor({ verb: "create", resource: "events", namespace: "default" }, "Event", () =>
    c.clients.core.createNamespacedEvent({ namespace: "default", body }),
  );
}

async function setTaint(c: AgentCluster, node: string, on: boolean): Promise<void> {
  const n = await readNode(c, node);
  const others = (n.spec?.taints ?? []).filter((t) => t.key !== TAINT_KEY);
  const taints: V1Taint[] = on ? [...others, { key: TAINT_KEY, effect: TAINT_EFFECT, value: "true" }] : others;
  // spec.taints has no merge key: the whole list is sent, guarded by the resourceVersion just read.
  const patch = {
    metadata: { resourceVersion: n.metadata?.resourceVersion, labels: { [TAINTED_LABEL]: on ? "true" : null } },
    spec: { taints },
  };
  await c.clients.callFor({ verb: "patch", resource: "nodes", name: node }, "Node", () =>
    c.clients.core.patchNode({ name: node, body: patch }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch)),
  );
}

import type { V1Pod } from "@kubernetes/client-node";
import { ALL_CRDS, classifyDaemonSet, classifyDeployment, selectorString } from "../cluster/components.js";
import type { ClusterObjects, CrdPresence } from "../cluster/types.js";
import type { KubeClients } from "./client.js";
import { statusOf } from "./errors.js";

/** ClusterRole with the read rights `cluster` needs (deploy/cluster/rbac.yaml). */
export const CLUSTER_READER_ROLE = "kube-rdma-cluster-reader";

/** One pass over the API: nodes, DaemonSets, Deployments, namespaces, the CRDs by name, and component pods. */
export async function readClusterObjects(clients: KubeClients): Promise<ClusterObjects> {
  const { core, apps, ext, call } = clients;
  const [nodes, daemonSets, deployments, namespaces] = await Promise.all([
    call({ verb: "list", resource: "nodes" }, () => core.listNode()),
    call({ verb: "list", resource: "daemonsets", group: "apps" }, () => apps.listDaemonSetForAllNamespaces()),
    call({ verb: "list", resource: "deployments", group: "apps" }, () => apps.listDeploymentForAllNamespaces()),
    call({ verb: "list", resource: "namespaces" }, () => core.listNamespace()),
  ]);
  const crds = await Promise.all(
    ALL_CRDS.map(async (name): Promise<CrdPresence> => {
      try {
        const crd = await ext.readCustomResourceDefinition({ name });
        return { name, present: true, versions: crd.spec.versions.filter((v) => v.served).map((v) => v.name) };
      } catch (err) {
        if (statusOf(err) === 404) return { name, present: false, versions: [] };
        return call({ verb: "get", resource: "customresourcedefinitions", group: "apiextensions.k8s.io", name }, () =>
          Promise.reject(err),
        );
      }
    }),
  );
  const owners = [
    ...daemonSets.items.filter((d) => classifyDaemonSet(d) !== null),
    ...deployments.items.filter((d) => classifyDeployment(d) !== null),
  ];
  const podLists = await Promise.all(
    owners.map((o) => {
      const namespace = o.metadata?.namespace ?? "default";
      const labelSelector = selectorString(o.spec?.selector.matchLabels);
      return call({ verb: "list", resource: "pods", namespace }, () =>
        core.listNamespacedPod({ namespace, ...(labelSelector ? { labelSelector } : {}) }),
      );
    }),
  );
  const seen = new Set<string>();
  const pods: V1Pod[] = [];
  for (const p of podLists.flatMap((l) => l.items)) {
    const key = `${p.metadata?.namespace}/${p.metadata?.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    pods.push(p);
  }
  return {
    nodes: nodes.items,
    daemonSets: daemonSets.items,
    deployments: deployments.items,
    pods,
    namespaces: namespaces.items,
    crds,
  };
}

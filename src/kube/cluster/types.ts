import type { V1DaemonSet, V1Deployment, V1Namespace, V1Node, V1Pod } from "@kubernetes/client-node";

/** A CRD asked for by name: present (with its served versions) or absent (404). */
export type CrdPresence = { name: string; present: boolean; versions: string[] };

/** Everything `cluster` reads in one pass over the API, as the API returns it. */
export type ClusterObjects = {
  nodes: V1Node[];
  daemonSets: V1DaemonSet[];
  deployments: V1Deployment[];
  /** Pods of the component DaemonSets and Deployments (read by their selectors). */
  pods: V1Pod[];
  namespaces: V1Namespace[];
  crds: CrdPresence[];
};

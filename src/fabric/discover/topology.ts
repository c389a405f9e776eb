/**
 * Which leaf switch each node hangs off, from what the cluster already says: Volcano HyperNode objects (the
 * lowest-tier HyperNode whose Node members match the node), else the first of the known node labels that every
 * node carries, else one shared leaf (no uplink can then be named). Pure.
 */

/** Node labels naming the lowest network tier, most specific first. `--leaf-label KEY` adds its own. */
export const LEAF_LABELS = [
  "network.topology/leaf",
  "network.topology.kubernetes.io/leaf",
  "topology.k8s.aws/network-node-layer-3",
  "cloud.google.com/gce-topology-subblock",
  "topology.kubernetes.io/rack",
] as const;

export type NodeFacts = { name: string; labels: Readonly<Record<string, string>> };

export type Topology = { leafOf: Map<string, string>; source: string };

export const UNKNOWN_LEAF = "fabric";

type Member = {
  type?: string;
  selector?: {
    exactMatch?: { name?: string };
    regexMatch?: { pattern?: string };
    labelMatch?: { matchLabels?: Record<string, string> };
  };
};
/** The fields of a `topology.volcano.sh/v1alpha1` HyperNode this reads. */
export type HyperNodeObject = { metadata?: { name?: string }; spec?: { tier?: number | string; members?: Member[] } };

function matches(m: Member, node: NodeFacts): boolean {
  if ((m.type ?? "Node") !== "Node") return false;
  const s = m.selector ?? {};
  if (s.exactMatch?.name !== undefined) return s.exactMatch.name === node.name;
  if (s.regexMatch?.pattern !== undefined) {
    try {
      return new RegExp(`^(?:${s.regexMatch.pattern})$`).test(node.name);
    } catch {
      return false;
    }
  }
  const want = s.labelMatch?.matchLabels;
  return want !== undefined && Object.entries(want).every(([k, v]) => node.labels[k] === v);
}

/** Leaves from HyperNodes: the lowest-tier HyperNode listing the node. Null when they do not cover every node. */
export function leavesFromHyperNodes(
  hyperNodes: readonly HyperNodeObject[],
  nodes: readonly NodeFacts[],
): Map<string, string> | null {
  const byTier = [...hyperNodes]
    .filter((h) => h.metadata?.name && Array.isArray(h.spec?.members))
    .sort((x, y) => Number(x.spec?.tier ?? 99) - Number(y.spec?.tier ?? 99));
  const leafOf = new Map<string, string>();
  for (const node of nodes) {
    const h = byTier.find((x) => x.spec!.members!.some((m) => matches(m, node)));
    if (!h) return null;
    leafOf.set(node.name, h.metadata!.name!);
  }
  return nodes.length ? leafOf : null;
}

export function discoverTopology(
  nodes: readonly NodeFacts[],
  opts: { hyperNodes?: readonly HyperNodeObject[]; leafLabel?: string } = {},
): Topology {
  if (opts.hyperNodes?.length) {
    const leafOf = leavesFromHyperNodes(opts.hyperNodes, nodes);
    if (leafOf) return { leafOf, source: "Volcano HyperNodes (lowest tier)" };
  }
  const keys = opts.leafLabel ? [opts.leafLabel] : LEAF_LABELS;
  for (const key of keys) {
    if (nodes.length && nodes.every((n) => n.labels[key])) {
      return { leafOf: new Map(nodes.map((n) => [n.name, n.labels[key]!])), source: `node label ${key}` };
    }
  }
  return {
    leafOf: new Map(nodes.map((n) => [n.name, UNKNOWN_LEAF])),
    source: `unknown (no HyperNodes, no ${keys.join(" / ")} label on every node): one leaf, uplinks not judged`,
  };
}

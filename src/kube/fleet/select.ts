import type { V1Node } from "@kubernetes/client-node";
import { naturalCompare } from "../../core/natural.js";
import { isGpuResource, isRdmaResource, pickResources } from "../resources.js";

/** Nodes with both a GPU resource and an RDMA resource in their capacity: the default fleet. */
export function isRdmaGpuNode(node: V1Node): boolean {
  const cap = node.status?.capacity;
  const any = (keep: (n: string) => boolean) => Object.values(pickResources(cap, keep)).some((v) => v > 0);
  return any(isGpuResource) && any(isRdmaResource);
}

export type NodeSelection = { nodes: string[]; missing: string[] };

/** What selection needs of a node: its name and whether it has both resources (node-list.ts summarises). */
export type SelectableNode = { name: string; rdmaGpu: boolean };

/** Picks the nodes to verify: the named ones (missing names reported), or every GPU+RDMA node. Pure. */
export function selectFleetNodes(
  all: readonly (V1Node | SelectableNode)[],
  names: string[],
  bySelector: boolean,
): NodeSelection {
  const facts = all.map((n) => ("rdmaGpu" in n ? n : { name: n.metadata?.name ?? "", rdmaGpu: isRdmaGpuNode(n) }));
  const have = new Set(facts.map((n) => n.name).filter(Boolean));
  if (names.length) {
    return { nodes: names.filter((n) => have.has(n)), missing: names.filter((n) => !have.has(n)) };
  }
  const picked = bySelector ? facts : facts.filter((n) => n.rdmaGpu);
  return {
    nodes: picked
      .map((n) => n.name)
      .filter(Boolean)
      .sort(naturalCompare),
    missing: [],
  };
}

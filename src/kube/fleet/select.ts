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

/** Picks the nodes to verify: the named ones (missing names reported), or every GPU+RDMA node. Pure. */
export function selectFleetNodes(all: V1Node[], names: string[], bySelector: boolean): NodeSelection {
  const have = all.map((n) => n.metadata?.name ?? "").filter(Boolean);
  if (names.length) {
    return { nodes: names.filter((n) => have.includes(n)), missing: names.filter((n) => !have.includes(n)) };
  }
  const picked = bySelector ? all : all.filter(isRdmaGpuNode);
  return {
    nodes: picked
      .map((n) => n.metadata?.name ?? "")
      .filter(Boolean)
      .sort(naturalCompare),
    missing: [],
  };
}

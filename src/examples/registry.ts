import type { Snapshot } from "../host/types.js";
import { EXAMPLE_ALIASES } from "./aliases.js";

export type Example = {
  name: string;
  description: string;
  /** Builds the example's snapshot (the same shape `kube-rdma collect` writes). */
  snapshot: () => Snapshot;
  /** The host read again a while later (`verify --watch`): what changed meanwhile. Absent: nothing changes. */
  later?: () => Snapshot;
};

const EXAMPLES: Example[] = [];

/** Registers an example host; called by the example modules at import. */
export function registerExample(e: Example): void {
  EXAMPLES.push(e);
}

export function listExamples(): readonly Example[] {
  return EXAMPLES;
}

/** The example of that name, or of the name it had before (EXAMPLE_ALIASES). */
export function findExample(name: string): Example | undefined {
  const current = EXAMPLE_ALIASES.get(name) ?? name;
  return EXAMPLES.find((e) => e.name === current);
}

import type { HostReader } from "../host/types.js";
import { buildInventory } from "./build.js";
import { readFacts } from "./read.js";
import type { NodeInventory } from "./types.js";

export { buildInventory } from "./build.js";
export type * from "./facts.js";
export { type GidRow, readGidTable, renderShowGids, SHOW_GIDS_HEADER } from "./gid-table.js";
export { readFacts, readPortGids } from "./read.js";
export { assignRoles } from "./roles.js";
export { pciDistance, splitPciPath } from "./topology.js";
export type * from "./types.js";

/** Reads a host, parses every fact and builds the node model. Read problems land in `inventory.problems`. */
export async function readInventory(
  reader: HostReader,
  opts: { commandTimeoutMs?: number } = {},
): Promise<NodeInventory> {
  return buildInventory(await readFacts(reader, opts));
}

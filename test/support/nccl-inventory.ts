/**
 * NodeInventory factories for NCCL tests. `seedInventory` is the checks' factory: the `a100-8x-roce` example
 * (mlx5_0 management on eth0 10.0.60.3, mlx5_1..8 data on eth1..8 at 25.11.128.{2,34,…,226}, GID 3 = RoCE v2 IPv4,
 * 8 GPUs on 4 PCIe switches with 2 NICs each); `exampleInventory` reads any other example host (e.g. `ib-8x-hdr`).
 * Each call returns a copy the test may change.
 */
import {
  gid,
  hcaOf,
  ipv4Gid as ipv4GidText,
  seedInventory as seed,
  setGids,
} from "../../src/checks/testing/seed-inventory.js";
import { openReader } from "../../src/host/open.js";
import { readInventory } from "../../src/inventory/index.js";
import type { GidEntry, Hca, NodeInventory } from "../../src/inventory/types.js";

export { setGids };

/** The seed node; `edit` may change anything (tests say what differs). */
export function seedInventory(edit?: (inv: NodeInventory) => void): NodeInventory {
  const inv = seed();
  edit?.(inv);
  return inv;
}

const examples = new Map<string, Promise<NodeInventory>>();

/** The inventory of the example host `name`, read once per test file; a fresh copy each call. */
export async function exampleInventory(name: string): Promise<NodeInventory> {
  let p = examples.get(name);
  if (!p) {
    p = openReader({ example: name }).then((r) => readInventory(r));
    examples.set(name, p);
  }
  return structuredClone(await p);
}

export function ipv4Gid(index: number, ip: string, version: "v1" | "v2", netdev: string): GidEntry {
  return gid(index, ipv4GidText(ip), version, netdev);
}

/** A copy of `from` as the RoCE LAG device `name` on `netdev`, its IPv4 GIDs (same slots) for `ip`. */
export function bondLike(from: Hca, name: string, netdev: string, ip: string): Hca {
  const h = structuredClone(from);
  Object.assign(h, { name, isBond: true, netdevs: [netdev], uverbs: [] });
  for (const port of h.ports) {
    setGids(
      port,
      port.gids.map((g) => (g.kind === "ipv4" ? { ...g, gid: ipv4GidText(ip), ipv4: ip, netdev } : { ...g, netdev })),
    );
  }
  return h;
}

export const findHca = hcaOf;

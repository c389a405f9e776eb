/**
 * Test factory: the A100 RoCE example node exactly as the embedded example `a100-8x-roce` describes it (8×A100-SXM4-80GB,
 * mlx5_0 on eth0 for management, mlx5_1..8 on eth1..8 at 25.11.128.x, GID indices 0–3 as in the reference setup's show_gids table).
 * The example is read once, the way `verify --example` reads it; each call hands out a deep copy that tests mutate,
 * so rules can be tested without reading a host. The GID helpers build the tables the examples do not have.
 */
import { ipv4Gid } from "../../examples/builder.js";
import { SEED_EXAMPLE } from "../../examples/catalog.js";
import { openReader } from "../../host/open.js";
import { readInventory } from "../../inventory/index.js";
import type { GidEntry, Gpu, Hca, NodeInventory, Port } from "../../inventory/types.js";

/** `25.11.128.2` → `0000:0000:0000:0000:0000:ffff:190b:8002` (sysfs spelling, as the examples write it). */
export { ipv4Gid };

const SEED: NodeInventory = await readInventory(await openReader({ example: SEED_EXAMPLE }));

/** A fresh seed node; mutate it freely. */
export function seedInventory(): NodeInventory {
  return structuredClone(SEED);
}

export function gid(index: number, value: string, version: "v1" | "v2", netdev: string | null): GidEntry {
  const ipv4 = /^0000:0000:0000:0000:0000:ffff:/.test(value)
    ? value
        .slice(30)
        .replace(":", "")
        .match(/../g)!
        .map((h) => Number.parseInt(h, 16))
        .join(".")
    : null;
  const kind = ipv4 ? "ipv4" : value.startsWith("fe80:") ? "link_local" : "ipv6_global";
  return { index, gid: value, kind, ipv4, type: version === "v2" ? "RoCE v2" : "IB/RoCE v1", version, netdev };
}

/** The example node's four slots of mlx5_`i` port 1: link-local v1/v2, IPv4 v1/v2 (a copy). */
export function seedGids(i: number): GidEntry[] {
  return structuredClone(portOf(SEED, `mlx5_${i}`).gids);
}

/** Replaces a port's GIDs and recomputes what the inventory derives from them. */
export function setGids(port: Port, gids: GidEntry[]): void {
  port.gids = [...gids].sort((a, b) => a.index - b.index);
  port.netdevs = [...new Set(port.gids.map((g) => g.netdev).filter((n): n is string => n !== null))];
  port.roceV2Ipv4Index = port.gids.find((g) => g.version === "v2" && g.kind === "ipv4")?.index ?? null;
  port.roceV2Ipv6Index = port.gids.find((g) => g.version === "v2" && g.kind === "ipv6_global")?.index ?? null;
}

export function hcaOf(inv: NodeInventory, name: string): Hca {
  const h = inv.hcas.find((x) => x.name === name);
  if (!h) throw new Error(`test factory: no HCA ${name}`);
  return h;
}

export function portOf(inv: NodeInventory, name: string, port = 1): Port {
  const p = hcaOf(inv, name).ports.find((x) => x.port === port);
  if (!p) throw new Error(`test factory: no port ${name}/${port}`);
  return p;
}

export function gpuOf(inv: NodeInventory, index: number): Gpu {
  const g = inv.gpus.find((x) => x.index === index);
  if (!g) throw new Error(`test factory: no GPU${index}`);
  return g;
}

/** Small views over the inventory shared by the rules. */
import { naturalCompare } from "../core/natural.js";
import type { Hca, NodeInventory, PhysState, Port, PortState } from "../inventory/types.js";

export type DataPort = { hca: Hca; port: Port };

type Views = { hcas: Hca[]; ports: DataPort[] };

/** Views computed once per runChecks call (every rule asks for the data ports); never outlives the call. */
const views = new WeakMap<NodeInventory, Views>();

function computeViews(inv: NodeInventory): Views {
  const data = inv.hcas.filter((h) => h.role === "data");
  const hcas = inOrder(data) ? data : data.sort((a, b) => naturalCompare(a.name, b.name));
  return { hcas, ports: hcas.flatMap((hca) => hca.ports.map((port) => ({ hca, port }))) };
}

/** Runs `fn` with the inventory's views computed once; the inventory must not change meanwhile. */
export function withViews<T>(inv: NodeInventory, fn: () => T): T {
  views.set(inv, computeViews(inv));
  try {
    return fn();
  } finally {
    views.delete(inv);
  }
}

/** Data HCAs in natural order (mlx5_2 before mlx5_10). */
export function dataHcas(inv: NodeInventory): Hca[] {
  return (views.get(inv) ?? computeViews(inv)).hcas;
}

function inOrder(hcas: readonly Hca[]): boolean {
  for (let i = 1; i < hcas.length; i++) if (naturalCompare(hcas[i - 1]!.name, hcas[i]!.name) > 0) return false;
  return true;
}

export function dataPorts(inv: NodeInventory): DataPort[] {
  return (views.get(inv) ?? computeViews(inv)).ports;
}

export function isRoce(port: Port): boolean {
  return port.linkLayer === "Ethernet";
}

export function isUp(port: Port): boolean {
  return port.state === "ACTIVE" && port.physState === "LinkUp";
}

/** `mlx5_5` for a single-port HCA (every example host), `mlx5_5/2` when the HCA has several ports. */
export function portSubject(hca: Hca, port: Port): string {
  return hca.ports.length > 1 ? `${hca.name}/${port.port}` : hca.name;
}

/** The port's netdev: named by its GIDs, else the netdev on the HCA's PCI function (a down port may lose its GIDs). */
export function netdevOf(inv: NodeInventory, hca: Hca, port: Port): string | null {
  return port.netdevs[0] ?? hca.netdevs[0] ?? inv.netdevs.find((n) => n.hca === hca.name)?.name ?? null;
}

/** `mlx5_5 port 1`: how messages name a port. */
export function portLabel(hca: Hca, port: Port): string {
  return `${hca.name} port ${port.port}`;
}

/** The evidence every port finding carries. */
export function portEvidence(inv: NodeInventory, { hca, port }: DataPort) {
  return {
    hca: hca.name,
    port: portLabel(hca, port),
    portNumber: port.port,
    netdev: netdevOf(inv, hca, port),
    linkLayer: port.linkLayer as string,
  };
}

const STATE_NUMBER: Record<PortState, string> = {
  NOP: "0: NOP",
  DOWN: "1: DOWN",
  INIT: "2: INIT",
  ARMED: "3: ARMED",
  ACTIVE: "4: ACTIVE",
  ACTIVE_DEFER: "5: ACTIVE_DEFER",
  UNKNOWN: "unknown",
};

const PHYS_NUMBER: Record<PhysState, string> = {
  Sleep: "1: Sleep",
  Polling: "2: Polling",
  Disabled: "3: Disabled",
  PortConfigurationTraining: "4: PortConfigurationTraining",
  LinkUp: "5: LinkUp",
  LinkErrorRecovery: "6: LinkErrorRecovery",
  PhyTest: "7: Phy Test",
  UNKNOWN: "unknown",
};

/** The sysfs spelling: `1: DOWN`. */
export function stateText(s: PortState): string {
  return STATE_NUMBER[s];
}

export function physStateText(s: PhysState): string {
  return PHYS_NUMBER[s];
}

/**
 * Groups items by a key and returns the groups largest first; ties are broken by `prefer` (smaller first).
 * The first group is the node's usual value, the others are the odd ones out.
 */
export function groupsByCount<T, K>(items: readonly T[], key: (t: T) => K, prefer: (a: K, b: K) => number): [K, T[]][] {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const g = groups.get(k);
    if (g) g.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.entries()].sort((a, b) => b[1].length - a[1].length || prefer(a[0], b[0]));
}

/**
 * Compacts names in natural order into ranges: `mlx5_1..mlx5_4, mlx5_6..mlx5_8`, `eth1..eth8`.
 * Names without a trailing number are listed as they are.
 */
export function compactNames(names: readonly string[]): string {
  const sorted = [...new Set(names)].sort(naturalCompare);
  const parts: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    const start = splitTrailingNumber(sorted[i]!);
    let j = i;
    while (j + 1 < sorted.length) {
      const next = splitTrailingNumber(sorted[j + 1]!);
      const cur = splitTrailingNumber(sorted[j]!);
      if (!start || !next || !cur || next.prefix !== start.prefix || next.n !== cur.n + 1) break;
      j++;
    }
    if (j - i >= 2) parts.push(`${sorted[i]}..${sorted[j]}`);
    else for (let k = i; k <= j; k++) parts.push(sorted[k]!);
    i = j + 1;
  }
  return parts.join(", ");
}

function splitTrailingNumber(name: string): { prefix: string; n: number } | null {
  const m = /^(.*?)(\d+)$/.exec(name);
  return m ? { prefix: m[1]!, n: Number(m[2]) } : null;
}

/** `64 MiB`, `1 GiB`, `1.5 GiB`, `512 B`. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  const text = Number.isInteger(v) ? String(v) : v.toFixed(1).replace(/\.0$/, "");
  return `${text} ${units[u]}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

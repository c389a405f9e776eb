/**
 * Where the switches send a flow. Each leaf and each spine hashes the flow's 5-tuple (source and destination
 * address, protocol, source and destination UDP port) with its own salt and takes that hash modulo its number of
 * equal-cost next hops (hash-threshold ECMP, RFC 2992). RoCE v2 has a fixed destination port, so the source port
 * (chosen from the QP by the NIC, or set by the test) is what spreads flows. Pure; imports only the fabric model.
 */
import {
  type Flow,
  type FlowPath,
  leafId,
  type RailFabric,
  ROCE_V2_PORT,
  railId,
  spinePortId,
  spinePortOf,
  uplinkId,
} from "../model.js";

/** FNV-1a, 32 bits (Fowler–Noll–Vo): a switch-like hash that mixes every byte of the tuple. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // Final avalanche (murmur3's fmix32): low bits of a plain FNV of similar tuples are too alike for a modulo.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

const tuple = (f: Flow) => `${f.src}/${f.rail}|${f.dst}/${f.rail}|17|${f.sport}|${ROCE_V2_PORT}`;

export type Router = {
  /** The directed links a flow crosses, in order. */
  links(f: Flow): string[];
  /** The leaf uplink and spine port a flow crosses (null for both inside one unit). */
  path(f: Flow): FlowPath;
};

export const txLink = (node: string, rail: number) => `tx ${railId(node, rail)}`;
export const rxLink = (node: string, rail: number) => `rx ${railId(node, rail)}`;
export const upLink = (uplink: string) => `up ${uplink}`;
export const downLink = (spinePort: string) => `down ${spinePort}`;

export function createRouter(f: RailFabric, unitOf: ReadonlyMap<string, number>, salt: number): Router {
  const hops = (fl: Flow) => {
    const u = unitOf.get(fl.src)!;
    const v = unitOf.get(fl.dst)!;
    if (u === v) return null;
    const t = tuple(fl);
    const j = fnv1a(`${salt}|${leafId(u, fl.rail)}|${t}`) % f.uplinksPerLeaf;
    const spine = j % f.spines;
    // The spine's equal-cost next hops to the far leaf: that leaf's uplinks that land on this spine.
    const cables = Math.floor((f.uplinksPerLeaf - 1 - spine) / f.spines) + 1;
    const down = spine + (fnv1a(`${salt}|spine${spine}|${t}`) % cables) * f.spines;
    const p = spinePortOf(f, v, fl.rail, down);
    return { uplink: uplinkId(u, fl.rail, j), spinePort: spinePortId(p.spine, p.port) };
  };
  return {
    links(fl) {
      const h = hops(fl);
      const ends = [txLink(fl.src, fl.rail), rxLink(fl.dst, fl.rail)];
      return h ? [ends[0]!, upLink(h.uplink), downLink(h.spinePort), ends[1]!] : ends;
    },
    path: (fl) => hops(fl) ?? { uplink: null, spinePort: null },
  };
}

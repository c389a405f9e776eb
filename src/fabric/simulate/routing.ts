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

const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a (Fowler–Noll–Vo), 32 bits, continued from state `h` over `text`. */
function fnvUpdate(h: number, text: string): number {
  let x = h;
  for (let i = 0; i < text.length; i++) {
    x ^= text.charCodeAt(i);
    x = Math.imul(x, 0x01000193) >>> 0;
  }
  return x;
}

/** Final avalanche (murmur3's fmix32): low bits of a plain FNV of similar tuples are too alike for a modulo. */
function fmix(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b) >>> 0;
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/** A switch-like hash that mixes every byte of the text. */
export const fnv1a = (text: string) => fmix(fnvUpdate(FNV_OFFSET, text));

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

/**
 * `hiddenSeeds`: leaves (unit × rails + rail) that hash with a seed of their own, unlike what a hash calculator
 * configured with the fabric's seed assumes (a switch replaced, re-seeded, or of another model).
 */
export function createRouter(
  f: RailFabric,
  unitOf: ReadonlyMap<string, number>,
  salt: number,
  hiddenSeeds: ReadonlyMap<number, number> = new Map(),
): Router {
  const U = f.uplinksPerLeaf;
  const leaves = f.units * f.rails;
  // Identifiers by index, made once: a sweep traces hundreds of thousands of flows.
  const upIds = Array.from({ length: leaves * U }, (_, i) =>
    uplinkId(Math.floor(i / U / f.rails), Math.floor(i / U) % f.rails, i % U),
  );
  const portIds = Array.from({ length: leaves * U }, (_, i) => {
    const leaf = Math.floor(i / U);
    const p = spinePortOf(f, Math.floor(leaf / f.rails), leaf % f.rails, i % U);
    return spinePortId(p.spine, p.port);
  });
  const spineSalt = Array.from({ length: f.spines }, (_, s) => `|spine${s}`);
  // The tuple's fixed part (addresses, protocol) hashed once per src/dst/rail; each source port continues from it.
  const prefixes = new Map<string, { state: number; u: number; v: number; leafSalt: string }>();
  let last: { src: string; dst: string; rail: number; p: ReturnType<typeof prefixOf> } | null = null;
  const cachedPrefix = (fl: Flow) => {
    // Steering traces one flow with many source ports in a row: keep the last prefix at hand.
    if (last && last.src === fl.src && last.dst === fl.dst && last.rail === fl.rail) return last.p;
    last = { src: fl.src, dst: fl.dst, rail: fl.rail, p: prefixOf(fl) };
    return last.p;
  };
  function prefixOf(fl: Flow) {
    const key = `${fl.src}|${fl.dst}|${fl.rail}`;
    let p = prefixes.get(key);
    if (!p) {
      const u = unitOf.get(fl.src)!;
      const v = unitOf.get(fl.dst)!;
      const state = fnvUpdate(FNV_OFFSET, `${salt}|${fl.src}/${fl.rail}|${fl.dst}/${fl.rail}|17|`);
      const hidden = hiddenSeeds.get(u * f.rails + fl.rail);
      p = { state, u, v, leafSalt: `|${leafId(u, fl.rail)}${hidden === undefined ? "" : `|${hidden}`}` };
      prefixes.set(key, p);
    }
    return p;
  }
  const hops = (fl: Flow) => {
    const p = cachedPrefix(fl);
    if (p.u === p.v) return null;
    const t = fnvUpdate(p.state, `${fl.sport}|${ROCE_V2_PORT}`);
    const j = fmix(fnvUpdate(t, p.leafSalt)) % U;
    const spine = j % f.spines;
    // The spine's equal-cost next hops to the far leaf: that leaf's uplinks that land on this spine.
    const cables = Math.floor((U - 1 - spine) / f.spines) + 1;
    const down = spine + (fmix(fnvUpdate(t, spineSalt[spine]!)) % cables) * f.spines;
    return {
      uplink: upIds[(p.u * f.rails + fl.rail) * U + j]!,
      spinePort: portIds[(p.v * f.rails + fl.rail) * U + down]!,
    };
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

/** A router whose paths something else decides (the switches' forwarding tables): links from each flow's hops. */
export function routerFrom(path: (f: Flow) => FlowPath): Router {
  return {
    links(fl) {
      const h = path(fl);
      const ends = [txLink(fl.src, fl.rail), rxLink(fl.dst, fl.rail)];
      return h.uplink && h.spinePort ? [ends[0]!, upLink(h.uplink), downLink(h.spinePort), ends[1]!] : ends;
    },
    path,
  };
}

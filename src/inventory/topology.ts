/**
 * GPU↔NIC distance from resolved sysfs PCI paths (tech-spec §2.2–2.3): different root complexes → SYS across NUMA
 * nodes, NODE within one (NCCL sees NODE as PHB); same root complex meeting only at the host bridge → PHB; below a
 * shared switch → PIX; through a chain of switches → PXB. Pure.
 */
import type { NcclDistance, NvsmiDistance } from "./types.js";

/** A PCI function address as sysfs names it: `0000:55:00.0`. */
export const BDF = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

export type PciPlace = { path: string; numaNode: number | null };

const isLowerHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);

/** `s[from, from + n)` is lower-case hex. */
function hexRun(s: string, from: number, n: number): boolean {
  for (let i = from; i < from + n; i++) if (!isLowerHex(s.charCodeAt(i))) return false;
  return true;
}

/** `path.slice(from, to)` is a root complex's name, `pci0000:4e` (what /^pci[0-9a-f]{4}:[0-9a-f]{2}$/ accepts). */
function isRootAt(path: string, from: number, to: number): boolean {
  return (
    to - from === 10 &&
    path.startsWith("pci", from) &&
    hexRun(path, from + 3, 4) &&
    path.charCodeAt(from + 7) === 58 &&
    hexRun(path, from + 8, 2)
  );
}

/** `path.slice(from, to)` is a PCI function's address, `0000:55:00.0` (what BDF accepts). */
function isBdfAt(path: string, from: number, to: number): boolean {
  if (to - from !== 12) return false;
  const fn = path.charCodeAt(from + 11);
  return (
    hexRun(path, from, 4) &&
    path.charCodeAt(from + 4) === 58 &&
    hexRun(path, from + 5, 2) &&
    path.charCodeAt(from + 7) === 58 &&
    hexRun(path, from + 8, 2) &&
    path.charCodeAt(from + 10) === 46 &&
    fn >= 48 &&
    fn <= 55
  );
}

/**
 * `/sys/devices/pci0000:4e/0000:4e:02.0/…/0000:55:00.0` → root `pci0000:4e` and the BDF chain down to the device
 * (the components after the root that are PCI addresses). One pass over the path, no component sliced but those
 * kept: every node's GPU↔NIC matrix, bridge list and ACS pairs split these paths.
 */
export function splitPciPath(path: string): { root: string; chain: string[] } | null {
  let root: string | null = null;
  const chain: string[] = [];
  for (let from = 0; from <= path.length; ) {
    let to = path.indexOf("/", from);
    if (to < 0) to = path.length;
    if (to > from) {
      if (root === null) {
        if (isRootAt(path, from, to)) root = path.slice(from, to);
      } else if (isBdfAt(path, from, to)) chain.push(path.slice(from, to));
    }
    from = to + 1;
  }
  return root === null || chain.length === 0 ? null : { root, chain };
}

/** splitPciPath with a memo, for the GPU × HCA matrix (each path split once, not once per pair). */
export function memoSplitPciPath(): typeof splitPciPath {
  const memo = new Map<string, ReturnType<typeof splitPciPath>>();
  return (path) => {
    let r = memo.get(path);
    if (r === undefined) {
      r = splitPciPath(path);
      memo.set(path, r);
    }
    return r;
  };
}

export function pciDistance(
  a: PciPlace,
  b: PciPlace,
  split: typeof splitPciPath = splitPciPath,
): { nvsmi: NvsmiDistance; nccl: NcclDistance } | null {
  const pa = split(a.path);
  const pb = split(b.path);
  if (!pa || !pb) return null;
  if (pa.root !== pb.root) {
    const sameNuma = a.numaNode !== null && a.numaNode === b.numaNode;
    return sameNuma ? { nvsmi: "NODE", nccl: "PHB" } : { nvsmi: "SYS", nccl: "SYS" };
  }
  // Bridges above each device (the device itself excluded).
  const ua = pa.chain.slice(0, -1);
  const ub = pb.chain.slice(0, -1);
  let common = 0;
  while (common < ua.length && common < ub.length && ua[common] === ub[common]) common++;
  if (common === 0) return { nvsmi: "PHB", nccl: "PHB" };
  // Under one switch the path crosses two of its ports (downstream A → downstream B): at most one bridge = PIX.
  const hops = ua.length - common + (ub.length - common);
  return hops <= 2 ? { nvsmi: "PIX", nccl: "PIX" } : { nvsmi: "PXB", nccl: "PXB" };
}

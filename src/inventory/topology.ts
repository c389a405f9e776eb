/**
 * GPU↔NIC distance from resolved sysfs PCI paths (tech-spec §2.2–2.3): different root complexes → SYS across NUMA
 * nodes, NODE within one (NCCL sees NODE as PHB); same root complex meeting only at the host bridge → PHB; below a
 * shared switch → PIX; through a chain of switches → PXB. Pure.
 */
import type { NcclDistance, NvsmiDistance } from "./types.js";

/** A PCI function address as sysfs names it: `0000:55:00.0`. */
export const BDF = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

export type PciPlace = { path: string; numaNode: number | null };

/** `/sys/devices/pci0000:4e/0000:4e:02.0/…/0000:55:00.0` → root `pci0000:4e` and the BDF chain down to the device. */
export function splitPciPath(path: string): { root: string; chain: string[] } | null {
  const parts = path.split("/").filter(Boolean);
  const rootAt = parts.findIndex((p) => /^pci[0-9a-f]{4}:[0-9a-f]{2}$/.test(p));
  if (rootAt < 0) return null;
  const chain = parts.slice(rootAt + 1).filter((p) => BDF.test(p));
  if (chain.length === 0) return null;
  return { root: parts[rootAt]!, chain };
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

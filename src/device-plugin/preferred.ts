/**
 * GetPreferredAllocation for exclusive mode (pure): when a container asks for k HCAs, prefer a set that sits
 * together — the same NUMA node, and under the same PCIe switch where possible — and that sits with the HCAs the
 * kubelet must include. Closeness of two HCAs = same NUMA node (dominant) + length of the common PCIe path prefix
 * (two NICs behind one switch share the switch's ports in their sysfs device path).
 */
import { naturalCompare } from "../core/natural.js";

export type PlacedHca = { name: string; numaNode: number | null; pciPath: string | null };

function pciComponents(path: string | null): string[] {
  return path
    ? path.split("/").filter((c) => /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]$/i.test(c) || c.startsWith("pci"))
    : [];
}

/** Higher is closer. Same NUMA node outweighs any PCIe path; the common PCIe path prefix ranks within a node. */
export function closeness(a: PlacedHca, b: PlacedHca): number {
  const sameNuma = a.numaNode !== null && a.numaNode === b.numaNode ? 1000 : 0;
  const pa = pciComponents(a.pciPath);
  const pb = pciComponents(b.pciPath);
  let common = 0;
  // The last component is the NIC function itself; sharing everything above it means the same switch port.
  while (common < Math.min(pa.length, pb.length) - 1 && pa[common] === pb[common]) common++;
  return sameNuma + common;
}

function score(set: readonly PlacedHca[]): number {
  let s = 0;
  for (let i = 0; i < set.length; i++) for (let j = i + 1; j < set.length; j++) s += closeness(set[i]!, set[j]!);
  return s;
}

function grow(start: PlacedHca[], pool: readonly PlacedHca[], size: number): PlacedHca[] {
  const chosen = [...start];
  const left = pool.filter((p) => !chosen.some((c) => c.name === p.name));
  while (chosen.length < size && left.length > 0) {
    let best = 0;
    let bestGain = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < left.length; i++) {
      const gain = chosen.reduce((g, c) => g + closeness(c, left[i]!), 0);
      if (gain > bestGain) {
        bestGain = gain;
        best = i;
      }
    }
    chosen.push(left.splice(best, 1)[0]!);
  }
  return chosen;
}

/**
 * The preferred device IDs for one container request. Only IDs this plugin serves (`known`) are weighed; unknown
 * IDs (the kubelet never offers them; a confused or hostile client might, by the thousand) are placed last, in the
 * order given, with no affinity and no search, so the work is bounded by the plugin's own HCAs whatever is asked.
 * The answer always contains every must-include ID and at most `size` IDs.
 */
export function preferAllocation(
  known: readonly PlacedHca[],
  available: readonly string[],
  mustInclude: readonly string[],
  size: number,
): string[] {
  const byName = new Map(known.map((h) => [h.name, h]));
  const place = (id: string): PlacedHca => byName.get(id) ?? { name: id, numaNode: null, pciPath: null };
  const must = [...new Set(mustInclude)].map(place);
  if (size <= must.length) return must.map((m) => m.name);
  const taken = new Set(must.map((m) => m.name));
  const offered = new Set(available);
  const pool = known.filter((h) => offered.has(h.name)).sort((a, b) => naturalCompare(a.name, b.name));
  const want = Math.min(size, must.length + pool.length);
  let best: PlacedHca[] = grow(must, pool, want);
  if (must.length === 0) {
    for (const seed of pool) {
      const candidate = grow([seed], pool, want);
      if (score(candidate) > score(best)) best = candidate;
    }
  }
  const out = best.map((h) => h.name);
  for (const h of best) taken.add(h.name);
  // Still short: unknown IDs, first come first placed, until the size is reached.
  for (const id of offered) {
    if (out.length >= size) break;
    if (!taken.has(id) && !byName.has(id)) {
      taken.add(id);
      out.push(id);
    }
  }
  return out;
}

/**
 * NICs that never connect. A job over a NIC whose port is down fails (NCCL cannot set up the connection), so the
 * whole-pair test says nothing about which NIC; the rail-by-rail re-test does: the one rail whose test fails while
 * the node's other rails run. The NIC is named on its node when the partner is proven on that rail elsewhere (a
 * whole-pair test or a rail test on that HCA that ran), so the partner's port is not the one down. Pure.
 */
import type { FabricView, JobResult } from "../types.js";

export type DownNic = { node: string; hca: string; partner: string; job: string; reason: string };

/** Nodes proven to connect on each HCA: a whole-pair test that gave rows (every HCA), or that HCA's rail test. */
function provenOn(view: FabricView, results: readonly JobResult[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (node: string, hca: string) => out.set(node, (out.get(node) ?? new Set()).add(hca));
  for (const r of results) {
    if (!r.ok) continue;
    for (const t of r.tests) {
      if (t.failed || t.rows.length === 0) continue;
      for (const n of r.job.nodes) for (const h of t.hca === null ? view.hcas : [t.hca]) add(n, h);
    }
  }
  return out;
}

export function downNics(view: FabricView, results: readonly JobResult[]): DownNic[] {
  const proven = provenOn(view, results);
  const found = new Map<string, DownNic>();
  for (const r of results) {
    if (!r.ok) continue;
    for (const t of r.tests) {
      if (!t.failed || t.hca === null) continue;
      const [a, b] = r.job.nodes;
      const okA = proven.get(a)?.has(t.hca) ?? false;
      const okB = proven.get(b)?.has(t.hca) ?? false;
      // Exactly one end proven on this HCA: the other end's port is the one that does not come up.
      if (okA === okB) continue;
      const [node, partner] = okA ? [b, a] : [a, b];
      found.set(`${node}/${t.hca}`, { node, hca: t.hca, partner, job: r.job.id, reason: t.failed });
    }
  }
  return [...found.values()].sort((x, y) => `${x.node}/${x.hca}`.localeCompare(`${y.node}/${y.hca}`));
}

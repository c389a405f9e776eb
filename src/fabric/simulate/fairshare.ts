/**
 * Max-min fair rates by progressive filling (Bertsekas & Gallager, "Data Networks", 2nd ed., §6.5.2): every flow's
 * rate rises together until some link is full; the flows crossing it are frozen at that rate; the others keep
 * rising. What congestion control converges to on a lossless fabric when flows share a bottleneck (DCQCN aims at it:
 * Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015). Pure.
 */

/** Links a flow crosses (directed: a full-duplex cable is two links). */
export type FlowLinks = readonly string[];

/** Rate of each flow, in the unit of `capacity`. A flow crossing no link gets 0. */
export function maxMinRates(flows: readonly FlowLinks[], capacity: (link: string) => number): number[] {
  const rates = new Array<number>(flows.length).fill(0);
  const onLink = new Map<string, number[]>();
  flows.forEach((links, i) => {
    for (const l of links) {
      const list = onLink.get(l);
      if (list) list.push(i);
      else onLink.set(l, [i]);
    }
  });
  const left = new Map([...onLink.keys()].map((l) => [l, Math.max(0, capacity(l))]));
  const active = new Map([...onLink].map(([l, fs]) => [l, fs.length]));
  const frozen = flows.map((links) => links.length === 0);
  const eps = 1e-9;
  for (;;) {
    let step = Number.POSITIVE_INFINITY;
    for (const [l, n] of active) if (n > 0) step = Math.min(step, left.get(l)! / n);
    if (!Number.isFinite(step)) return rates;
    for (const [l, n] of active) if (n > 0) left.set(l, left.get(l)! - step * n);
    flows.forEach((_, i) => {
      if (!frozen[i]) rates[i]! += step;
    });
    for (const [l, n] of active) {
      if (n === 0 || left.get(l)! > eps) continue;
      for (const i of onLink.get(l)!) {
        if (frozen[i]) continue;
        frozen[i] = true;
        for (const other of flows[i]!) active.set(other, active.get(other)! - 1);
      }
    }
  }
}

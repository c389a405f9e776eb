/**
 * Max-min fair rates by progressive filling (Bertsekas & Gallager, "Data Networks", 2nd ed., §6.5.2): every flow's
 * rate rises together until some link is full; the flows crossing it are frozen at that rate; the others keep
 * rising. What congestion control converges to on a lossless fabric when flows share a bottleneck (DCQCN aims at it:
 * Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015). Pure.
 *
 * Water level `t` is the rate of every flow not yet frozen. A link with capacity c, `used` by its frozen flows and
 * `n` unfrozen ones fills at t = (c − used) / n; a heap keyed on that level takes the next link to fill, so the
 * work is about (flows × hops) log(links) however many distinct levels there are.
 */

/** Links a flow crosses (directed: a full-duplex cable is two links). */
export type FlowLinks = readonly string[];

/** A binary min-heap of (level, link) with stale entries skipped on pop. */
function heap() {
  const keys: number[] = [];
  const vals: number[] = [];
  const swap = (i: number, j: number) => {
    [keys[i], keys[j]] = [keys[j]!, keys[i]!];
    [vals[i], vals[j]] = [vals[j]!, vals[i]!];
  };
  return {
    size: () => keys.length,
    push(k: number, v: number) {
      keys.push(k);
      vals.push(v);
      let i = keys.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (keys[p]! <= keys[i]!) break;
        swap(i, p);
        i = p;
      }
    },
    pop(): [number, number] {
      const top: [number, number] = [keys[0]!, vals[0]!];
      const lastK = keys.pop()!;
      const lastV = vals.pop()!;
      if (keys.length > 0) {
        keys[0] = lastK;
        vals[0] = lastV;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < keys.length && keys[l]! < keys[m]!) m = l;
          if (r < keys.length && keys[r]! < keys[m]!) m = r;
          if (m === i) break;
          swap(i, m);
          i = m;
        }
      }
      return top;
    },
  };
}

/** Rate of each flow, in the unit of `capacity`. A flow crossing no link gets 0. */
export function maxMinRates(flows: readonly FlowLinks[], capacity: (link: string) => number): number[] {
  const rates = new Array<number>(flows.length).fill(0);
  const index = new Map<string, number>();
  const onLink: number[][] = [];
  const flowLinks: number[][] = flows.map((links) =>
    links.map((l) => {
      let i = index.get(l);
      if (i === undefined) {
        i = onLink.length;
        index.set(l, i);
        onLink.push([]);
      }
      return i;
    }),
  );
  flowLinks.forEach((ls, f) => {
    for (const l of ls) onLink[l]!.push(f);
  });
  const cap = new Array<number>(onLink.length);
  for (const [name, i] of index) cap[i] = Math.max(0, capacity(name));
  const used = new Array<number>(onLink.length).fill(0);
  const active = onLink.map((fs) => fs.length);
  const frozen = flowLinks.map((ls) => ls.length === 0);
  const level = (l: number) => (cap[l]! - used[l]!) / active[l]!;
  const h = heap();
  for (let l = 0; l < onLink.length; l++) h.push(level(l), l);
  while (h.size() > 0) {
    const [t, l] = h.pop();
    if (active[l] === 0 || Math.abs(level(l) - t) > 1e-12 * Math.max(1, Math.abs(t))) continue;
    for (const f of onLink[l]!) {
      if (frozen[f]) continue;
      frozen[f] = true;
      rates[f] = Math.max(0, t);
      for (const other of flowLinks[f]!) {
        used[other]! += rates[f]!;
        active[other]!--;
        if (other !== l && active[other]! > 0) h.push(level(other), other);
      }
    }
  }
  return rates;
}

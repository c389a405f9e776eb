/** Natural order: mlx5_2 before mlx5_10, eth9 before eth10. */
export function naturalCompare(a: string, b: string): number {
  const ax = a.match(/\d+|\D+/g) ?? [];
  const bx = b.match(/\d+|\D+/g) ?? [];
  const n = Math.min(ax.length, bx.length);
  for (let i = 0; i < n; i++) {
    const x = ax[i]!;
    const y = bx[i]!;
    if (x === y) continue;
    const xd = /^\d/.test(x);
    const yd = /^\d/.test(y);
    if (xd && yd) {
      const d = Number(x) - Number(y);
      if (d !== 0) return d;
      return x.length - y.length;
    }
    return x < y ? -1 : 1;
  }
  return ax.length - bx.length;
}

export function naturalSort<T>(items: readonly T[], key: (t: T) => string): T[] {
  return [...items].sort((a, b) => naturalCompare(key(a), key(b)));
}

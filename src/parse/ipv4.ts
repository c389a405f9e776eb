/** IPv4 addresses and CIDR blocks as numbers. Pure. */

/** `25.11.128.2` → its 32-bit value; null when it is not a dotted IPv4 address. */
export function ipv4ToInt(a: string): number | null {
  const parts = a.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    const v = Number(p);
    if (!/^\d{1,3}$/.test(p) || v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

export function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
}

/** The network address of `ip` in a block of `bits` prefix bits (`25.11.128.34`, 27 → `25.11.128.32`). */
export function networkOf(ip: string, bits: number): string | null {
  const n = ipv4ToInt(ip);
  if (n === null) return null;
  const size = 2 ** (32 - bits);
  return intToIpv4(Math.floor(n / size) * size);
}

/** The prefix length of a netmask as a number (0xFFFFFFE0 → 27); null when its ones are not a prefix. */
export function maskPrefix(mask: number): number | null {
  const host = ~mask >>> 0; // the host part: 2^k − 1 when the mask is contiguous
  return (host & (host + 1)) === 0 ? Math.clz32(host) : null;
}

/** First and last address of `a.b.c.d/n` as numbers; null when it is not such a block. */
export function cidrRange(cidr: string): { first: number; last: number } | null {
  const [net, bitsText] = cidr.split("/");
  const bits = Number(bitsText);
  const start = ipv4ToInt(net ?? "");
  if (start === null || !Number.isInteger(bits) || bits < 0 || bits > 32) return null;
  const size = 2 ** (32 - bits);
  const first = Math.floor(start / size) * size;
  return { first, last: first + size - 1 };
}

/** Whether the block `a.b.c.d/n` holds the address `ip`. */
export function cidrHolds(cidr: string, ip: string): boolean {
  const r = cidrRange(cidr);
  const n = ipv4ToInt(ip);
  return r !== null && n !== null && n >= r.first && n <= r.last;
}

/** The smallest CIDR block containing every address (`25.11.128.0/24`); null without valid addresses. */
export function coveringCidr(addresses: readonly string[]): string | null {
  const ints = addresses.map(ipv4ToInt).filter((n): n is number => n !== null);
  if (ints.length === 0) return null;
  let prefix = 32;
  const first = ints[0]!;
  for (const n of ints) {
    while (prefix > 0 && Math.floor(n / 2 ** (32 - prefix)) !== Math.floor(first / 2 ** (32 - prefix))) prefix--;
  }
  const block = 2 ** (32 - prefix);
  return `${intToIpv4(Math.floor(first / block) * block)}/${prefix}`;
}

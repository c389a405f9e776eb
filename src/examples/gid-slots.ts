/**
 * GID slots as the kernel shows them in the example hosts: the sysfs GID forms of IPv4, IPv6 and link-local
 * addresses, the usual RoCE table layout, and one slot written into a port's gids/ and gid_attrs/.
 */
import type { GidSlot, NicSpec } from "./builder.js";
import type { HostTree } from "./tree.js";

export const ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000";
export const hex2 = (n: number) => n.toString(16).padStart(2, "0");
export const hex4 = (n: number) => n.toString(16).padStart(4, "0");

/** `25.11.128.2` → `0000:0000:0000:0000:0000:ffff:190b:8002`. */
export function ipv4Gid(ip: string): string {
  const b = ip.split(".").map(Number);
  return `0000:0000:0000:0000:0000:ffff:${hex2(b[0]!)}${hex2(b[1]!)}:${hex2(b[2]!)}${hex2(b[3]!)}`;
}

/** Expands an IPv6 address to the 8×4 sysfs form. */
export function ipv6Gid(ip: string): string {
  const [head = "", tail = ""] = ip.includes("::") ? ip.split("::") : [ip, ""];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  return groups.map((g) => g.padStart(4, "0").toLowerCase()).join(":");
}

export function linkLocalGid(interfaceId: string): string {
  return `fe80:0000:0000:0000:${interfaceId}`;
}

/** MAC of an EUI-64 interface id (`eaeb:d3ff:fecc:c920` → `e8:eb:d3:cc:c9:20`). */
export function macOf(interfaceId: string): string {
  const h = interfaceId.replace(/:/g, "");
  const bytes = [h.slice(0, 2), h.slice(2, 4), h.slice(4, 6), h.slice(10, 12), h.slice(12, 14), h.slice(14, 16)];
  bytes[0] = hex2(Number.parseInt(bytes[0]!, 16) ^ 0x02);
  return bytes.join(":");
}

/** The usual RoCE table: each address twice (v1, v2), link-local first, then IPv4s, then IPv6s. */
export function defaultGidSlots(nic: NicSpec): GidSlot[] {
  if (nic.linkLayer === "InfiniBand") {
    return [{ index: 0, gid: linkLocalGid(nic.interfaceId), type: "IB/RoCE v1", ndev: null }];
  }
  const gids = [linkLocalGid(nic.interfaceId), ...nic.ipv4.map(ipv4Gid), ...nic.ipv6.map(ipv6Gid)];
  return gids.flatMap((gid, i) => [
    { index: 2 * i, gid, type: "IB/RoCE v1" as const, ndev: nic.netdev },
    { index: 2 * i + 1, gid, type: "RoCE v2" as const, ndev: nic.netdev },
  ]);
}

/** Writes one GID slot: configured, or empty (all-zero GID, attributes fail with EINVAL). */
export function writeGidSlot(t: HostTree, portDir: string, index: number, slot: GidSlot | null): void {
  t.file(`${portDir}/gids/${index}`, `${slot ? slot.gid : ZERO_GID}\n`);
  const types = `${portDir}/gid_attrs/types/${index}`;
  const ndevs = `${portDir}/gid_attrs/ndevs/${index}`;
  if (slot) t.file(types, `${slot.type}\n`);
  else t.error(types, "EINVAL");
  if (slot?.ndev) t.file(ndevs, `${slot.ndev}\n`);
  else t.error(ndevs, "EINVAL");
}

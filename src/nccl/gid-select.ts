import type { Finding } from "../core/finding.js";
import { makeFinding } from "../core/finding.js";
import type { Port } from "../inventory/types.js";
import { compressGid, expandGid } from "../parse/gid-text.js";
import { cidrRange, coveringCidr, intToIpv4 } from "../parse/ipv4.js";
import { NCCL_ENV_FINDINGS as F } from "./catalogue.js";
import type { DataPort } from "./data-ports.js";
import { formatNcclVersion, hasGidAutoSelect, type NcclVersion } from "./version.js";

export type EnvEntry = { name: string; value: string; reason: string };

/** The GID variables for the selected data ports (tech-spec §1.3, §3): a pinned index, a family/range, or nothing. */
export function selectGid(
  ports: readonly DataPort[],
  version: NcclVersion | null,
): { entries: EnvEntry[]; findings: Finding[] } {
  const roce = ports.filter((p) => p.port.linkLayer === "Ethernet");
  if (roce.length === 0) {
    return ports.length > 0
      ? { entries: [], findings: [makeFinding(F, "NCCL_GID_NOT_NEEDED", "node", {} as Record<string, never>)] }
      : { entries: [], findings: [] };
  }
  if (roce.every((p) => p.ipv4 === null && p.ipv6Gid !== null)) return selectIpv6Gid(roce, version);
  const { indices, usual, uniform } = indexLayout(roce, (p) => p.roceV2Ipv4Index);
  if (uniform && usual !== null) return pinnedIndex(usual, roce.length, version);

  const odd = [...indices].filter(([, i]) => i !== usual).map(([h]) => h);
  const record = Object.fromEntries(indices);
  if (version !== null && !hasGidAutoSelect(version)) {
    const v = formatNcclVersion(version);
    return { entries: [], findings: [makeFinding(F, "NCCL_GID_NO_CHOICE", "node", { version: v, odd })] };
  }
  const evidence = { odd, usual, indices: record };
  const severity = version === null ? "warning" : "info";
  const finding = makeFinding(F, "NCCL_GID_NOT_UNIFORM", odd.join(","), evidence, severity);
  const differs = odd.map((h) => `${h} has its RoCE v2 IPv4 GID at index ${record[h]}`).join(", ");
  const needs =
    version === null
      ? "; requires NCCL ≥ 2.21 (older releases ignore it and use GID index 0 — pass --nccl-version)"
      : "";
  const entries: EnvEntry[] = [
    {
      name: "NCCL_IB_ADDR_FAMILY",
      value: "AF_INET",
      reason:
        `${differs}${usual === null ? "" : `, the other data HCAs at ${usual}`}: no single NCCL_IB_GID_INDEX fits, ` +
        `so NCCL picks on each HCA the RoCE v2 GID whose address is IPv4${needs}`,
    },
  ];
  const range = ipv4Range(roce);
  if (range) entries.push({ name: "NCCL_IB_ADDR_RANGE", value: range.cidr, reason: `${range.why}${needs}` });
  return { entries, findings: [finding] };
}

function pinnedIndex(
  index: number,
  count: number,
  version: NcclVersion | null,
): { entries: EnvEntry[]; findings: Finding[] } {
  if (hasGidAutoSelect(version)) {
    const v = formatNcclVersion(version!);
    return { entries: [], findings: [makeFinding(F, "NCCL_GID_AUTO", "node", { version: v, index })] };
  }
  const all = count === 1 ? "the data HCA" : `all ${count} data HCAs`;
  const why =
    version === null
      ? "pinned because NCCL before 2.21 uses index 0 (RoCE v1, link-local) by default; the NCCL version is unknown, so the variable is chosen to work on every release (--nccl-version X.Y tailors it)"
      : `pinned because NCCL ${formatNcclVersion(version)} uses index 0 (RoCE v1, link-local) by default`;
  return {
    entries: [
      {
        name: "NCCL_IB_GID_INDEX",
        value: String(index),
        reason: `RoCE v2 IPv4 GID is at index ${index} on ${all}; ${why}`,
      },
    ],
    findings: [],
  };
}

/** Where each port has its RoCE v2 GID of one kind: by token, the index most share, whether all share it. */
function indexLayout(
  roce: readonly DataPort[],
  indexOf: (p: Port) => number | null,
): { indices: Map<string, number>; usual: number | null; uniform: boolean } {
  const indices = new Map<string, number>();
  for (const p of roce) {
    const i = indexOf(p.port);
    if (i !== null) indices.set(p.token, i);
  }
  const groups = groupByValue(indices);
  const usual = majority(groups);
  return { indices, usual, uniform: groups.size === 1 && usual !== null };
}

function groupByValue(m: ReadonlyMap<string, number>): Map<number, string[]> {
  const g = new Map<number, string[]>();
  for (const [k, v] of m) g.set(v, [...(g.get(v) ?? []), k]);
  return g;
}

/** The index most HCAs share (lowest on a tie); null when none has one. */
function majority(groups: ReadonlyMap<number, string[]>): number | null {
  let best: number | null = null;
  let size = 0;
  for (const [i, hs] of [...groups].sort((a, b) => a[0] - b[0])) {
    if (hs.length > size) {
      best = i;
      size = hs.length;
    }
  }
  return best;
}

/** `fd00:0010:…` (any IPv6 text) → its 128-bit value; null when it is not an IPv6 address. */
function ipv6ToBigInt(a: string): bigint | null {
  const full = expandGid(a);
  return full === null ? null : BigInt(`0x${full.replaceAll(":", "")}`);
}

/**
 * The smallest IPv6 CIDR block containing every address (`fd00:10::/60`, RFC 5952 text): the prefix is the longest
 * one all addresses share, the host bits are zero. Null without valid addresses. The IPv6 twin of `coveringCidr`.
 */
export function coveringCidr6(addresses: readonly string[], maxPrefix = 128): string | null {
  const values = addresses.map(ipv6ToBigInt).filter((n): n is bigint => n !== null);
  const first = values[0];
  if (first === undefined) return null;
  let differing = 0n;
  for (const n of values) differing |= n ^ first;
  const hostBits = Math.max(differing === 0n ? 0 : differing.toString(2).length, 128 - maxPrefix);
  const network = (first >> BigInt(hostBits)) << BigInt(hostBits);
  const groups = network.toString(16).padStart(32, "0").match(/.{4}/g)!.join(":");
  return `${compressGid(groups)}/${128 - hostBits}`;
}

/**
 * NCCL_IB_ADDR_RANGE for IPv4. The variables are often copied to every node of a job, so the range must hold the
 * other nodes' addresses too: the smallest block holding the data ports' connected subnets (rails are subnets shared
 * by the nodes), or — when a port's subnet is not known (no route) — the smallest block of the addresses themselves.
 */
function ipv4Range(roce: readonly DataPort[]): { cidr: string; why: string } | null {
  const withIp = roce.filter((p) => p.ipv4 !== null);
  if (withIp.length === 0) return null;
  if (withIp.every((p) => p.ipv4Subnet !== null)) {
    const subnets = [...new Set(withIp.map((p) => p.ipv4Subnet!))];
    const ends = subnets.flatMap((c) => {
      const r = cidrRange(c);
      return r ? [intToIpv4(r.first), intToIpv4(r.last)] : [];
    });
    const cidr = coveringCidr(ends)!;
    const shown = shortList(subnets);
    return {
      cidr,
      why: `the smallest range holding the data HCAs' subnets (${shown}, from the routes), so the same value fits every node on those rails and no address outside them on those ports (a VLAN, a second IP) is chosen`,
    };
  }
  const cidr = coveringCidr(withIp.map((p) => p.ipv4!))!;
  return {
    cidr,
    why:
      `the smallest range holding every data HCA's RoCE address (${summariseAddresses(roce, (p) => p.ipv4)}; their subnets are not in the routes), ` +
      "so no other address on those ports is chosen — other nodes' addresses must fall in it too, widen it if they do not",
  };
}

/** The prefix of an IPv6 subnet (a LAN): NCCL_IB_ADDR_RANGE is never narrower. */
const IPV6_SUBNET_BITS = 64;

/** `a, b, c`, or `a, b, … z` past three items. */
function shortList(items: readonly string[]): string {
  return items.length > 3 ? `${items.slice(0, 2).join(", ")}, … ${items[items.length - 1]}` : items.join(", ");
}

function summariseAddresses(ports: readonly DataPort[], addressOf: (p: DataPort) => string | null): string {
  return shortList(
    ports.flatMap((p) => {
      const a = addressOf(p);
      return a ? [`${p.token} ${a}`] : [];
    }),
  );
}

/**
 * An IPv6-only RoCE fabric (no data port has an IPv4 RoCE v2 GID): NCCL ≥ 2.21 must be told AF_INET6, since its
 * auto-selection looks for IPv4 by default, and is given the smallest IPv6 range holding the data ports' addresses
 * (NCCL parses NCCL_IB_ADDR_RANGE in the NCCL_IB_ADDR_FAMILY family and matches its prefix bit by bit over the whole
 * GID); older NCCL needs the index pinned, which works only when it is uniform.
 */
function selectIpv6Gid(
  roce: readonly DataPort[],
  version: NcclVersion | null,
): { entries: EnvEntry[]; findings: Finding[] } {
  const { indices, usual, uniform } = indexLayout(roce, (p) => p.roceV2Ipv6Index);
  const entries: EnvEntry[] = [];
  const findings: Finding[] = [];
  const auto = version !== null && hasGidAutoSelect(version);
  if (!auto) {
    if (uniform) {
      entries.push({
        name: "NCCL_IB_GID_INDEX",
        value: String(usual),
        reason: `no data HCA has an IPv4 address: the RoCE v2 global IPv6 GID is at index ${usual} on ${roce.length === 1 ? "the data HCA" : `all ${roce.length} data HCAs`}; pinned because NCCL before 2.21 uses index 0 (RoCE v1, link-local) by default`,
      });
    } else if (version !== null) {
      const odd = [...indices].filter(([, i]) => i !== usual).map(([h]) => h);
      findings.push(makeFinding(F, "NCCL_GID_NO_CHOICE", "node", { version: formatNcclVersion(version), odd }));
    }
  }
  if (version === null || auto) {
    const pinned = entries.some((e) => e.name === "NCCL_IB_GID_INDEX");
    const ignored =
      version !== null
        ? ""
        : pinned
          ? " (older releases ignore this variable, as does any release while NCCL_IB_GID_INDEX is set)"
          : " (older releases ignore this variable)";
    entries.push({
      name: "NCCL_IB_ADDR_FAMILY",
      value: "AF_INET6",
      reason:
        "no data HCA has an IPv4 address, only global IPv6 RoCE v2 GIDs: NCCL ≥ 2.21 picks an IPv4 GID by default " +
        `and would fall back to a link-local one${ignored}`,
    });
    // An IPv6 LAN is a /64 (RFC 4291): never narrower, so the value copied to the other nodes of a job holds theirs.
    const cidr = coveringCidr6(
      roce.map((p) => p.ipv6Gid).filter((a): a is string => a !== null),
      IPV6_SUBNET_BITS,
    );
    if (cidr) {
      const shown = summariseAddresses(roce, (p) => p.ipv6Gid && compressGid(p.ipv6Gid));
      entries.push({
        name: "NCCL_IB_ADDR_RANGE",
        value: cidr,
        reason: `the smallest IPv6 range, at most a /64 (one LAN), holding every data HCA's RoCE v2 address (${shown}), so the value fits the other nodes on those subnets and no global address outside it on those ports (a second prefix, a VLAN) is chosen${ignored}`,
      });
    }
  }
  return { entries, findings };
}

/**
 * Data NICs that share an IPv4 subnet: each must answer ARP only for its own address, announce its own address, not
 * drop replies by strict reverse-path filtering, and route its own source address out of itself (a per-rail `ip
 * rule`). Rails on subnets of their own need none of it and are not judged.
 */
import type { Finding } from "../core/finding.js";
import type { NodeInventory } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import { compactNames, dataPorts, isRoce } from "./select.js";
import type { Check } from "./types.js";

type DataIf = { netdev: string; hca: string; ips: string[]; subnet: string };

/** Data RoCE netdevs with their IPv4 addresses (from the RoCE GIDs) and connected subnet, grouped by subnet. */
function sharedSubnets(inv: NodeInventory): DataIf[][] {
  const subnetOf = new Map(inv.netdevs.map((n) => [n.name, n.ipv4Subnets]));
  const byNetdev = new Map<string, DataIf>();
  for (const { hca, port } of dataPorts(inv)) {
    if (!isRoce(port)) continue;
    for (const g of port.gids) {
      if (!g.ipv4 || !g.netdev) continue;
      const subnet = subnetOf.get(g.netdev)?.[0];
      if (!subnet) continue;
      const d = byNetdev.get(g.netdev) ?? { netdev: g.netdev, hca: hca.name, ips: [], subnet };
      if (!d.ips.includes(g.ipv4)) d.ips.push(g.ipv4);
      byNetdev.set(g.netdev, d);
    }
  }
  const groups = new Map<string, DataIf[]>();
  for (const d of byNetdev.values()) groups.set(d.subnet, [...(groups.get(d.subnet) ?? []), d]);
  return [...groups.values()].filter((g) => g.length > 1);
}

function sysctlProblems(s: { arpIgnore: number | null; arpAnnounce: number | null; rpFilter: number | null }) {
  const out: string[] = [];
  if (s.arpIgnore === 0) out.push("arp_ignore is 0 (it answers ARP for every local address)");
  if (s.arpAnnounce === 0) out.push("arp_announce is 0 (it may source ARP from another NIC's address)");
  if (s.rpFilter === 1) out.push("rp_filter is 1 (strict: replies arriving on another NIC of the subnet are dropped)");
  return out;
}

export const multiNicArpCheck: Check = {
  name: "multi-nic-arp",
  codes: ["MULTI_NIC_ARP", "MULTI_NIC_NO_SOURCE_ROUTE", "CHECK_SKIPPED"],
  run(inv) {
    if (!inv.netConf) return [];
    const groups = sharedSubnets(inv);
    if (groups.length === 0) return [];
    const nc = inv.netConf;
    const out: Finding[] = [];
    const unread: string[] = [];
    const unrouted: Finding[] = [];
    for (const group of groups) {
      for (const d of group) {
        const others = compactNames(group.filter((o) => o !== d).map((o) => o.netdev));
        const s = nc.sysctls[d.netdev];
        if (!s || s.arpIgnore === null || s.arpAnnounce === null || s.rpFilter === null) unread.push(d.netdev);
        const problems = s ? sysctlProblems(s) : [];
        if (problems.length > 0) {
          out.push(
            finding("MULTI_NIC_ARP", d.netdev, { netdev: d.netdev, hca: d.hca, subnet: d.subnet, others, problems }),
          );
        }
        if (nc.ipRules === null) continue;
        for (const ip of d.ips) {
          const routed = nc.ipRules.some(
            (r) =>
              (r.from === ip || r.from === `${ip}/32`) &&
              r.table !== null &&
              !["main", "local", "default"].includes(r.table),
          );
          if (!routed) {
            unrouted.push(
              finding("MULTI_NIC_NO_SOURCE_ROUTE", d.netdev, { netdev: d.netdev, ip, subnet: d.subnet, others }),
            );
          }
        }
      }
    }
    out.push(...unrouted);
    const shared = compactNames(groups.flat().map((d) => d.netdev));
    if (unread.length > 0) {
      out.push(
        finding("CHECK_SKIPPED", "net.ipv4.conf", {
          checks: `ARP and reverse-path settings of ${compactNames(unread)} (data NICs sharing a subnet)`,
          why: "/proc/sys/net/ipv4/conf/{all,IF}/{arp_ignore,arp_announce,rp_filter} could not be read",
          fix: `Read them on the node: \`sysctl net.ipv4.conf.all net.ipv4.conf.${unread[0]} | grep -E 'arp_ignore|arp_announce|rp_filter'\` (arp_ignore 1, arp_announce 2, rp_filter 0 or 2 for NICs sharing a subnet).`,
        }),
      );
    }
    if (nc.ipRules === null) {
      out.push(
        finding("CHECK_SKIPPED", "ip rule", {
          checks: `Per-rail source routing of ${shared} (data NICs sharing a subnet)`,
          why: `\`ip -4 rule show\` could not be read: ${nc.ipRuleError ?? "no answer"}`,
          fix: "Run `ip -4 rule show` on the node: each data NIC's address needs a `from <IP> lookup <its table>` rule, and `ip route get <peer> from <IP>` must leave through that NIC.",
        }),
      );
    }
    return out;
  },
};

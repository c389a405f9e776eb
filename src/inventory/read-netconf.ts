/**
 * Reads what the multi-NIC ARP and routing check needs: the IPv4 ARP and reverse-path switches of every netdev and
 * of `all` (/proc/sys/net/ipv4/conf/IF/{arp_ignore,arp_announce,rp_filter}), and `ip -4 rule show`.
 */
import { readIn } from "../host/reads.js";
import type { HostReader } from "../host/types.js";
import type { NetConfFacts } from "./facts.js";

const CONF = "/proc/sys/net/ipv4/conf";
export const NET_SYSCTLS = ["arp_ignore", "arp_announce", "rp_filter"] as const;

export async function readNetConf(
  reader: HostReader,
  netdevs: readonly string[],
  timeout: { timeoutMs?: number },
): Promise<NetConfFacts> {
  const rules = reader.run("ip", ["-4", "rule", "show"], timeout);
  const conf = ["all", ...netdevs].map((name) => ({ name, values: readIn(reader, `${CONF}/${name}`, NET_SYSCTLS) }));
  return { conf, ipRule: await rules };
}

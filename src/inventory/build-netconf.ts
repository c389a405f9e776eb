/**
 * The multi-NIC ARP and routing part of the node model. Each switch's effective value is the larger of
 * conf/all and conf/IF, as the kernel applies arp_ignore, arp_announce and rp_filter
 * (https://docs.kernel.org/networking/ip-sysctl.html). Pure.
 */
import { NOT_RECORDED } from "../host/errors.js";
import { type IpRule, parseIpRule } from "../parse/ip-rule.js";
import type { Fact, NetConfFacts } from "./facts.js";
import type { Reading } from "./reading.js";
import type { NetConf, NetSysctls } from "./types.js";

function intOf(f: Fact | undefined): number | null {
  if (!f?.ok) return null;
  const t = f.value.trim();
  return /^\d+$/.test(t) ? Number(t) : null;
}

const maxOf = (a: number | null, b: number | null) => (a === null || b === null ? null : Math.max(a, b));

export function buildNetConf(rd: Reading, facts: NetConfFacts | undefined): { netConf?: NetConf } {
  if (!facts) return {};
  const raw = new Map(facts.conf.map((c) => [c.name, c.values.map(intOf)]));
  const all = raw.get("all") ?? [null, null, null];
  const effective: Record<string, NetSysctls> = {};
  for (const [name, v] of raw) {
    if (name === "all") continue;
    effective[name] = {
      arpIgnore: maxOf(all[0] ?? null, v[0] ?? null),
      arpAnnounce: maxOf(all[1] ?? null, v[1] ?? null),
      rpFilter: maxOf(all[2] ?? null, v[2] ?? null),
    };
  }
  return { netConf: { sysctls: effective, ...ipRulesOf(rd, facts.ipRule) } };
}

function ipRulesOf(rd: Reading, o: NetConfFacts["ipRule"]): { ipRules: IpRule[] | null; ipRuleError: string | null } {
  if (o.error?.code === NOT_RECORDED) return { ipRules: null, ipRuleError: "this snapshot has no record of it" };
  if (o.error) return { ipRules: null, ipRuleError: o.error.message };
  if (o.exitCode !== 0) {
    const said = (o.stderr.trim() || o.stdout.trim()).split("\n")[0] ?? "";
    return { ipRules: null, ipRuleError: `exited with ${o.exitCode}${said ? `: ${said.slice(0, 200)}` : ""}` };
  }
  const parsed = rd.parsed(parseIpRule(o.stdout), o.command);
  return parsed
    ? { ipRules: parsed, ipRuleError: null }
    : { ipRules: null, ipRuleError: "its output could not be read" };
}

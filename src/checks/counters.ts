/** Error counters on data ports: link-level (PMA) and RoCE transport (hw_counters). */
import type { Finding } from "../core/finding.js";
import { finding } from "./catalogue.js";
import { dataPorts, isRoce, portEvidence, portSubject } from "./select.js";
import type { Check } from "./types.js";

/** IB PortCounters that mean a bad link (tech-spec §1.4). */
export const LINK_ERROR_COUNTERS = [
  "symbol_error",
  "link_downed",
  "port_rcv_errors",
  "link_error_recovery",
  "local_link_integrity_errors",
  "excessive_buffer_overrun_errors",
] as const;

/** mlx5 hw_counters that mean loss and retransmission on RoCE (tech-spec §1.5). */
export const ROCE_ERROR_COUNTERS = [
  "out_of_sequence",
  "packet_seq_err",
  "local_ack_timeout_err",
  "implied_nak_seq_err",
  "req_transport_retries_exceeded",
] as const;

function nonZero(values: Record<string, number>, names: readonly string[]): Record<string, number> | null {
  const hits = names.filter((n) => (values[n] ?? 0) > 0);
  return hits.length ? Object.fromEntries(hits.map((n) => [n, values[n]!])) : null;
}

/** How much each counter grew since `before` (a counter that went back was reset: it counts from zero). */
export function counterGrowth(
  before: Record<string, number> | undefined,
  after: Record<string, number>,
): Record<string, number> {
  if (before === undefined) return {};
  const out: Record<string, number> = {};
  for (const [name, v] of Object.entries(after)) {
    const old = before[name];
    if (old === undefined) continue;
    out[name] = v >= old ? v - old : v;
  }
  return out;
}

export const countersCheck: Check = {
  name: "error-counters",
  codes: ["PORT_ERROR_COUNTERS", "ROCE_COUNTERS"],
  run(inv, opts) {
    const out: Finding[] = [];
    const earlier = opts.countersSinceEarlier ? opts.earlier?.inventory : undefined;
    const portBefore = (hca: string, port: number) =>
      earlier?.hcas.find((h) => h.name === hca)?.ports.find((p) => p.port === port);
    for (const dp of dataPorts(inv)) {
      const subject = portSubject(dp.hca, dp.port);
      const old = earlier ? portBefore(dp.hca.name, dp.port.port) : undefined;
      const counters = earlier ? counterGrowth(old?.counters, dp.port.counters) : dp.port.counters;
      const hw = earlier ? counterGrowth(old?.hwCounters, dp.port.hwCounters) : dp.port.hwCounters;
      const link = nonZero(counters, LINK_ERROR_COUNTERS);
      const since = earlier && opts.earlier ? { sinceSeconds: opts.earlier.seconds } : {};
      if (link)
        out.push(finding("PORT_ERROR_COUNTERS", subject, { ...portEvidence(inv, dp), counters: link, ...since }));
      const roce = isRoce(dp.port) ? nonZero(hw, ROCE_ERROR_COUNTERS) : null;
      if (roce) out.push(finding("ROCE_COUNTERS", subject, { ...portEvidence(inv, dp), counters: roce, ...since }));
    }
    return out;
  },
};

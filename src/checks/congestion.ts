/**
 * Receive-side drops and congestion on the data ports, from the mlx5 hw_counters: `out_of_buffer` (packets dropped
 * because no receive buffer was posted) and the DCQCN counters (`np_ecn_marked_roce_packets`, `np_cnp_sent`,
 * `rp_cnp_handled`). With an earlier reading (`verify --watch`) each is judged by its growth and rate, otherwise by
 * its total since the counters were last cleared.
 */
import type { Finding } from "../core/finding.js";
import { finding } from "./catalogue.js";
import { counterGrowth } from "./counters.js";
import { dataPorts, isRoce, portEvidence, portSubject } from "./select.js";
import type { Check } from "./types.js";

/** The DCQCN counters: the receiver saw ECN marks and sent CNPs; the sender handled CNPs and slowed down. */
export const CONGESTION_COUNTERS = ["np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled"] as const;

function perSecond(counters: Record<string, number>, seconds: number): string {
  return Object.entries(counters)
    .map(([k, v]) => `${k} ${(v / seconds).toFixed(v / seconds >= 10 ? 0 : 1)}/s`)
    .join(", ");
}

export const congestionCheck: Check = {
  name: "congestion-counters",
  codes: ["RX_OUT_OF_BUFFER", "ROCE_CONGESTION_SEEN"],
  run(inv, opts) {
    const out: Finding[] = [];
    // Drops follow the error counters (totals, or growth for the node agent); the DCQCN counters are judged by their
    // rate whenever an earlier reading exists (`verify --watch`): a total since boot says little about today.
    const dropsSince = opts.countersSinceEarlier ? opts.earlier : undefined;
    const rateSince = opts.earlier;
    for (const dp of dataPorts(inv)) {
      const subject = portSubject(dp.hca, dp.port);
      const hwSince = (earlier: typeof rateSince) => {
        if (!earlier) return dp.port.hwCounters;
        const old = earlier.inventory.hcas
          .find((h) => h.name === dp.hca.name)
          ?.ports.find((p) => p.port === dp.port.port);
        return counterGrowth(old?.hwCounters, dp.port.hwCounters);
      };
      const drops = hwSince(dropsSince).out_of_buffer ?? 0;
      if (drops > 0) {
        const since = dropsSince ? { sinceSeconds: dropsSince.seconds } : {};
        out.push(finding("RX_OUT_OF_BUFFER", subject, { ...portEvidence(inv, dp), drops, ...since }));
      }
      if (!isRoce(dp.port)) continue;
      const hw = hwSince(rateSince);
      const seen = Object.fromEntries(CONGESTION_COUNTERS.filter((n) => (hw[n] ?? 0) > 0).map((n) => [n, hw[n]!]));
      if (Object.keys(seen).length === 0) continue;
      const rate =
        rateSince && rateSince.seconds > 0
          ? { sinceSeconds: rateSince.seconds, perSecond: perSecond(seen, rateSince.seconds) }
          : {};
      out.push(finding("ROCE_CONGESTION_SEEN", subject, { ...portEvidence(inv, dp), counters: seen, ...rate }));
    }
    return out;
  },
};

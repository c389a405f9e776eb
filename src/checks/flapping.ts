/** Link flaps between two readings of a node: `link_downed` / `link_error_recovery` moved in the interval. */
import type { Finding } from "../core/finding.js";
import type { NodeInventory } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import { dataPorts, netdevOf, portSubject } from "./select.js";
import type { Check } from "./types.js";

const FLAP_COUNTERS = ["link_downed", "link_error_recovery"] as const;

/** How much each flap counter grew (a counter that went back, reset in between, counts from zero). */
function grew(before: number | undefined, after: number | undefined): number | null {
  if (after === undefined) return null;
  if (before === undefined || after < before) return before === undefined ? null : after;
  return after - before;
}

/**
 * PORT_FLAPPING for every data port whose flap counters moved between `before` and `after` (read `seconds`
 * apart); CHECK_SKIPPED when the ports expose no such counters.
 */
export function flapFindings(before: NodeInventory, after: NodeInventory, seconds: number): Finding[] {
  const out: Finding[] = [];
  const blind: string[] = [];
  const earlier = new Map(before.hcas.map((h) => [h.name, h]));
  for (const dp of dataPorts(after)) {
    const old = earlier.get(dp.hca.name)?.ports.find((p) => p.port === dp.port.port);
    const [downed, recovery] = FLAP_COUNTERS.map((c) => grew(old?.counters[c], dp.port.counters[c]));
    if (downed === null && recovery === null) {
      blind.push(portSubject(dp.hca, dp.port));
      continue;
    }
    if (!downed && !recovery) continue;
    out.push(
      finding("PORT_FLAPPING", portSubject(dp.hca, dp.port), {
        hca: dp.hca.name,
        netdev: netdevOf(after, dp.hca, dp.port),
        seconds,
        linkDowned: downed ?? 0,
        linkErrorRecovery: recovery ?? 0,
      }),
    );
  }
  if (blind.length > 0) {
    out.push(
      finding("CHECK_SKIPPED", "port-flapping", {
        checks: "link flap",
        why: `${blind.join(", ")} expose(s) no link_downed / link_error_recovery counters in both readings`,
        fix: "Check that /sys/class/infiniband/HCA/ports/N/counters is readable (the host's /sys mounted, the RDMA driver loaded).",
      }),
    );
  }
  return out;
}

export const flapCheck: Check = {
  name: "port-flapping",
  codes: ["PORT_FLAPPING", "CHECK_SKIPPED"],
  run(inv, opts) {
    return opts.earlier ? flapFindings(opts.earlier.inventory, inv, opts.earlier.seconds) : [];
  },
};

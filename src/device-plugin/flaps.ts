/**
 * Link flaps between two health polls (pure): a port whose `link_downed` or `link_error_recovery` grew since the
 * last poll flapped in between, even when both polls saw it ACTIVE. The plugin logs PORT_FLAPPING (the verify
 * finding's words) and counts it; it does not mark the HCA unhealthy for a flap it has already recovered from.
 */

import { CATALOGUE } from "../checks/catalogue.js";
import { type Finding, makeFinding } from "../core/finding.js";
import type { HcaReading } from "./sysfs.js";

const grew = (before: number | null | undefined, after: number | null): number =>
  before === null || before === undefined || after === null ? 0 : Math.max(0, after - before);

/** PORT_FLAPPING for each port of `now` whose flap counters grew since `before` (`seconds` earlier). */
export function flapsBetween(before: HcaReading | undefined, now: HcaReading, seconds: number): Finding[] {
  if (!before) return [];
  const out: Finding[] = [];
  for (const p of now.ports) {
    const old = before.ports.find((q) => q.port === p.port);
    const linkDowned = grew(old?.linkDowned, p.linkDowned);
    const linkErrorRecovery = grew(old?.linkErrorRecovery, p.linkErrorRecovery);
    if (linkDowned === 0 && linkErrorRecovery === 0) continue;
    const subject = now.ports.length > 1 ? `${now.hca}/${p.port}` : now.hca;
    out.push(
      makeFinding(CATALOGUE, "PORT_FLAPPING", subject, {
        hca: now.hca,
        netdev: null,
        seconds,
        linkDowned,
        linkErrorRecovery,
      }),
    );
  }
  return out;
}

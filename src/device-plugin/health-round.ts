import { flapsBetween } from "./flaps.js";
import type { Logger } from "./log.js";
import type { PluginMetrics } from "./metrics.js";
import type { HcaReading } from "./sysfs.js";

export type HealthContext = { intervalS: number; log: Logger; metrics: PluginMetrics };

/**
 * One health poll judged against the one before: port flaps counted (metric) and logged with their finding, each HCA
 * whose health flipped logged once; returns the new health map and whether any HCA flipped.
 */
export function judgeReadings(
  readings: readonly HcaReading[],
  before: { readings: ReadonlyMap<string, HcaReading>; health: ReadonlyMap<string, boolean> },
  ctx: HealthContext,
): { health: Map<string, boolean>; flipped: boolean } {
  for (const r of readings) {
    for (const f of flapsBetween(before.readings.get(r.hca), r, ctx.intervalS)) {
      ctx.metrics.portFlaps.inc({ hca: r.hca }, (f.evidence?.linkDowned as number) || 1);
      ctx.log.warn(f.message, { code: f.code, subject: f.subject, fix: f.fix });
    }
  }
  const health = new Map<string, boolean>();
  let flipped = false;
  for (const r of readings) {
    health.set(r.hca, r.healthy);
    const was = before.health.get(r.hca);
    if (was !== undefined && was !== r.healthy) {
      flipped = true;
      const ports = r.ports.map((p) => `${p.port}: ${p.state ?? "unreadable"} / ${p.physState ?? "unreadable"}`);
      if (r.healthy) ctx.log.info("HCA healthy again", { hca: r.hca, ports });
      else {
        ctx.log.warn("HCA unhealthy", {
          hca: r.hca,
          present: r.present,
          ports,
          ...(r.missingDevices?.length ? { missingDevices: r.missingDevices } : {}),
          ...(r.quarantined?.length ? { quarantinedBy: r.quarantined } : {}),
        });
      }
    }
  }
  return { health, flipped };
}

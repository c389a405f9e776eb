/**
 * Whether the line rate a run judges hops against agrees with what round 1 measured. Leaf uplinks and spine ports
 * are judged against absolute rates (a flow's share of line rate, hop-judge.ts), nodes and NICs against the fleet's
 * median: a line rate given too low makes a slow hop look fast (it would be cleared), one given too high makes every
 * hop look slow. Round 1's pair tests, most of them healthy, show which: their median busbw sits near
 * rails × line rate × NCCL's ring efficiency. Pure.
 */
import { median } from "../stats.js";
import { expectedBusBw, type FabricView, type JobResult } from "../types.js";

/** Round 1's median above this share of the expected pair busbw: the line rate given is too low. */
export const ABOVE_LINE = 1.15;
/** Below this share: the line rate given is too high (or nearly every node is slow). */
export const BELOW_LINE = 0.6;

/** Null when round 1's pair tests agree with the view's line rate; else what was measured against what was expected. */
export function lineRateMismatch(
  view: Pick<FabricView, "hcas" | "lineRateGBps">,
  results: readonly JobResult[],
): { median: number; expected: number; impliedLineRate: number } | null {
  const peaks = results.flatMap((r) =>
    r.ok && r.job.kind === "pair"
      ? r.tests.flatMap((t) => (t.hca === null && t.rows.length ? [t.rows.at(-1)!.busbw] : []))
      : [],
  );
  if (peaks.length < 2) return null;
  const m = median(peaks);
  const expected = expectedBusBw(view, "pair");
  if (m <= ABOVE_LINE * expected && m >= BELOW_LINE * expected) return null;
  return { median: m, expected, impliedLineRate: expected === 0 ? 0 : (m / expected) * view.lineRateGBps };
}

/**
 * Steering a flow onto chosen hops: try UDP source ports, trace each, keep the first (or best) whose leaf uplink
 * and spine port pass the test. ECMP spreads ports uniformly over a leaf's uplinks (RFC 2992), so a given uplink
 * of U takes about U tries. Pure given the trace.
 */
import type { Flow, FlowPath } from "../model.js";

export type Trace = (flow: Flow) => FlowPath;

/** The first source port in the dynamic range (RFC 6335): what a NIC or a test may pick freely. */
export const FIRST_SPORT = 49152;
const SPORTS = 16384;

export type Steered = { sport: number; path: FlowPath };

/**
 * Tries up to `tries` ports from `from` on; returns the one with the lowest `cost` (Infinity = unusable), stopping
 * at the first that costs `enough` or less. Null when none is usable.
 */
export function steer(
  trace: Trace,
  flow: Omit<Flow, "sport">,
  cost: (p: FlowPath) => number,
  tries: number,
  from = 0,
  enough = 0,
): Steered | null {
  let best: Steered | null = null;
  let bestCost = Number.POSITIVE_INFINITY;
  const probe: Flow = { src: flow.src, dst: flow.dst, rail: flow.rail, sport: 0 };
  for (let i = 0; i < tries; i++) {
    const sport = FIRST_SPORT + ((from + i) % SPORTS);
    probe.sport = sport;
    const path = trace(probe);
    const c = cost(path);
    if (c < bestCost) {
      best = { sport, path };
      bestCost = c;
      if (c <= enough) break;
    }
  }
  return best;
}

/** The hops of a path, for bookkeeping (an uplink and a spine port, or none inside a unit). */
export const hopsOf = (p: FlowPath): string[] => [p.uplink, p.spinePort].filter((x): x is string => x !== null);

import { describe, expect, test } from "vitest";
import { cableOf } from "../cables.js";
import { simulateRailFleet } from "../simulate/fleet.js";
import { DEFAULT_PAIR_SWEEP, DEFAULT_RAIL_SWEEP } from "../types.js";
import { estimateRailBudget } from "./budget.js";
import { createRailPlanner } from "./planner.js";
import { buildRailReport } from "./report.js";
import { runRailBench } from "./run.js";

/**
 * A bad uplink on the leaf whose hash seed the calculator does not know. Flows out of that leaf cannot be placed on
 * its uplinks, but flows into it are traced exactly onto the spine port at each uplink cable's far end. Where the
 * cable is bad both ways (a lane down, a lower negotiated speed) the far end names it; where only the leaf's
 * direction is bad (one fibre, one laser) nothing end to end can place it below the leaf: it is listed as not
 * cleared, never passed over, and no clean cable is named instead. Fleets drawn so that the planted uplink sits on
 * the leaf that hides its hash (256 nodes, 4 units × 4 rails, NIC-chosen ports, 2 QPs per connection).
 */
describe("the far side of a leaf that hides its hash", () => {
  for (const seed of [104, 117, 143]) {
    const o = {
      nodes: 256,
      units: 4,
      rails: 4,
      oversubscription: 2,
      badUplinks: 1,
      badSpinePorts: 1,
      nicPorts: true,
      qpsPerConnection: 2,
      unknownSeedLeaves: 1,
      noise: 0.03,
      seed,
    } as const;

    test(`seed ${seed}: bad both ways, the hidden leaf's cable is named from its spine end; no clean cable named`, async () => {
      const sim = simulateRailFleet({ ...o, bothWays: true });
      const [hidden] = sim.hiddenSeedLeaves;
      const [planted] = sim.truth.uplinks;
      expect(planted!.startsWith(`${hidden}/`)).toBe(true);
      const run = await runRailBench(
        createRailPlanner(sim.view, sim.fabric, sim.oracle.trace, { seed }),
        sim.oracle.measure,
        {
          maxRounds: 6,
        },
      );
      const s = run.state.spine;
      const cable = (h: string) => cableOf(sim.fabric, h);
      const named = new Set(s.bad.map(cable));
      expect(named).toContain(cable(planted!));
      const truth = new Set([...sim.truth.uplinks, ...sim.truth.spinePorts].map(cable));
      expect([...named].filter((c) => !truth.has(c))).toEqual([]);
      const accounted = new Set([...s.bad, ...s.notCleared].map(cable));
      for (const h of sim.truth.spinePorts) expect(accounted, h).toContain(cable(h));
      // The finding names the cable, says it was placed from the far side, and is no more than medium sure.
      const budget = estimateRailBudget(sim.view, sim.fabric, {
        pairSweep: DEFAULT_PAIR_SWEEP,
        railSweep: DEFAULT_RAIL_SWEEP,
      });
      const report = buildRailReport(sim.view, sim.fabric, run, budget);
      const far = report.findings.find((x) => x.evidence && cable(x.subject) === cable(planted!));
      expect(far?.code).toBe("FLEET_BAD_SPINE_PORT");
      const e = far!.evidence as { cable: string; confidence: string; farSide: { crossed: number; slow: number } };
      expect(e.cable).toBe(cable(planted!));
      expect(e.confidence).toBe("medium");
      expect(e.farSide.slow).toBeGreaterThanOrEqual(3);
      expect(far!.message).toContain(`whose own hash the calculator does not know`);
      expect(far!.message).toContain(planted!);
    }, 120_000);

    test(`seed ${seed}: bad one way, the hidden leaf's uplink is listed as not cleared; no clean hop named`, async () => {
      const sim = simulateRailFleet(o);
      const run = await runRailBench(
        createRailPlanner(sim.view, sim.fabric, sim.oracle.trace, { seed }),
        sim.oracle.measure,
        {
          maxRounds: 6,
        },
      );
      const s = run.state.spine;
      expect(s.notCleared).toContain(sim.truth.uplinks[0]);
      const truth = [...sim.truth.uplinks, ...sim.truth.spinePorts];
      expect(s.bad.filter((h) => !truth.includes(h))).toEqual([]);
      for (const h of truth) expect([...s.bad, ...s.notCleared], h).toContain(h);
    }, 120_000);
  }
});

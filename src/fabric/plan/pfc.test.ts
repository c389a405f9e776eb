import { describe, expect, test } from "vitest";
import { simulateRailFleet } from "../simulate/fleet.js";
import { createRailPlanner } from "./planner.js";
import { runRailBench } from "./run.js";

/**
 * Priority flow control spreads congestion upstream: a spine port that drains slowly makes the switch pause the
 * uplinks feeding it (IEEE 802.1Qbb pause frames per priority), so flows that share those uplinks but go elsewhere
 * slow down too. The planner must name the congested egress the slow flows have in common, not the victims' hops.
 */
describe("PFC spreading: the victim of a pause is not the culprit", () => {
  for (const seed of [31, 32]) {
    test(`seed ${seed}: the bad spine ports are named, no uplink is blamed for them`, async () => {
      const sim = simulateRailFleet({
        nodes: 256,
        units: 4,
        rails: 4,
        oversubscription: 2,
        badSpinePorts: 2,
        pfc: true,
        noise: 0.03,
        seed,
      });
      const planner = createRailPlanner(sim.view, sim.fabric, sim.oracle.trace, { seed });
      const run = await runRailBench(planner, sim.oracle.measure, { maxRounds: 6 });
      const s = run.state.spine;
      expect(s.bad.filter((h) => h.startsWith("spine"))).toEqual(sim.truth.spinePorts);
      expect(s.bad.filter((h) => h.startsWith("unit"))).toEqual([]);
    }, 120_000);
  }
});

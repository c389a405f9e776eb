import { describe, expect, test } from "vitest";
import { simulateRailFleet } from "../simulate/fleet.js";
import { createRailPlanner } from "./planner.js";
import { runRailBench } from "./run.js";

/**
 * The planner against a simulator it does not trust: NIC-chosen ports, 2 QPs per connection, a leaf whose hash
 * seed the calculator does not know, a down NIC and an uplink slow only under load. Whatever it cannot name it
 * must say it could not clear: no planted hop is silently passed over.
 */
describe("a planner that does not trust its oracle", () => {
  const realism = { nicPorts: true, qpsPerConnection: 2, unknownSeedLeaves: 1, noise: 0.03 } as const;

  for (const seed of [21, 22]) {
    test(`seed ${seed}: every planted hop is found or listed as not cleared; the down NIC is named; no false node`, async () => {
      const sim = simulateRailFleet({
        nodes: 256,
        units: 4,
        rails: 4,
        oversubscription: 2,
        badUplinks: 1,
        badSpinePorts: 1,
        loadOnlyUplinks: 1,
        downNics: 1,
        seed,
        ...realism,
      });
      const planner = createRailPlanner(sim.view, sim.fabric, sim.oracle.trace, { seed });
      const run = await runRailBench(planner, sim.oracle.measure, { maxRounds: 6 });
      const s = run.state.spine;
      const accounted = new Set([...s.bad, ...s.notCleared]);
      for (const hop of [...sim.truth.uplinks, ...sim.truth.spinePorts]) expect(accounted, hop).toContain(hop);
      const [down] = sim.truth.downNics;
      const rail = Number(down!.split("rail")[1]);
      expect(run.state.downNics.map((d) => `${d.node}/${d.hca}`)).toEqual([
        `${down!.split("/")[0]}/${sim.view.hcas[rail]}`,
      ]);
      // The hidden leaf's hops are never vouched for: named bad only if truly bad, else listed.
      for (const leaf of sim.hiddenSeedLeaves)
        for (const hop of s.cleared)
          expect(hop.startsWith(`${leaf}/`), `${hop} cleared though ${leaf} hides its hash`).toBe(false);
      const wrong = s.bad.filter((h) => !sim.truth.uplinks.includes(h) && !sim.truth.spinePorts.includes(h));
      expect(wrong.length, `false hops: ${wrong.join(", ")}`).toBeLessThanOrEqual(1);
      expect(run.diagnosis.verdicts.filter((v) => v.kind === "node")).toEqual([]);
    }, 120_000);
  }
});

import { describe, expect, test } from "vitest";
import { cableOf, farEnd } from "./cables.js";
import { allSpinePorts, allUplinks, buildRailFabric } from "./model.js";

describe("the two ends of a leaf–spine cable", () => {
  // 2 units × 2 rails, 8 nodes per unit at 2:1 → 4 uplinks per leaf over 2 spines, 2 cables per leaf and spine.
  const f = buildRailFabric({ nodes: 16, units: 2, rails: 2, oversubscription: 2, lineRateGBps: 50, spines: 2 });

  test("worked by hand: unit1/leaf0's uplink 3 lands on spine 1, port 2·2 + 1 = 5 (leaf 2, its second cable there)", () => {
    expect(f.uplinksPerLeaf).toBe(4);
    expect(farEnd(f, "unit1/leaf0/uplink3")).toBe("spine1/port5");
    expect(farEnd(f, "spine1/port5")).toBe("unit1/leaf0/uplink3");
    expect(cableOf(f, "spine1/port5")).toBe("unit1/leaf0/uplink3 ↔ spine1/port5");
    expect(cableOf(f, "unit1/leaf0/uplink3")).toBe(cableOf(f, "spine1/port5"));
  });

  test("every uplink and every spine port is one end of exactly one cable", () => {
    const ups = allUplinks(f);
    const far = ups.map((u) => farEnd(f, u));
    expect(new Set(far)).toEqual(new Set(allSpinePorts(f)));
    for (const u of ups) expect(farEnd(f, farEnd(f, u)!)).toBe(u);
  });

  test("not a hop of this fabric: no far end", () => {
    expect(farEnd(f, "node-0001/rail0")).toBeNull();
    expect(farEnd(f, "unit5/leaf0/uplink0")).toBeNull();
    expect(farEnd(f, "unit0/leaf0/uplink9")).toBeNull();
    expect(farEnd(f, "spine7/port0")).toBeNull();
  });
});

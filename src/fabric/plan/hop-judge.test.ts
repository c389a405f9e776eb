import { describe, expect, test } from "vitest";
import type { Flow, FlowPath, RailFabric } from "../model.js";
import type { BenchJob, FabricView, JobResult } from "../types.js";
import { spineEvidence } from "./hop-evidence.js";

/**
 * Hand-built results on a 2-unit, 1-rail fabric (4 uplinks per leaf over 2 spines, 2 cables per spine and leaf), so
 * each test's hops are fixed by its UDP source port (the trace below is a table, not a hash).
 * Spine ports facing unit 1's leaf: spine0/port2, spine0/port3 (from uplinks 0 and 2), spine1/port2, spine1/port3.
 */
const fabric: RailFabric = {
  layout: "rail-optimised",
  nodes: Array.from({ length: 16 }, (_, i) => `n${String(i).padStart(2, "0")}`),
  units: 2,
  rails: 1,
  spines: 2,
  uplinksPerLeaf: 4,
  lineRateGBps: 50,
  oversubscription: 1,
};
const view: FabricView = {
  nodes: fabric.nodes,
  leafOf: new Map(fabric.nodes.map((n, i) => [n, `unit${i < 8 ? 0 : 1}`])),
  hcas: ["mlx5_0"],
  lineRateGBps: 50,
};
const up = (u: number, j: number) => `unit${u}/leaf0/uplink${j}`;
/** Source port → path; a port says uplink j of the sending unit and the spine port it lands on. */
const PATHS: Record<number, FlowPath> = {
  // unit 0 → unit 1
  1: { uplink: up(0, 0), spinePort: "spine0/port2" }, // through the bad spine port
  2: { uplink: up(0, 0), spinePort: "spine0/port3" }, // same uplink, a good spine port (the PFC victim)
  3: { uplink: up(0, 2), spinePort: "spine0/port2" }, // the bad spine port from another uplink
  4: { uplink: up(0, 1), spinePort: "spine1/port3" },
  5: { uplink: up(0, 2), spinePort: "spine0/port3" },
  // unit 1 → unit 0 (the way back of every test: good hops)
  11: { uplink: up(1, 1), spinePort: "spine1/port0" },
  12: { uplink: up(1, 3), spinePort: "spine1/port1" },
};
const trace = (fl: Flow): FlowPath => PATHS[fl.sport] ?? { uplink: null, spinePort: null };

let id = 0;
function result(round: number, a: string, b: string, sports: [number, number], busbw: number): JobResult {
  const job: BenchJob = {
    id: `t${++id}`,
    round,
    kind: "rails",
    nodes: [a, b],
    why: "test",
    wave: 0,
    routes: [{ rail: 0, sports, paths: [trace({ src: a, dst: b, rail: 0, sport: sports[0] }), PATHS[sports[1]]!] }],
  };
  return {
    job,
    ok: true,
    seconds: 30,
    tests: [{ hca: "mlx5_0", rows: [{ bytes: 2 ** 30, busbw }] }],
    flows: [{ rail: 0, sports: [[sports[0]], [sports[1]]] }],
  };
}

describe("what a slow test blames", () => {
  test("PFC: a flow slowed on an uplink that fed a bad spine port is a victim; the spine port is named, the uplink is not", () => {
    const n = fabric.nodes;
    const results: JobResult[] = [];
    // Proof round: every good hop carries two fast flows at full load (25 GB/s each on a 50 GB/s hop).
    results.push(result(1, n[0]!, n[8]!, [2, 11], 23.75), result(1, n[1]!, n[9]!, [5, 11], 23.75));
    results.push(result(1, n[2]!, n[10]!, [4, 12], 23.75), result(1, n[3]!, n[11]!, [4, 12], 23.75));
    results.push(result(1, n[4]!, n[12]!, [5, 12], 23.75));
    // Two rounds in which the bad spine port drains slowly and pauses uplink 0: through it a test reaches 40 %,
    // its neighbour on uplink 0 (going to a good spine port) 65 %, and a test reaching it from uplink 2 40 %.
    for (const round of [2, 3]) {
      results.push(result(round, n[0]!, n[8]!, [1, 11], 0.4 * 23.75));
      results.push(result(round, n[1]!, n[9]!, [2, 12], 0.65 * 23.75));
      results.push(result(round, n[2]!, n[10]!, [3, 11], 0.4 * 47.5));
    }
    const s = spineEvidence(view, fabric, trace, results);
    expect(s.bad).toEqual(["spine0/port2"]);
    expect(s.cases.get(up(0, 0))?.alone ?? []).toEqual([]);
    // Not proven either: uplink 0 stays listed as not cleared.
    expect(s.notCleared).toContain(up(0, 0));
  });
});

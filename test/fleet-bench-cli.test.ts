import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";

describe("kube-rdma fleet bench --simulate: the planner and diagnosis against a simulated fabric", () => {
  test("256 nodes with 3 bad nodes, 1 bad uplink, 1 bad rail → JSON whose found equals the planted truth", async () => {
    const io = captureIo();
    const argv = ["fleet", "bench", "--simulate", "256", "--bad-nodes", "3", "--bad-links", "1", "--bad-rails", "1"];
    expect(await main([...argv, "--seed", "5", "-o", "json"], io)).toBe(0);
    const out = JSON.parse(io.out);
    expect(Object.keys(out)).toEqual(
      expect.arrayContaining(["rounds", "jobs", "found", "truth", "budgetSeconds", "simulatedSeconds"]),
    );
    expect(out.truth.nodes).toHaveLength(3);
    expect(out.truth.rails).toHaveLength(1);
    expect(out.truth.links).toHaveLength(1);
    expect(out.found).toEqual(out.truth);
    expect(out.rounds).toBeLessThanOrEqual(5);
    expect(out.jobs).toBeGreaterThan(128);
    expect(out.budgetSeconds).toBeGreaterThan(0);
  });

  test("text: the budget comes first, then the rounds, the confirmed findings and the planted faults", async () => {
    const io = captureIo();
    expect(await main(["fleet", "bench", "--simulate", "64", "--bad-nodes", "1", "--seed", "2"], io)).toBe(0);
    expect(io.out.indexOf("Budget for 64 node(s), plan adaptive")).toBe(0);
    expect(io.out).toMatch(/Found \(confirmed\): 1 node\(s\) gpu-\d+/);
    expect(io.out).toContain("FLEET_BAD_NODE");
    expect(io.out).toMatch(
      /Planted \(simulation\): 1 node\(s\) gpu-\d+; 0 rail\(s\); 0 link\(s\)\. The verdict above is the simulated fleet's; exit 0\.\n$/,
    );
  });

  test("-o html: one page with the findings; 128 nodes are too many for a heat map: the 20 slowest round-1 pairs", async () => {
    const small = captureIo();
    expect(
      await main(["fleet", "bench", "--simulate", "24", "--leaf-size", "8", "--bad-nodes", "1", "-o", "html"], small),
    ).toBe(0);
    expect(small.out.startsWith("<!doctype html>")).toBe(true);
    expect(small.out).not.toContain("Budget for"); // the budget goes into the page, not ahead of it
    expect(small.out).toContain('data-code="FLEET_BAD_NODE"');
    expect(small.out).toContain('class="chart matrix pairs fleet-bench"');
    const large = captureIo();
    expect(await main(["fleet", "bench", "--simulate", "128", "--bad-nodes", "2", "-o", "html"], large)).toBe(0);
    expect(large.out).not.toContain('class="chart matrix pairs fleet-bench"');
    const table = large.out.slice(large.out.indexOf('<table class="first-round">'));
    const body = table.slice(table.indexOf("<tbody>"), table.indexOf("</tbody>"));
    expect(body.match(/<tr>/g)).toHaveLength(20);
  });

  test("--plan pairs on 16 nodes: 15 rounds, 120 jobs", async () => {
    const io = captureIo();
    expect(await main(["fleet", "bench", "--simulate", "16", "--plan", "pairs", "-o", "json"], io)).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ rounds: 15, jobs: 120, found: { nodes: [], rails: [], links: [] } });
  });

  test("--simulate 1, --noise 2, or --bad-nodes without --simulate → a clear usage error, exit 2", async () => {
    for (const extra of [
      ["--simulate", "1"],
      ["--simulate", "64", "--noise", "2"],
      ["--bad-nodes", "3"],
    ]) {
      const io = captureIo();
      expect(await main(["fleet", "bench", ...extra], io)).toBe(2);
      expect(io.err).toMatch(
        /--(simulate|noise) expects|--bad-nodes plants faults in a simulated fleet: it needs --simulate N/,
      );
    }
  });

  test("--simulate 4 --bad-nodes 9 (every node bad, nothing fast to compare with) → exit 2 saying so", async () => {
    const io = captureIo();
    expect(await main(["fleet", "bench", "--simulate", "4", "--bad-nodes", "9"], io)).toBe(2);
    expect(io.err).toContain("--bad-nodes 9 plants at least as many bad nodes as the 4 simulated; give fewer than 4.");
  });

  test("--simulate 16 --bad-links 5 (16 nodes under one 32-node leaf: no uplink any test crosses) → exit 2 saying so, not a PASS that missed a planted uplink", async () => {
    const io = captureIo();
    expect(await main(["fleet", "bench", "--simulate", "16", "--bad-links", "5"], io)).toBe(2);
    expect(io.err).toContain("sit under one leaf switch (--leaf-size 32), so no test crosses an uplink");
    expect(io.out).toBe("");
  });

  test("more bad uplinks than leaves, or more bad rails than healthy nodes → exit 2 naming the most that can be planted", async () => {
    const links = captureIo();
    expect(await main(["fleet", "bench", "--simulate", "64", "--bad-links", "3"], links)).toBe(2);
    expect(links.err).toContain("--bad-links 3 plants more bad uplinks than the 2 leaf switches");
    const rails = captureIo();
    expect(await main(["fleet", "bench", "--simulate", "16", "--bad-nodes", "2", "--bad-rails", "200"], rails)).toBe(2);
    expect(rails.err).toContain(
      "the simulation has 14 such node(s) (16 minus --bad-nodes 2); give at most 14 together",
    );
  });
});

describe("the budget printed before a fleet bench runs", () => {
  test("--plan pairs --max-rounds 2 on 8 nodes budgets the 2 rounds that run, not all 7 (3.7 min); --max-rounds 1 has no re-test round", async () => {
    const pairs = captureIo();
    expect(await main(["fleet", "bench", "--simulate", "8", "--plan", "pairs", "--max-rounds", "2"], pairs)).toBe(0);
    expect(pairs.out).toContain("round 1–2: 8 job(s) in 2 wave(s)");
    expect(pairs.out).toMatch(/plan pairs: 2 round\(s\), 8 job\(s\)/);
    const one = captureIo();
    expect(await main(["fleet", "bench", "--simulate", "8", "--max-rounds", "1"], one)).toBe(0);
    expect(one.out).not.toContain("re-tests");
  });

  test("--hcas mlx5_1,mlx5_1 is refused (exit 2): it budgeted 2 × 25 GB/s rails for one HCA", async () => {
    const io = captureIo();
    expect(await main(["fleet", "bench", "--simulate", "8", "--hcas", "mlx5_1,mlx5_1"], io)).toBe(2);
    expect(io.err).toContain("--hcas lists mlx5_1 twice; name each data HCA (one per rail) once.");
    expect(io.out).toBe("");
  });
});

// DGX H100: GPU i's compute NIC is mlx5_0,3,4,5,6,9,10,11 in GPU order, not mlx5_0..7 (NVIDIA DGX H100 User Guide,
// "Network Ports"); a rail test on the wrong NIC crosses the CPU interconnect and measures another rail.
describe("fleet bench on a cluster: which NIC each GPU's rail test uses", () => {
  test("--node-model dgx-h100: GPU 1's rail test runs on mlx5_3, GPU 7's on mlx5_11", async () => {
    const { benchSettings } = await import("../src/cli/commands/fleet-bench.js");
    const { railTestScript } = await import("../src/fabric/bench/job-log.js");
    const { DEFAULT_RAIL_SWEEP } = await import("../src/fabric/types.js");
    const s = benchSettings({ "node-model": "dgx-h100" });
    expect(s.hcas).toEqual(["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]);
    const script = railTestScript(s.hcas, DEFAULT_RAIL_SWEEP, []);
    expect(script).toContain("-x CUDA_VISIBLE_DEVICES=1 -x NCCL_IB_HCA==mlx5_3");
    expect(script).toContain("-x CUDA_VISIBLE_DEVICES=7 -x NCCL_IB_HCA==mlx5_11");
  });

  test("--hcas with --node-model, or an unknown model: a usage error that says which to give", async () => {
    const { benchSettings } = await import("../src/cli/commands/fleet-bench.js");
    expect(() => benchSettings({ "node-model": "dgx-h100", hcas: ["mlx5_1"] })).toThrow(
      /both say which NIC each GPU uses/,
    );
    expect(() => benchSettings({ "node-model": "dgx-z9" })).toThrow(/--node-model expects one of dgx-h100/);
  });
});

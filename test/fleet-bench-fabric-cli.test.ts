import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";

const RAIL = ["fleet", "bench", "--simulate", "256", "--topology", "rail-optimised", "--units", "4", "--rails", "4"];

describe("kube-rdma fleet bench --simulate --topology rail-optimised", () => {
  test("JSON keyed nodes, rails, uplinks, spinePorts, links in found and truth; the planted faults found by the same names", async () => {
    const io = captureIo();
    const faults = ["--bad-nodes", "2", "--bad-rails", "1", "--bad-uplinks", "1", "--bad-spine-ports", "1"];
    expect(await main([...RAIL, ...faults, "--seed", "3", "-o", "json"], io)).toBe(0);
    const out = JSON.parse(io.out);
    for (const key of ["rounds", "jobs", "found", "truth", "budgetSeconds", "simulatedSeconds"])
      expect(out).toHaveProperty(key);
    expect(Object.keys(out.truth).sort()).toEqual(["links", "nodes", "rails", "spinePorts", "uplinks"]);
    expect(out.truth.uplinks[0]).toMatch(/^unit\d\/leaf\d\/uplink\d+$/);
    expect(out.truth.spinePorts[0]).toMatch(/^spine\d\/port\d+$/);
    expect(out.truth.rails[0]).toMatch(/^node-\d{4}\/rail\d$/);
    expect(out.found).toEqual(out.truth);
    expect(out.rounds).toBeLessThanOrEqual(6);
  });

  test("text: the budget with the sweep's waves comes first; the findings name the uplink and the spine port", async () => {
    const io = captureIo();
    expect(await main([...RAIL, "--bad-uplinks", "1", "--bad-spine-ports", "1", "--seed", "4"], io)).toBe(0);
    expect(io.out.indexOf("Budget for 256 node(s), plan adaptive, rail-optimised")).toBe(0);
    expect(io.out).toMatch(/round 2 \(re-tests \+ spine sweep\): \d+ job\(s\) in \d wave\(s\)/);
    expect(io.out).toContain("FLEET_BAD_LEAF_UPLINK");
    expect(io.out).toContain("FLEET_BAD_SPINE_PORT");
  });

  test("a YAML --topology file gives the same fabric as the flags", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-topology-"));
    const file = join(dir, "fabric.yaml");
    writeFileSync(file, "layout: rail-optimised\nunits: 4\nrails: 4\noversubscription: 2\n");
    const fromFile = captureIo();
    const args = ["--bad-uplinks", "1", "--seed", "5", "-o", "json"];
    expect(await main(["fleet", "bench", "--simulate", "256", "--topology", file, ...args], fromFile)).toBe(0);
    const fromFlags = captureIo();
    expect(await main([...RAIL, ...args], fromFlags)).toBe(0);
    expect(JSON.parse(fromFile.out).truth).toEqual(JSON.parse(fromFlags.out).truth);
  });

  test("bad input → exit 2 saying what was expected", async () => {
    const cases: [string[], string][] = [
      [[...RAIL, "--bad-uplinks", "100000"], "4 unit(s) × 4 leaves × 32 uplinks = 512; give at most 512"],
      [[...RAIL, "--bad-links", "1"], "--bad-uplinks K (leaf uplink ports) and --bad-spine-ports K"],
      [["fleet", "bench", "--simulate", "64", "--bad-spine-ports", "1"], "it needs --topology rail-optimised"],
      [[...RAIL, "--oversubscription", "0"], "--oversubscription expects a ratio from 1"],
      [
        ["fleet", "bench", "--simulate", "4", "--topology", "rail-optimised", "--units", "4"],
        "needs at least 2 nodes per unit",
      ],
      [["fleet", "bench", "--simulate", "64", "--topology", "/nonexistent/fabric.yaml"], "/nonexistent/fabric.yaml"],
    ];
    for (const [argv, message] of cases) {
      const io = captureIo();
      expect(await main(argv, io), argv.join(" ")).toBe(2);
      expect(io.err).toContain(message);
    }
  });
});

describe("fleet bench at the size of a large rail-optimised fabric", () => {
  // 2,048 nodes × 64 rails: 4 units × 64 leaves × 256 uplinks, twice that many hops with the spine ports. Spreading
  // that many values into Math.min's arguments overflowed the call stack.
  test("--simulate 2048 --rails 64 runs to a report (exit 0), no stack overflow", { timeout: 180_000 }, async () => {
    const io = captureIo();
    const args = ["fleet", "bench", "--simulate", "2048", "--topology", "rail-optimised", "--rails", "64"];
    expect(await main([...args, "--seed", "2", "--max-rounds", "2", "-o", "json"], io)).toBe(0);
    const out = JSON.parse(io.out);
    expect(out.jobs).toBeGreaterThan(1024);
    expect(io.err).not.toMatch(/call stack/);
  });
});

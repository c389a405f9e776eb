/**
 * `fleet bench --topology rail-optimised` on a cluster (the local API server) with something that traces flow
 * paths: the cluster is the planner's runner, as the simulator is on the simulate path, so every round the
 * simulator path runs (spine sweep, hops crossed alone, group tests) runs here as MPIJobs, wave by wave, and each
 * job's result is read from its launcher log.
 *
 * The MPI operator stand-in answers each wave's launchers from the rail-optimised simulator's truth for the same
 * fleet, measuring the wave's jobs together (they share the fabric): which jobs a planted uplink or spine port
 * slows is the simulator's physics, never the product's. The product gets what the simulate path's planner gets:
 * the fabric's shape from the nodes' labels and flags, and the hash calculator (`sim.oracle.trace`, the
 * calculator configured with the fabric's seed — not the planted faults).
 */
import { afterEach, describe, expect, test } from "vitest";
import { command as fleetCommand } from "../src/cli/commands/fleet.js";
import { runClusterBench } from "../src/cli/commands/fleet-bench-cluster.js";
import { parseCommandArgs } from "../src/cli/parse-args.js";
import { UsageError } from "../src/cli/spec.js";
import { type RailSimulation, simulateRailFleet } from "../src/fabric/simulate/fleet.js";
import type { BenchJob } from "../src/fabric/types.js";
import { WATCH_START_REQUESTS } from "../src/kube/bench/watch.js";
import { captureIo } from "./support/io.js";
import { seedCluster } from "./support/kube/cluster-fixtures.js";
import { type FakeApi, startFakeApi } from "./support/kube/fake-api.js";
import { CLUSTER_FLEET, railClusterNodes, waveOperator } from "./support/kube/mpi-operator.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const RAILS = CLUSTER_FLEET.rails;
function fleet(seed: number) {
  const sim = simulateRailFleet({ ...CLUSTER_FLEET, seed });
  const nodes = railClusterNodes(sim, RAILS);
  return { sim, nodes };
}

/** `fleet bench --topology rail-optimised` through the cluster path, with the calculator as its path source. */
async function bench(io: ReturnType<typeof captureIo>, sim: RailSimulation, kubeconfig: string, lineRate?: string) {
  const args = [
    "bench",
    "--topology",
    "rail-optimised",
    "--oversubscription",
    "2",
    "--hcas",
    sim.view.hcas.join(","),
    // What one NIC carries, which no node object shows.
    ...(lineRate ? ["--line-rate", lineRate] : []),
    "--timeout",
    "60",
    "--poll-interval",
    "50",
    "-o",
    "json",
    "--kubeconfig",
    kubeconfig,
  ];
  const { values, positionals } = parseCommandArgs(args, fleetCommand.options);
  return runClusterBench(
    { values, positionals, io },
    { trace: sim.oracle.trace, name: "the fabric's hash calculator" },
  );
}

type Finding = { code: string; severity: string; subject: string; evidence: { hops?: string[]; total?: number } };

describe("fleet bench --topology rail-optimised on a cluster whose flow paths can be traced", () => {
  for (const seed of [5, 6]) {
    test(`seed ${seed}: nodes, NICs, the planted leaf uplink and spine port found as the simulator planted them`, async () => {
      const { sim, nodes } = fleet(seed);
      const op = waveOperator(sim, RAILS, () => api!);
      api = await startFakeApi(seedCluster({ nodes }), op);
      const io = captureIo();
      const code = await bench(io, sim, api.kubeconfig, String(sim.view.lineRateGBps));
      const report = JSON.parse(io.out);
      expect(code, io.err).toBe(1);
      expect(io.err).toContain("flow paths: traced by the fabric's hash calculator");
      // Every batch the simulator measured was one wave of one round, whole: the jobs the planner meant to share the
      // fabric shared it, and no others.
      const waveKey = (j: BenchJob) => `${j.round}/${j.wave}`;
      for (const b of op.batches) expect(new Set(b.map(waveKey)).size).toBe(1);
      expect(new Set(op.batches.map((b) => waveKey(b[0]!))).size).toBe(op.batches.length);
      // The hop rounds ran on the cluster: spine-crossing jobs beside the node and NIC tests.
      const crossing = op.batches.flat().filter((j) => j.routes);
      expect(crossing.length).toBeGreaterThan(0);
      expect(report.rounds.length).toBeGreaterThanOrEqual(3);
      // Findings equal the simulator's truth, part by part.
      expect(report.found.nodes).toEqual(sim.truth.nodes);
      expect(report.found.rails).toEqual([...sim.truth.rails].sort());
      expect(report.found.uplinks).toEqual(sim.truth.uplinks);
      expect(report.found.spinePorts).toEqual(sim.truth.spinePorts);
      // What was not cleared is listed, never a planted hop (those are named) — as the simulator path lists it.
      const notCleared = (report.findings as Finding[]).find((f) => f.code === "FLEET_HOPS_NOT_CLEARED");
      const listed = notCleared?.evidence.hops ?? [];
      for (const hop of [...sim.truth.uplinks, ...sim.truth.spinePorts]) expect(listed).not.toContain(hop);
      if (notCleared) expect(listed).toHaveLength(notCleared.evidence.total!);
      // The jobs were watched: one list and one watch of MPIJobs and of launcher pods per round, at most 7 requests
      // per job besides (the operator's status updates are the kubelet's, not the run's).
      const rounds = report.rounds.length;
      expect(api.watches.filter((w) => w.includes("/mpijobs?"))).toHaveLength(rounds);
      const ours = api.requests.filter((r) => !r.startsWith("PATCH"));
      const setup = ours.findIndex((r) => r.startsWith("POST"));
      expect(ours.length - setup).toBeLessThanOrEqual(WATCH_START_REQUESTS * rounds + 7 * report.jobs);
      // Every object deleted.
      expect(api.store.get("mpijobs")).toEqual([]);
      expect(api.store.get("pods")!.filter((p) => p.metadata.name.startsWith("kr-bench-"))).toEqual([]);
    }, 180_000);
  }

  test("a line rate round 1 contradicts (400 Gb/s NICs, the 200 Gb/s default assumed): exit 2 naming --line-rate before any hop test", async () => {
    const { sim, nodes } = fleet(5);
    const op = waveOperator(sim, RAILS, () => api!);
    api = await startFakeApi(seedCluster({ nodes }), op);
    const io = captureIo();
    expect(sim.view.lineRateGBps).toBe(50);
    // main() prints a UsageError's message and hint and exits 2; called directly, the command throws it.
    const run = bench(io, sim, api.kubeconfig);
    await expect(run).rejects.toBeInstanceOf(UsageError);
    await expect(run).rejects.toThrow(/median \d+\.\d GB\/s busbw where a line rate of 25 GB\/s per NIC/);
    await expect(run).rejects.toMatchObject({ hint: expect.stringMatching(/--line-rate 50\b/) });
    expect(op.batches.flat().some((j) => j.routes)).toBe(false);
    expect(api.store.get("mpijobs")).toEqual([]);
  }, 60_000);
});

/**
 * `fleet bench` on an InfiniBand cluster, end to end from what the fabric's own tools print: `ibnetdiscover -p`
 * (the cables) → `fleet topology --from-ibnetdiscover` (the topology file) → `fleet bench --topology FILE
 * --ib-wiring … --ib-routes …` (each flow's path from `dump_lfts.sh`, the switches' forwarding tables) against the
 * local API server. The MPI operator stand-in measures each wave's jobs together in the rail-optimised simulator,
 * routed by the same forwarding tables (src/fabric/simulate/ib-fabric.ts writes both the text and the routes from one
 * description of the fabric; the product reads only the text). Findings must equal the simulator's truth.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { command as fleetCommand } from "../src/cli/commands/fleet.js";
import { main } from "../src/cli/main.js";
import { parseCommandArgs } from "../src/cli/parse-args.js";
import { simulateInfinibandFleet } from "../src/fabric/simulate/ib-fabric.js";
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
  const sim = simulateInfinibandFleet({ ...CLUSTER_FLEET, seed });
  const { ib } = sim;
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-ib-"));
  writeFileSync(join(dir, "wiring.txt"), ib.wiring);
  writeFileSync(join(dir, "lfts.txt"), ib.lfts);
  return { sim, dir, nodes: railClusterNodes(sim, RAILS) };
}

type Finding = { code: string; evidence: { hops?: string[]; total?: number } };

describe("fleet bench on an InfiniBand cluster, paths from the subnet manager's forwarding tables", () => {
  for (const seed of [5, 7]) {
    test(`seed ${seed}: topology discovered, every hop traced, the planted node, NIC, uplink and spine port found`, async () => {
      const { sim, dir, nodes } = fleet(seed);
      const hcas = sim.view.hcas.join(",");
      const topo = captureIo();
      const topoCode = await main(
        ["fleet", "topology", "--from-ibnetdiscover", join(dir, "wiring.txt"), "--nics", hcas],
        topo,
      );
      expect(topoCode, topo.err).toBe(0);
      writeFileSync(join(dir, "topology.yaml"), topo.out);

      const op = waveOperator(sim, RAILS, () => api!);
      api = await startFakeApi(seedCluster({ nodes }), op);
      // One run reads the tables from a pipe (`dump_lfts.sh | kube-rdma fleet bench … --ib-routes -`).
      const piped = seed === 7;
      const io = captureIo(piped ? readFileSync(join(dir, "lfts.txt"), "utf8") : "");
      const args = [
        "bench",
        "--topology",
        join(dir, "topology.yaml"),
        "--ib-wiring",
        join(dir, "wiring.txt"),
        "--ib-routes",
        piped ? "-" : join(dir, "lfts.txt"),
        "--hcas",
        hcas,
        "--line-rate",
        String(sim.view.lineRateGBps),
        "--timeout",
        "60",
        "--poll-interval",
        "50",
        "-o",
        "json",
        "--kubeconfig",
        api.kubeconfig,
      ];
      const { values, positionals } = parseCommandArgs(args, fleetCommand.options);
      const code = await fleetCommand.run({ values, positionals, io });
      expect(code, io.err).toBe(1);
      expect(io.err).toContain(
        `flow paths: traced by the switches' forwarding tables (${piped ? "standard input" : join(dir, "lfts.txt")})`,
      );
      expect(io.err).not.toContain("could not be traced");
      const report = JSON.parse(io.out);
      // The hop rounds ran: jobs across the spine, beside the node and NIC tests.
      expect(op.batches.flat().some((j) => j.routes)).toBe(true);
      expect(report.found.nodes).toEqual(sim.truth.nodes);
      expect(report.found.rails).toEqual([...sim.truth.rails].sort());
      expect(report.found.uplinks).toEqual(sim.truth.uplinks);
      expect(report.found.spinePorts).toEqual(sim.truth.spinePorts);
      const notCleared = (report.findings as Finding[]).find((f) => f.code === "FLEET_HOPS_NOT_CLEARED");
      const listed = notCleared?.evidence.hops ?? [];
      for (const hop of [...sim.truth.uplinks, ...sim.truth.spinePorts]) expect(listed).not.toContain(hop);
      // The routes are fixed per destination (no source port to steer), so some hops carry too few flows to clear:
      // they are listed by name, each a hop of this fabric, never all of them.
      for (const hop of listed) expect(hop).toMatch(/^(unit\d+\/leaf\d+\/uplink\d+|spine\d+\/port\d+)$/);
      expect(listed.length).toBeLessThan(notCleared?.evidence.total ?? 1);
      // Within the stated request rate: per round one list + one watch of MPIJobs and of launcher pods, at most 7
      // requests per job besides (the operator's status updates are the kubelet's, not the run's).
      const ours = api.requests.filter((r) => !r.startsWith("PATCH"));
      const setup = ours.findIndex((r) => r.startsWith("POST"));
      expect(ours.length - setup).toBeLessThanOrEqual(WATCH_START_REQUESTS * report.rounds.length + 7 * report.jobs);
      expect(api.store.get("mpijobs")).toEqual([]);
    }, 180_000);
  }

  test("a topology that is not the wiring's (two nodes swapped between units, or another oversubscription) is refused before any job, naming the nodes and how to write the right file", async () => {
    const { sim, dir, nodes } = fleet(5);
    const hcas = sim.view.hcas.join(",");
    const topo = captureIo();
    expect(
      await main(["fleet", "topology", "--from-ibnetdiscover", join(dir, "wiring.txt"), "--nics", hcas], topo),
    ).toBe(0);
    const [a, b] = [sim.fabric.nodes[0]!, sim.fabric.nodes.at(-1)!];
    const swapped = topo.out
      .replace(`- ${a}\n`, "- SWAP\n")
      .replace(`- ${b}\n`, `- ${a}\n`)
      .replace("- SWAP\n", `- ${b}\n`);
    const denser = topo.out.replace(/^oversubscription: 2$/m, "oversubscription: 4");
    api = await startFakeApi(seedCluster({ nodes }));
    for (const [file, text, says] of [
      ["swapped.yaml", swapped, /2 node\(s\) are in another unit than their HCAs' leaves in the wiring/],
      [
        "denser.yaml",
        denser,
        /the wiring shows 4 uplink\(s\) per leaf over 4 spine\(s\); the topology and flags give 2 over 2/,
      ],
    ] as const) {
      writeFileSync(join(dir, file), text);
      const io = captureIo();
      const args = ["fleet", "bench", "--topology", join(dir, file), "--ib-wiring", join(dir, "wiring.txt")];
      args.push("--ib-routes", join(dir, "lfts.txt"), "--hcas", hcas, "--kubeconfig", api.kubeconfig);
      expect(await main(args, io)).toBe(2);
      expect(io.err).toMatch(says);
      expect(io.err).toContain("kube-rdma fleet topology --from-ibnetdiscover");
      expect(api.store.get("mpijobs") ?? []).toEqual([]);
    }
  }, 60_000);

  test("--ib-routes without --ib-wiring, or with --simulate, is refused with what to run", async () => {
    const io = captureIo();
    expect(await main(["fleet", "bench", "--ib-routes", "lfts.txt", "--node", "a", "--node", "b"], io)).toBe(2);
    expect(io.err).toMatch(/--ib-routes needs --ib-wiring too/);
    expect(io.err).toMatch(/dump_lfts\.sh > lfts\.txt/);
    const sim = captureIo();
    expect(
      await main(["fleet", "bench", "--simulate", "64", "--ib-wiring", "w.txt", "--ib-routes", "l.txt"], sim),
    ).toBe(2);
    expect(sim.err).toMatch(/does not go with --simulate/);
    const both = captureIo();
    expect(
      await main(["fleet", "bench", "--ib-wiring", "-", "--ib-routes", "-", "--node", "a", "--node", "b"], both),
    ).toBe(2);
    expect(both.err).toMatch(/cannot both read standard input/);
  });
});

/**
 * RoCE end to end from discovered topology: each node's LLDP neighbours (what `lldpcli show neighbors -f json` or
 * `-f json0` prints there) → `fleet topology --from-lldp DIR` → the topology file → `fleet bench --topology FILE`
 * on a cluster (the local API server), its findings checked against the rail-optimised simulator's truth for the
 * same fleet. The captures are written here from the simulated fleet's wiring (which switch and port each data NIC
 * reaches); the product reads only their text. The nodes carry no leaf label: the units come from the file.
 *
 * Shapes: lldpd's `-f json` keys an interface by its name and the chassis by the switch's name; `-f json0` makes
 * every level an array of `{ value }` objects (lldpcli(8), https://www.mankier.com/8/lldpcli). Switch names, ports
 * and MACs are made up.
 *
 * RoCE cannot trace the source port the NIC picks, so the cluster has no path source: the plan is the node and NIC
 * rounds, and every leaf uplink and spine port is listed as not cleared (never passed).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { allSpinePorts, allUplinks, unitIndex } from "../src/fabric/model.js";
import { type RailSimulation, simulateRailFleet } from "../src/fabric/simulate/fleet.js";
import { parseTopologyFile } from "../src/fabric/topology-file.js";
import { WATCH_START_REQUESTS } from "../src/kube/bench/watch.js";
import { captureIo } from "./support/io.js";
import { seedCluster } from "./support/kube/cluster-fixtures.js";
import { type FakeApi, startFakeApi } from "./support/kube/fake-api.js";
import { railClusterNodes, soloOperator } from "./support/kube/mpi-operator.js";

let api: FakeApi | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await api?.close();
  api = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const RAILS = 4;
/** The data NICs' netdev names, in rail order (what LLDP shows; the rail tests name the HCAs). */
const NICS = Array.from({ length: RAILS }, (_, r) => `ens${r + 1}f0np0`);
const LEAF_LABEL = "network.topology/leaf";

const mac = (unit: number, rail: number) =>
  `0c:42:a1:${[unit >> 8, unit & 255, rail].map((b) => b.toString(16).padStart(2, "0")).join(":")}`;

/** One node's neighbours: NIC r reaches unit u's rail-r leaf, on the port numbered by the node's place in its unit. */
function neighbours(unit: number, slot: number) {
  return NICS.map((nic, r) => ({ nic, sw: `roce-u${unit}-r${r}`, port: `swp${slot + 1}`, chassisMac: mac(unit, r) }));
}

/** `-f json`: one object per interface, keyed by its name; the chassis keyed by the switch's name. */
function lldpJson(ns: ReturnType<typeof neighbours>, mgmt: boolean): string {
  const iface = ns.map((n) => ({
    [n.nic]: {
      via: "LLDP",
      rid: "1",
      chassis: { [n.sw]: { id: { type: "mac", value: n.chassisMac }, descr: "switch OS" } },
      port: { id: { type: "ifname", value: n.port }, descr: n.port, ttl: "120" },
    },
  }));
  // A management NIC on a switch every node shares: the data NICs are named with --nics.
  if (mgmt)
    iface.unshift({
      eno1: {
        via: "LLDP",
        rid: "2",
        chassis: { "oob-mgmt-1": { id: { type: "mac", value: "0c:42:a1:ff:ff:01" }, descr: "switch OS" } },
        port: { id: { type: "ifname", value: "ge-0/0/1" }, descr: "ge-0/0/1", ttl: "120" },
      },
    });
  return JSON.stringify({ lldp: { interface: iface } }, null, 2);
}

/** `-f json0`: arrays of `{ value }`; the port id a MAC, so its description names the port. */
function lldpJson0(ns: ReturnType<typeof neighbours>): string {
  const iface = ns.map((n, i) => ({
    name: n.nic,
    via: "LLDP",
    chassis: [{ id: [{ type: "mac", value: n.chassisMac }], name: [{ value: n.sw }] }],
    port: [
      { id: [{ type: "mac", value: `0c:42:a1:aa:00:${String(i).padStart(2, "0")}` }], descr: [{ value: n.port }] },
    ],
  }));
  return JSON.stringify({ lldp: [{ interface: iface }] }, null, 2);
}

/** Every node's capture in one directory, as gathered: odd nodes in `-f json0`, the rest in `-f json`. */
function captures(sim: RailSimulation): string {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-roce-"));
  dirs.push(dir);
  const unitOf = unitIndex(sim.fabric);
  const slot = new Map<number, number>();
  sim.view.nodes.forEach((node, i) => {
    const u = unitOf.get(node)!;
    const s = slot.get(u) ?? 0;
    slot.set(u, s + 1);
    const ns = neighbours(u, s);
    writeFileSync(join(dir, `${node}.json`), i % 2 ? lldpJson0(ns) : lldpJson(ns, i % 4 === 0));
  });
  return dir;
}

function fleet(seed: number, nodes: number, units: number) {
  const sim = simulateRailFleet({
    nodes,
    units,
    rails: RAILS,
    oversubscription: 2,
    badNodes: 1,
    badRails: 1,
    downNics: 1,
    badUplinks: 1,
    badSpinePorts: 1,
    noise: 0.02,
    seed,
  });
  // The cluster's nodes without the leaf label: only the LLDP captures say which unit a node is in.
  const cluster = railClusterNodes(sim, RAILS);
  for (const n of cluster) delete n.metadata.labels[LEAF_LABEL];
  return { sim, cluster };
}

async function run(argv: string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.out, err: io.err };
}

type Finding = { code: string; severity: string; message: string; evidence: { hops?: string[]; total?: number } };

describe("fleet bench on RoCE from LLDP captures (local API server)", () => {
  for (const [seed, nodes, units] of [
    [11, 32, 4],
    [12, 24, 3],
  ] as const) {
    test(`seed ${seed}, ${nodes} nodes in ${units} units: LLDP → topology file → fleet bench; findings as the simulator planted them, within the stated request bound`, async () => {
      const { sim, cluster } = fleet(seed, nodes, units);
      const dir = captures(sim);

      // Discovery: the units and rails the wiring shows, written as the file fleet bench reads.
      const topo = await run(["fleet", "topology", "--from-lldp", dir, "--nics", NICS.join(",")]);
      expect(topo.code, topo.err).toBe(0);
      expect(topo.err).toBe("");
      const file = parseTopologyFile(topo.out, "topology.yaml");
      if (typeof file === "string") throw new Error(file);
      const unitOf = unitIndex(sim.fabric);
      const simUnits = Array.from({ length: units }, (_, u) => sim.view.nodes.filter((n) => unitOf.get(n) === u));
      expect(file).toEqual({ layout: "rail-optimised", units, rails: RAILS, unitNodes: simUnits });
      const topologyFile = join(dir, "topology.yaml");
      writeFileSync(topologyFile, topo.out);

      // The cluster run: no path source (RoCE), oversubscription given (LLDP does not show it).
      const op = soloOperator(sim, RAILS);
      api = await startFakeApi(seedCluster({ nodes: cluster }), op);
      const bench = await run([
        "fleet",
        "bench",
        "--topology",
        topologyFile,
        "--oversubscription",
        "2",
        "--hcas",
        sim.view.hcas.join(","),
        "--timeout",
        "30",
        "--poll-interval",
        "50",
        "-o",
        "json",
        "--kubeconfig",
        api.kubeconfig,
      ]);
      expect(bench.code, bench.err).toBe(1);
      expect(bench.err).toContain(
        `leaves from the topology file's units (discovered wiring): ${units} unit(s) of one leaf per rail`,
      );
      const report = JSON.parse(bench.out);
      expect(report.plan).toBe("adaptive");

      // Nodes and NICs: exactly what was planted (a down NIC is a NIC finding from its failed rail test).
      expect(report.found.nodes).toEqual(sim.truth.nodes);
      expect(report.found.rails).toEqual([...new Set([...sim.truth.rails, ...sim.truth.downNics])].sort());
      expect((report.findings as Finding[]).filter((f) => f.code === "FLEET_NIC_DOWN")).toHaveLength(1);

      // Uplinks and spine ports: no path is traced, so none is judged, none passed. Every hop is listed as not
      // cleared — the planted ones among them, and each planted uplink's leaf (unitU/leafR) is named by its hops.
      expect(report.found.uplinks).toEqual([]);
      expect(report.found.spinePorts).toEqual([]);
      const notCleared = (report.findings as Finding[]).find((f) => f.code === "FLEET_HOPS_NOT_CLEARED")!;
      expect(notCleared.severity).toBe("warning");
      const hops = notCleared.evidence.hops!;
      expect(hops).toHaveLength(notCleared.evidence.total!);
      expect([...hops].sort()).toEqual([...allUplinks(sim.fabric), ...allSpinePorts(sim.fabric)].sort());
      for (const hop of [...sim.truth.uplinks, ...sim.truth.spinePorts]) expect(hops).toContain(hop);
      for (const up of sim.truth.uplinks) {
        const leaf = up.replace(/\/uplink\d+$/, "");
        expect(hops.filter((h) => h.startsWith(`${leaf}/`))).toHaveLength(sim.fabric.uplinksPerLeaf);
      }

      // API requests: WATCH_START_REQUESTS per round to follow the jobs, at most 7 per job besides (the bound
      // docs/reference.md states), however long the jobs run.
      const rounds = report.rounds.length;
      const setup = api.requests.findIndex((r) => r.startsWith("POST"));
      expect(report.jobs).toBe(op.created.length);
      console.info(
        `seed ${seed}: ${api.requests.length - setup} API requests after the first create for ${report.jobs} jobs in ${rounds} rounds (bound ${WATCH_START_REQUESTS * rounds + 7 * report.jobs}); ${setup} before`,
      );
      expect(api.requests.length - setup).toBeLessThanOrEqual(WATCH_START_REQUESTS * rounds + 7 * report.jobs);
      expect(api.store.get("mpijobs")).toEqual([]);
    }, 120_000);
  }

  test("a node the file does not list (joined after discovery): exit 2 naming it, nothing created", async () => {
    const { sim, cluster } = fleet(11, 16, 2);
    const dir = captures(sim);
    const topo = await run(["fleet", "topology", "--from-lldp", dir, "--nics", NICS.join(",")]);
    expect(topo.code, topo.err).toBe(0);
    // Discovery ran before the last node joined: drop it from the file's units.
    const last = sim.view.nodes.at(-1)!;
    const file = join(dir, "topology.yaml");
    writeFileSync(file, topo.out.replace(new RegExp(`^\\s*- ${last}\\n`, "m"), ""));
    api = await startFakeApi(seedCluster({ nodes: cluster }));
    const bench = await run([
      "fleet",
      "bench",
      "--topology",
      file,
      "--oversubscription",
      "2",
      "--hcas",
      sim.view.hcas.join(","),
      "--kubeconfig",
      api.kubeconfig,
    ]);
    expect(bench.code).toBe(2);
    expect(bench.err).toContain(`do not list 1 selected node(s) (${last})`);
    expect(bench.err).toMatch(/regenerate it with kube-rdma fleet topology/);
    expect(api.requests.some((r) => r.startsWith("POST"))).toBe(false);
  });
});

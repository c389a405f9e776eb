/**
 * `fleet topology`: the topology file fleet bench reads, generated from what the fabric reports — each node's LLDP
 * neighbours on RoCE, the subnet manager's discovery (ibnetdiscover) on InfiniBand — never written by hand.
 *
 * LLDP files are written here in lldpd's `-f json` shape (an interface keyed by its name, the chassis keyed by the
 * switch's name; lldpcli(8), https://www.mankier.com/8/lldpcli); the ibnetdiscover fixture is the one beside
 * src/fabric/discover/ibnetdiscover.test.ts (shapes from github.com/linux-rdma/rdma-core infiniband-diags).
 * Hosts, switches and ports are made up.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { parseTopologyFile } from "../src/fabric/topology-file.js";
import { captureIo } from "./support/io.js";

const IB_FIXTURE = join(import.meta.dirname, "../src/fabric/discover/fixtures/ibnetdiscover-two-units.txt");

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** What `lldpcli show neighbors -f json` prints on a node whose NICs reach these switch ports. */
function lldpJson(neighbours: Record<string, [string, string]>): string {
  const iface = Object.entries(neighbours).map(([nic, [sw, port]]) => ({
    [nic]: {
      via: "LLDP",
      chassis: { [sw]: { id: { type: "mac", value: "3c:fd:fe:00:00:01" } } },
      port: { id: { type: "ifname", value: port }, ttl: "120" },
    },
  }));
  return JSON.stringify({ lldp: { interface: iface.length === 1 ? iface[0] : iface } }, null, 2);
}

/** A directory of NODE.json files, as gathered from the nodes. */
function gathered(nodes: Record<string, Record<string, [string, string]>>): string {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-lldp-"));
  dirs.push(dir);
  for (const [node, n] of Object.entries(nodes)) writeFileSync(join(dir, `${node}.json`), lldpJson(n));
  return dir;
}

async function run(...argv: string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.out, err: io.err };
}

describe("kube-rdma fleet topology --from-lldp", () => {
  test("four nodes in two units of two rails: a YAML file fleet bench reads, units listed as comments", async () => {
    const dir = gathered({
      "gpu-01": { ens1f0: ["u0-leaf-r0", "swp1"], ens2f0: ["u0-leaf-r1", "swp1"] },
      "gpu-02": { ens1f0: ["u0-leaf-r0", "swp2"], ens2f0: ["u0-leaf-r1", "swp2"] },
      "gpu-03": { ens1f0: ["u1-leaf-r0", "swp1"], ens2f0: ["u1-leaf-r1", "swp1"] },
      "gpu-04": { ens1f0: ["u1-leaf-r0", "swp2"], ens2f0: ["u1-leaf-r1", "swp2"] },
    });
    const r = await run("fleet", "topology", "--from-lldp", dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain("# unit 1: leaves u1-leaf-r0, u1-leaf-r1; nodes gpu-03, gpu-04");
    expect(parseTopologyFile(r.out, "topology.yaml")).toEqual({
      layout: "rail-optimised",
      units: 2,
      rails: 2,
      unitNodes: [
        ["gpu-01", "gpu-02"],
        ["gpu-03", "gpu-04"],
      ],
    });
    expect(r.err).toBe("");

    // the file drives fleet bench: LLDP does not show oversubscription, so the user gives it
    const file = join(dir, "topology.yaml");
    writeFileSync(file, r.out);
    const bench = await run(
      "fleet",
      "bench",
      "--simulate",
      "64",
      "--topology",
      file,
      "--oversubscription",
      "2",
      "-o",
      "json",
    );
    expect(bench.code).toBe(0);
    expect(JSON.parse(bench.out)).toHaveProperty("truth");
  });

  test("a management NIC on a shared switch is refused with the way out: name the data NICs with --nics", async () => {
    const dir = gathered({
      "gpu-01": { eno1: ["mgmt-1", "ge-0/0/1"], ens1f0: ["u0-leaf-r0", "swp1"], ens2f0: ["u0-leaf-r1", "swp1"] },
      "gpu-02": { eno1: ["mgmt-1", "ge-0/0/2"], ens1f0: ["u1-leaf-r0", "swp1"], ens2f0: ["u1-leaf-r1", "swp1"] },
    });
    const refused = await run("fleet", "topology", "--from-lldp", dir);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(
      /switch mgmt-1 serves nodes of two different switch sets.*name the data NICs with --nics/,
    );
    const ok = await run("fleet", "topology", "--from-lldp", dir, "--nics", "ens1f0,ens2f0", "-o", "json");
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({
      source: "LLDP",
      topology: { layout: "rail-optimised", units: 2, rails: 2 },
      rails: ["ens1f0", "ens2f0"],
    });
  });

  test("a node whose second NIC shows no neighbour is left out and said so, on stderr and in the file", async () => {
    const dir = gathered({
      "gpu-01": { ens1f0: ["u0-leaf-r0", "swp1"], ens2f0: ["u0-leaf-r1", "swp1"] },
      "gpu-02": { ens1f0: ["u0-leaf-r0", "swp2"] },
    });
    const r = await run("fleet", "topology", "--from-lldp", dir);
    expect(r.code).toBe(0);
    expect(r.err).toContain("not found: gpu-02: no switch seen on ens2f0; the node is left out of the units.");
    expect(r.out).toContain("# not found: gpu-02: no switch seen on ens2f0");
    expect(r.out).toContain("# unit 0: leaves u0-leaf-r0, u0-leaf-r1; nodes gpu-01\n");
  });

  test("a file that is not lldpd's JSON, or a missing path: exit 2 with what to run on the nodes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-lldp-"));
    dirs.push(dir);
    writeFileSync(join(dir, "gpu-01.json"), "Interface: ens1f0, via: LLDP");
    const bad = await run("fleet", "topology", "--from-lldp", dir);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/is not JSON: expected the output of `lldpcli show neighbors -f json`/);
    const missing = await run("fleet", "topology", "--from-lldp", join(dir, "nope"));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/cannot read it \(ENOENT\)[\s\S]*lldpcli show neighbors -f json/);
  });
});

describe("kube-rdma fleet topology --from-ibnetdiscover", () => {
  test("the subnet manager's wiring: units, rails, spines and oversubscription in a file fleet bench reads", async () => {
    const r = await run("fleet", "topology", "--from-ibnetdiscover", IB_FIXTURE);
    expect(r.code).toBe(0);
    expect(parseTopologyFile(r.out, "t.yaml")).toEqual({
      layout: "rail-optimised",
      units: 2,
      rails: 2,
      spines: 2,
      oversubscription: 1,
      unitNodes: expect.any(Array),
    });
  });

  test("- reads the wiring from standard input: ibnetdiscover | kube-rdma fleet topology --from-ibnetdiscover -", async () => {
    const { readFileSync } = await import("node:fs");
    const io = captureIo(readFileSync(IB_FIXTURE, "utf8"));
    expect(await main(["fleet", "topology", "--from-ibnetdiscover", "-", "-o", "json"], io)).toBe(0);
    expect(JSON.parse(io.out).topology).toEqual({
      layout: "rail-optimised",
      units: 2,
      rails: 2,
      spines: 2,
      oversubscription: 1,
    });
  });

  test("no source, both sources, a stray word, or -o html: exit 2 saying what is expected", async () => {
    expect((await run("fleet", "topology")).err).toMatch(/needs one source: --from-lldp PATH… \(RoCE\) or/);
    expect((await run("fleet", "topology", "--from-lldp", "a", "--from-ibnetdiscover", "b")).code).toBe(2);
    const stray = await run("fleet", "topology", "fabric.txt");
    expect(stray.code).toBe(2);
    expect(stray.err).toMatch(/takes options only.*\n.*--from-ibnetdiscover fabric\.txt/);
    expect((await run("fleet", "topology", "--from-ibnetdiscover", IB_FIXTURE, "-o", "html")).code).toBe(2);
  });

  test("--help teaches what to capture on the nodes", async () => {
    const r = await run("fleet", "topology", "--help");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: kube-rdma fleet topology/);
    expect(r.out).toContain("lldpcli show neighbors -f json");
    expect(r.out).toContain("ibnetdiscover > fabric.txt");
    expect(r.out).toContain("ibtracert SRC_LID DST_LID > trace.txt");
    expect(r.out).not.toMatch(/--simulate|--max-age/);
    // -o names what this subcommand writes, not the report formats other fleet subcommands share.
    const output = r.out.split("\n").find((l) => l.includes("--output FORMAT")) ?? "";
    expect(output).toContain("one of: yaml, json, text; default: yaml");
    expect(output).not.toContain("html");
  });
});

describe("kube-rdma fleet topology --trace", () => {
  const TRACE = join(import.meta.dirname, "../src/fabric/discover/fixtures/ibtracert-cross-unit.txt");
  test("an ibtracert path across units: the uplink and spine port it crosses, as fleet bench names them", async () => {
    const r = await run("fleet", "topology", "--from-ibnetdiscover", IB_FIXTURE, "--trace", TRACE, "-o", "json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).paths).toEqual([
      {
        file: TRACE,
        from: "gpu-a mlx5_0",
        to: "gpu-c mlx5_0",
        uplink: "unit0/leaf0/uplink1",
        spinePort: "spine1/port2",
      },
    ]);
    const yaml = await run("fleet", "topology", "--from-ibnetdiscover", IB_FIXTURE, "--trace", TRACE);
    expect(yaml.out).toContain("# path gpu-a mlx5_0 → gpu-c mlx5_0: unit0/leaf0/uplink1, spine1/port2");
  });

  test("--trace without InfiniBand wiring, or a file that is not a trace: exit 2", async () => {
    const dir = gathered({ "gpu-01": { ens1f0: ["u0-leaf-r0", "swp1"] } });
    const noWiring = await run("fleet", "topology", "--from-lldp", dir, "--trace", TRACE);
    expect(noWiring.code).toBe(2);
    expect(noWiring.err).toMatch(/--trace reads ibtracert paths against InfiniBand wiring/);
    const notTrace = await run("fleet", "topology", "--from-ibnetdiscover", IB_FIXTURE, "--trace", IB_FIXTURE);
    expect(notTrace.code).toBe(2);
    expect(notTrace.err).toMatch(/is not ibtracert output[\s\S]*ibtracert SRC_LID DST_LID > trace\.txt/);
  });
});

test("a node or switch name with a line break stays inside its comment: the file still reads as the same topology", async () => {
  const dir = gathered({
    "gpu-01": { ens1f0: ["u0-leaf-r0\nlayout: flat", "swp1"], ens2f0: ["u0-leaf-r1", "swp1"] },
    "gpu-02": { ens1f0: ["u0-leaf-r0\nlayout: flat", "swp2"] },
  });
  const r = await run("fleet", "topology", "--from-lldp", dir);
  expect(r.code).toBe(0);
  expect(r.out).toContain("leaves u0-leaf-r0\\u000alayout: flat, u0-leaf-r1");
  expect(r.out.split("\n").filter((l) => l.startsWith("layout:"))).toEqual(["layout: rail-optimised"]);
  expect(r.err.split("\n").filter(Boolean)).toHaveLength(1);
});

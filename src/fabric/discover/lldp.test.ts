import { describe, expect, test } from "vitest";
import { type LldpNeighbour, parseLldpJson, topologyFromLldp } from "./lldp.js";

// Shapes: `-f json0` makes every level an array of { value } objects (lldpcli(8), https://www.mankier.com/8/lldpcli;
// the json0 layout as seen in github.com/sheverdinKonst/tf_statistics test.lua). `-f json` keys an interface by its
// name and a chassis by the switch's name; that layout is written here from lldpd's documented behaviour (one
// interface an object, several an array), not checked against a captured sample. Hosts, switches, ports made up.
const JSON_TWO = JSON.stringify({
  lldp: {
    interface: [
      {
        ens1f0: {
          via: "LLDP",
          chassis: { "leaf-u0-r0": { id: { type: "mac", value: "0c:42:a1:00:00:10" }, descr: "switch OS" } },
          port: { id: { type: "ifname", value: "swp7" }, descr: "to gpu-node-a nic0", ttl: "120" },
        },
      },
      {
        ens2f0: {
          via: "LLDP",
          chassis: { "leaf-u0-r1": { id: { type: "mac", value: "0c:42:a1:00:00:11" } } },
          port: { id: { type: "ifname", value: "swp7" } },
        },
      },
    ],
  },
});

const JSON0_ONE = JSON.stringify({
  lldp: [
    {
      interface: [
        {
          name: "ens1f0",
          via: "LLDP",
          chassis: [{ id: [{ type: "mac", value: "0c:42:a1:00:00:20" }], name: [{ value: "leaf-u1-r0" }] }],
          port: [{ id: [{ type: "mac", value: "0c:42:a1:00:00:99" }], descr: [{ value: "Ethernet12" }] }],
        },
      ],
    },
  ],
});

describe("LLDP neighbours from lldpd's JSON", () => {
  test("-f json with two interfaces: each NIC's switch (chassis key) and port (ifname id)", () => {
    expect(parseLldpJson(JSON_TWO, "a.json")).toEqual([
      { iface: "ens1f0", switchName: "leaf-u0-r0", switchPort: "swp7" },
      { iface: "ens2f0", switchName: "leaf-u0-r1", switchPort: "swp7" },
    ]);
  });
  test("-f json0: arrays of { value }; a MAC port id falls back to the port description", () => {
    expect(parseLldpJson(JSON0_ONE, "b.json")).toEqual([
      { iface: "ens1f0", switchName: "leaf-u1-r0", switchPort: "Ethernet12" },
    ]);
  });
  test("not JSON, or no lldp key → a message saying what was expected", () => {
    expect(parseLldpJson("Interface: ens1f0", "c.txt")).toMatch(
      /not JSON: expected the output of `lldpcli show neighbors -f json`/,
    );
    expect(parseLldpJson("{}", "d.json")).toMatch(/expected an object with an "lldp" key/);
  });
});

describe("a rail-optimised topology from the neighbours", () => {
  const nics = ["ens1f0", "ens2f0"];
  const node = (unit: number): LldpNeighbour[] =>
    nics.map((iface, r) => ({ iface, switchName: `leaf-u${unit}-r${r}`, switchPort: "swp1" }));

  test("two units of two rails: nodes grouped by the switches their NICs reach", () => {
    const got = topologyFromLldp(
      new Map([
        ["n1", node(0)],
        ["n2", node(0)],
        ["n3", node(1)],
      ]),
      nics,
    );
    if (typeof got === "string") throw new Error(got);
    expect(got.topology).toEqual({ layout: "rail-optimised", units: 2, rails: 2 });
    expect([...got.unitOf]).toEqual([
      ["n1", 0],
      ["n2", 0],
      ["n3", 1],
    ]);
  });
  test("every NIC on one switch → flat; a NIC without a neighbour → says which and what to do", () => {
    const one = (s: string) => nics.map((iface) => ({ iface, switchName: s, switchPort: "p" }));
    const flat = topologyFromLldp(
      new Map([
        ["n1", one("tor-1")],
        ["n2", one("tor-1")],
      ]),
      nics,
    );
    expect(typeof flat !== "string" && flat.topology).toEqual({ layout: "flat", units: 1 });
    expect(topologyFromLldp(new Map([["n1", node(0).slice(0, 1)]]), nics)).toMatch(
      /n1: no LLDP neighbour on ens2f0; run lldpd on every node/,
    );
  });
  test("a switch shared by two different switch sets is not rail-optimised → said, not guessed", () => {
    const odd: LldpNeighbour[] = [
      { iface: "ens1f0", switchName: "leaf-u0-r0", switchPort: "p" },
      { iface: "ens2f0", switchName: "leaf-u9-r1", switchPort: "p" },
    ];
    expect(
      topologyFromLldp(
        new Map([
          ["n1", node(0)],
          ["n2", odd],
        ]),
        nics,
      ),
    ).toMatch(/serves nodes of two different switch sets/);
  });
});

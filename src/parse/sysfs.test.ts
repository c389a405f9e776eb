import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  ipv4MappedAddress,
  parseGid,
  parseGidType,
  parseLinkLayer,
  parseNumaNode,
  parsePcieSpeed,
  parsePhysState,
  parsePortState,
  parseRate,
  parseSysfsHex,
  pcieGenOfSpeed,
  showGidsIpv4,
} from "./sysfs.js";

const value = <T>(r: { ok: true; value: T } | { ok: false }) => (r.ok ? r.value : undefined);

describe("port state and physical state, as the kernel prints them", () => {
  test("a healthy port reads `4: ACTIVE` / `5: LinkUp`", () => {
    expect(value(parsePortState("4: ACTIVE\n"))).toEqual({ code: 4, state: "ACTIVE" });
    expect(value(parsePhysState("5: LinkUp\n"))).toEqual({ code: 5, state: "LinkUp" });
  });
  test("a RoCE port whose netdev is down reads `1: DOWN` / `3: Disabled`", () => {
    expect(value(parsePortState("1: DOWN"))?.state).toBe("DOWN");
    expect(value(parsePhysState("3: Disabled"))?.state).toBe("Disabled");
  });
  test("`7: Phy Test` keeps its meaning without the space", () => {
    expect(value(parsePhysState("7: Phy Test"))?.state).toBe("PhyTest");
  });
  test("an unknown code is UNKNOWN with a problem; garbage is a problem naming the path", () => {
    const r = parsePortState("9: WEIRD");
    expect(r.ok && r.value.state).toBe("UNKNOWN");
    expect(r.problems).toHaveLength(1);
    const bad = parsePortState("ACTIVE", "/sys/class/infiniband/mlx5_1/ports/1/state");
    expect(bad.ok).toBe(false);
    expect(bad.problems[0]?.path).toBe("/sys/class/infiniband/mlx5_1/ports/1/state");
    expect(bad.problems[0]?.message).toMatch(/expected a port state like `4: ACTIVE`, found "ACTIVE"/);
  });
});

describe("rate: the number counts, the label is synthetic on RoCE", () => {
  test.each([
    ["200 Gb/sec (4X HDR)", 200, 4, "HDR"],
    ["25 Gb/sec (1X EDR)", 25, 1, "EDR"],
    ["100 Gb/sec (2X HDR)", 100, 2, "HDR"],
    ["2.5 Gb/sec (1X SDR)", 2.5, 1, "SDR"],
    ["400 Gb/sec (4X NDR)", 400, 4, "NDR"],
  ])("%s → %d Gb/s", (text, gbps, lanes, label) => {
    expect(value(parseRate(text))).toEqual({ gbps, lanes, label });
  });
  test("a rate without a number is a problem", () => {
    expect(parseRate("Gb/sec").ok).toBe(false);
  });
});

describe("link layer", () => {
  test("the three kernel words", () => {
    expect(value(parseLinkLayer("Ethernet\n"))).toBe("Ethernet");
    expect(value(parseLinkLayer("InfiniBand"))).toBe("InfiniBand");
    const r = parseLinkLayer("Fibre");
    expect(r.ok && r.value).toBe("Unknown");
    expect(r.problems).toHaveLength(1);
  });
});

describe("GIDs: uncompressed sysfs form decoded in NCCL's terms", () => {
  test("the seed's mlx5_1 IPv4-mapped GID decodes to 25.11.128.2", () => {
    expect(value(parseGid("0000:0000:0000:0000:0000:ffff:190b:8002\n"))).toEqual({
      gid: "0000:0000:0000:0000:0000:ffff:190b:8002",
      configured: true,
      kind: "ipv4",
      ipv4: "25.11.128.2",
    });
    expect(ipv4MappedAddress("0000:0000:0000:0000:0000:ffff:0a00:3c03")).toBe("10.0.60.3");
  });
  test("the MAC-derived fe80 GID is link-local", () => {
    expect(value(parseGid("fe80:0000:0000:0000:eaeb:d3ff:fecc:c920"))?.kind).toBe("link_local");
  });
  test("a global IPv6 address is ipv6_global", () => {
    const r = value(parseGid("fd00:0025:0011:0128:0000:0000:0000:0130"));
    expect(r).toMatchObject({ kind: "ipv6_global", ipv4: null, configured: true });
  });
  test("all-zero and bare fe80:: slots are unconfigured (show_gids and NCCL skip them)", () => {
    expect(value(parseGid("0000:0000:0000:0000:0000:0000:0000:0000"))).toMatchObject({ configured: false, kind: null });
    expect(value(parseGid("fe80:0000:0000:0000:0000:0000:0000:0000"))).toMatchObject({ configured: false });
  });
  test("on an InfiniBand port the GID is of kind ib", () => {
    expect(value(parseGid("fe80:0000:0000:0000:b859:9f03:00c8:1a20", { linkLayer: "InfiniBand" }))?.kind).toBe("ib");
  });
  test("a compressed or truncated GID is a problem", () => {
    expect(parseGid("::ffff:25.11.128.2").ok).toBe(false);
    expect(parseGid("fe80:0000:0000").ok).toBe(false);
  });
  test("show_gids decodes IPv4 whenever the first group is 0000", () => {
    expect(showGidsIpv4("0000:0000:0000:0000:0000:ffff:190b:80e2")).toBe("25.11.128.226");
    expect(showGidsIpv4("fe80:0000:0000:0000:eaeb:d3ff:fecc:c920")).toBeNull();
    expect(showGidsIpv4("0000:0000:0000:0000:0000:ffff:zz0b:80e2")).toBeNull(); // not hex: no address, not "NaN.11…"
  });
  test("any IPv4 address comes back from its mapped GID, in lower or upper case hex", () => {
    const byte = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(fc.tuple(byte, byte, byte, byte), fc.boolean(), (ip, upper) => {
        const [a, b, c, d] = ip.map((n) => n.toString(16).padStart(2, "0"));
        const tail = `${a}${b}:${c}${d}`;
        const gid = `0000:0000:0000:0000:0000:ffff:${upper ? tail.toUpperCase() : tail}`;
        expect(ipv4MappedAddress(gid)).toBe(ip.join("."));
        expect(showGidsIpv4(gid)).toBe(ip.join("."));
      }),
    );
  });
});

describe("GID types", () => {
  test("`IB/RoCE v1` → v1 and `RoCE v2` → v2", () => {
    expect(value(parseGidType("IB/RoCE v1\n"))).toEqual({ raw: "IB/RoCE v1", version: "v1" });
    expect(value(parseGidType("RoCE v2"))).toEqual({ raw: "RoCE v2", version: "v2" });
    expect(parseGidType("RoCE").ok).toBe(false);
  });
});

describe("PCI values", () => {
  test("hex ids, NUMA nodes and link speeds", () => {
    expect(value(parseSysfsHex("0x15b3\n"))).toEqual({ text: "0x15b3", value: 0x15b3 });
    expect(value(parseNumaNode("-1"))).toBeNull();
    expect(value(parseNumaNode("1\n"))).toBe(1);
    expect(value(parsePcieSpeed("16.0 GT/s PCIe\n"))).toBe(16);
    expect(value(parsePcieSpeed("8 GT/s"))).toBe(8);
    expect(value(parsePcieSpeed("Unknown"))).toBeNull();
    expect(pcieGenOfSpeed(16)).toBe(4);
    expect(pcieGenOfSpeed(2.5)).toBe(1);
  });
});

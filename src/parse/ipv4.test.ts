import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { cidrHolds, cidrRange, intToIpv4, ipv4ToInt, maskPrefix, networkOf } from "./ipv4.js";

describe("IPv4 addresses and blocks", () => {
  test("a rail's /27: network, mask, membership", () => {
    expect(networkOf("25.11.128.34", 27)).toBe("25.11.128.32");
    expect(maskPrefix(ipv4ToInt("255.255.255.224")!)).toBe(27);
    expect(maskPrefix(ipv4ToInt("255.0.255.0")!)).toBeNull();
    expect(cidrHolds("25.11.128.32/27", "25.11.128.34")).toBe(true);
    expect(cidrHolds("25.11.128.32/27", "25.11.128.66")).toBe(false);
    expect(cidrRange("25.11.128.32/27")).toEqual({ first: ipv4ToInt("25.11.128.32"), last: ipv4ToInt("25.11.128.63") });
  });

  test("a mask's prefix length: every /0 … /32, and null for any mask whose ones are not a prefix", () => {
    const maskOf = (bits: number) => 2 ** 32 - 2 ** (32 - bits);
    for (let bits = 0; bits <= 32; bits++) expect(maskPrefix(maskOf(bits))).toBe(bits);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
        const prefixes = Array.from({ length: 33 }, (_, b) => b).filter((b) => maskOf(b) === n);
        expect(maskPrefix(n)).toBe(prefixes[0] ?? null);
      }),
    );
  });

  test("not an address → null, never a wrong number", () => {
    for (const bad of ["25.11.128", "25.11.128.256", "a.b.c.d", "", "1.2.3.4.5"]) expect(ipv4ToInt(bad)).toBeNull();
    expect(cidrRange("25.11.128.0/33")).toBeNull();
    expect(cidrHolds("nonsense", "25.11.128.1")).toBe(false);
    expect(intToIpv4(ipv4ToInt("10.0.60.3")!)).toBe("10.0.60.3");
  });
});

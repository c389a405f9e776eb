import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { classifyGid, compressGid, expandGid, ipv4OfGid } from "./gid-text.js";

describe("GID text", () => {
  test("ibv_devinfo's compressed IPv4-mapped GID expands to the sysfs form and decodes back to the address", () => {
    const gid = expandGid("::ffff:10.200.1.10");
    expect(gid).toBe("0000:0000:0000:0000:0000:ffff:0ac8:010a");
    expect(ipv4OfGid(gid!)).toBe("10.200.1.10");
    expect(classifyGid(gid!)).toBe("ipv4");
  });

  test("link-local, global IPv6 and empty slots are told apart as NCCL does", () => {
    expect(classifyGid(expandGid("fe80::eaeb:d3ff:fecc:c920")!)).toBe("link_local");
    expect(classifyGid(expandGid("fd00:0:0:19::130")!)).toBe("ipv6_global");
    expect(classifyGid(expandGid("fe80::")!)).toBe("empty");
    expect(classifyGid("0000:0000:0000:0000:0000:0000:0000:0000")).toBe("empty");
  });

  test("text that is not an IPv6 address is refused", () => {
    for (const t of ["", "1::2::3", "0000:0000", "zz80::1", "::ffff:300.1.1.1", "1:2:3:4:5:6:7:8:9"]) {
      expect(expandGid(t)).toBeNull();
    }
  });

  test("property: any 16 bytes round-trip through the uncompressed form", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const groups = [];
        for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16).padStart(4, "0"));
        const full = groups.join(":");
        expect(expandGid(full)).toBe(full);
        expect(expandGid(groups.map((g) => g.replace(/^0+(?=.)/, "")).join(":"))).toBe(full);
      }),
    );
  });

  test("compressed text per RFC 5952: lowercase, no leading zeros, the longest zero run as ::, one zero kept", () => {
    expect(compressGid("FD00:0010:0000:0000:0000:0000:0000:0000")).toBe("fd00:10::");
    expect(compressGid("2001:0db8:0000:0000:0001:0000:0000:0001")).toBe("2001:db8::1:0:0:1");
    expect(compressGid("2001:db8:0:1:1:1:1:1")).toBe("2001:db8:0:1:1:1:1:1");
    expect(compressGid("0000:0000:0000:0000:0000:0000:0000:0000")).toBe("::");
    expect(compressGid("fd00::0:1/64")).toBeNull();
  });

  test("property: compressGid writes what WHATWG URLs write for the same 16 bytes, and expands back", () => {
    const group = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (values) => {
        const full = values.map((v) => v.toString(16).padStart(4, "0")).join(":");
        const text = compressGid(full)!;
        expect(`[${text}]`).toBe(new URL(`http://[${full}]/`).hostname);
        expect(expandGid(text)).toBe(full);
      }),
    );
  });

  test("property: random text never throws", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (t) => {
        const gid = expandGid(t);
        if (gid !== null) expect(gid).toMatch(/^[0-9a-f]{4}(:[0-9a-f]{4}){7}$/);
      }),
    );
  });
});

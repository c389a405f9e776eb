import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { decodeBytesHex, encodeBytesHex } from "./hex-bytes.js";

describe("config space as hex text (snapshots carry PCI config this way)", () => {
  test("any bytes round-trip, trailing zeros as *N; spaced or upper-case hex reads the same", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.nat(64), (bytes, zeros) => {
        const all = new Uint8Array(bytes.length + zeros);
        all.set(bytes);
        const text = encodeBytesHex(all);
        expect(decodeBytesHex(text)).toEqual(all);
        const star = text.indexOf("*");
        const hex = star < 0 ? text : text.slice(0, star);
        const spaced = (hex.toUpperCase().match(/../g) ?? []).join(" ") + (star < 0 ? "" : ` ${text.slice(star)}`);
        expect(decodeBytesHex(spaced)).toEqual(all);
      }),
      { seed: 20261203, numRuns: 300 },
    );
  });

  test("not hex, an odd digit, a *N smaller than the bytes or over 1 MiB → null", () => {
    expect(decodeBytesHex("zz")).toBeNull();
    expect(decodeBytesHex("abc")).toBeNull();
    expect(decodeBytesHex("0102*1")).toBeNull();
    expect(decodeBytesHex("01*2000000")).toBeNull();
    expect(decodeBytesHex("01*x")).toBeNull();
  });
});

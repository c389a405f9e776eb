import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { decodeBytesHex, decodeHexHead, encodeBytesHex } from "./hex-bytes.js";

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

  test("a 4096-byte config space with 300 bytes written out: those 300 bytes and the length, the zeros never allocated", () => {
    const space = new Uint8Array(4096);
    for (let i = 0; i < 300; i++) space[i] = (i * 7 + 1) % 256 || 1;
    const text = encodeBytesHex(space);
    const h = decodeHexHead(text);
    expect(h?.length).toBe(4096);
    expect(h?.head).toEqual(Buffer.from(space.subarray(0, 300)));
    // Spaced and upper-case text: the same bytes, the same length.
    const spaced = `${(text.slice(0, 600).toUpperCase().match(/../g) ?? []).join(" ")} *4096`;
    expect(decodeHexHead(spaced)).toEqual({ head: Uint8Array.from(space.subarray(0, 300)), length: 4096 });
  });

  test("head and length agree with the whole bytes for any text, well-formed or not", () => {
    const alphabet = "0123456789abcdefABCDEF g*x\n";
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }), (chars) => {
        const text = chars.join("");
        const whole = decodeBytesHex(text);
        const h = decodeHexHead(text);
        if (whole === null) expect(h).toBeNull();
        else {
          expect(h?.length).toBe(whole.length);
          expect([...whole.subarray(0, h!.head.length)]).toEqual([...h!.head]);
          expect(whole.subarray(h!.head.length).every((b) => b === 0)).toBe(true);
        }
      }),
      { seed: 20261203, numRuns: 500 },
    );
  });
});

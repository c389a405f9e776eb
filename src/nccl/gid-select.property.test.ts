/** coveringCidr6 against a bit-string oracle: the block holds every address and is the longest prefix they share. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { expandGid } from "../parse/gid-text.js";
import { coveringCidr6 } from "./gid-select.js";

const ALL = (1n << 128n) - 1n;
const bits = (n: bigint) => n.toString(2).padStart(128, "0");
const fullText = (n: bigint) => n.toString(16).padStart(32, "0").match(/.{4}/g)!.join(":");
const numberOf = (text: string) => BigInt(`0x${expandGid(text)!.replaceAll(":", "")}`);

/** Addresses that share a random prefix of `shared` bits, written as sysfs prints GIDs or as `ibv_devinfo` does. */
const cluster = fc
  .record({
    base: fc.bigInt({ min: 0n, max: ALL }),
    shared: fc.integer({ min: 0, max: 128 }),
    hosts: fc.array(fc.bigInt({ min: 0n, max: ALL }), { minLength: 1, maxLength: 10 }),
    compressed: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
  })
  .map(({ base, shared, hosts, compressed }) => {
    const hostMask = (1n << BigInt(128 - shared)) - 1n;
    const values = hosts.map((h) => (base & ~hostMask & ALL) | (h & hostMask));
    const texts = values.map((v, i) =>
      compressed[i] ? new URL(`http://[${fullText(v)}]/`).hostname.slice(1, -1) : fullText(v),
    );
    return { shared, values, texts };
  });

describe("coveringCidr6", () => {
  test("property: the block contains every address, its prefix is their longest common one, host bits are zero", () => {
    fc.assert(
      fc.property(cluster, ({ shared, values, texts }) => {
        const [network, len] = coveringCidr6(texts)!.split("/") as [string, string];
        const prefix = Number(len);
        const net = numberOf(network);
        const oracle = values.map(bits).reduce((common, b) => {
          let i = 0;
          while (i < common.length && common[i] === b[i]) i++;
          return common.slice(0, i);
        });
        expect(prefix).toBe(oracle.length);
        expect(prefix).toBeGreaterThanOrEqual(shared);
        expect(bits(net)).toBe(oracle.padEnd(128, "0"));
        for (const v of values) expect(bits(v).startsWith(bits(net).slice(0, prefix))).toBe(true);
        if (prefix < 128) {
          // One bit longer would leave an address out: the addresses do not all agree on bit `prefix`.
          expect(new Set(values.map((v) => bits(v)[prefix])).size).toBe(2);
        }
        expect(`[${network}]`).toBe(new URL(`http://[${network}]/`).hostname);
      }),
    );
  });

  test("property: order does not matter and text that is not an address is ignored", () => {
    fc.assert(
      fc.property(cluster, fc.string({ maxLength: 12 }), ({ texts }, junk) => {
        const expected = coveringCidr6(texts);
        const other = expandGid(junk) === null ? [junk] : [];
        expect(coveringCidr6([...other, ...[...texts].reverse()])).toBe(expected);
      }),
    );
  });

  test("examples: one address is its own /128; nothing valid is null", () => {
    expect(coveringCidr6(["fd00:0010:0000:0000:0000:0000:0000:0001"])).toBe("fd00:10::1/128");
    expect(coveringCidr6(["fd00:10:0:1::2", "fd00:10:0:8::2"])).toBe("fd00:10::/60");
    expect(coveringCidr6(["fd00:10::eaeb:d3ff:fecc:c920", "fd00:10::e42:a1ff:fe00:1"])).toBe("fd00:10::/64");
    expect(coveringCidr6(["::1", "8000::"])).toBe("::/0");
    // With a cap (nccl-env passes 64: one LAN), a block is never narrower than the cap.
    expect(coveringCidr6(["fd00:25:11:128::1", "fd00:25:11:128::8"], 64)).toBe("fd00:25:11:128::/64");
    expect(coveringCidr6(["fd00:10:0:1::2", "fd00:10:0:8::2"], 64)).toBe("fd00:10::/60");
    expect(coveringCidr6(["25.11.128.2", "nonsense"])).toBeNull();
    expect(coveringCidr6([])).toBeNull();
  });
});

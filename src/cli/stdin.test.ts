import { describe, expect, test } from "vitest";
import { readPrefix } from "./stdin.js";

/** `text`'s bytes in pieces of `size`, cutting UTF-8 sequences wherever they fall. */
async function* pieces(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text, "utf8");
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function joined(raw: AsyncIterable<Uint8Array | string>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of raw) parts.push(typeof p === "string" ? Buffer.from(p) : Buffer.from(p));
  return Buffer.concat(parts);
}

describe("standard input's first bytes decide: one text, or a stream", () => {
  const text = "gpu-nöde-01 ✓ NCCL INFO réseau\n".repeat(200); // 2- and 3-byte characters

  test("an input up to the limit is one text, decoded whole even when characters straddle the pipe's pieces", async () => {
    const limit = Buffer.byteLength(text);
    for (const size of [1, 3, 7, 64]) {
      const p = await readPrefix(pieces(text, size), limit);
      expect(p).toEqual({ status: "whole", text });
    }
  });

  test("past the limit: the head is the first characters, and the raw parts hand out every byte, in order", async () => {
    const p = await readPrefix(pieces(text, 5), 100, 40);
    if (p.status !== "more") throw new Error("expected a stream");
    expect(p.head).toBe(text.slice(0, 40));
    expect((await joined(p.raw)).toString("utf8")).toBe(text);
  });

  test("an empty input is an empty text", async () => {
    expect(await readPrefix(pieces("", 8), 10)).toEqual({ status: "whole", text: "" });
  });
});

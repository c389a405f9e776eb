import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { comparableReport, everyFixtureLog } from "../../../test/support/nccl-log-fixtures.js";
import { analyzeNcclLog } from "./analyzer.js";
import { analyzeNcclLogChunks, lineSegments, type Segment } from "./segments.js";

const everything = everyFixtureLog();
const comparable = comparableReport;

/** `bytes` as a pipe delivers it: uneven pieces, UTF-8 sequences split between them. */
async function* piecesOf(bytes: Uint8Array, sizes = [1, 7, 4093, 65536, 100_003, 17]): AsyncGenerator<Uint8Array> {
  for (let at = 0, k = 0; at < bytes.length; k++) {
    const piece = bytes.subarray(at, at + (sizes[k % sizes.length] as number));
    at += piece.length;
    yield piece;
  }
}

async function collect(segments: AsyncIterable<Segment>): Promise<Segment[]> {
  const out: Segment[] = [];
  for await (const s of segments) out.push("lines" in s ? { lines: Buffer.from(s.lines) } : s);
  return out;
}

describe("a log from a pipe is cut into whole-line segments and scanned in parallel, as one pass would", () => {
  const bytes = Buffer.from(everything.repeat(6), "utf8");

  test.each([0, 1, 2, 3])(
    "every fixture log six times over, piped in uneven pieces, on %i thread(s)",
    async (threads) => {
      const r = await analyzeNcclLogChunks(piecesOf(bytes), {}, { threads, segmentBytes: 16 << 10 });
      expect(comparable(r)).toEqual(comparable(analyzeNcclLog(bytes.toString("utf8"))));
    },
  );

  test("text chunks (a test's or a caller's strings) give the same report as their bytes", async () => {
    async function* texts() {
      for (let at = 0; at < everything.length; at += 5000) yield everything.slice(at, at + 5000);
    }
    const r = await analyzeNcclLogChunks(texts(), {}, { threads: 2, segmentBytes: 8 << 10 });
    expect(comparable(r)).toEqual(comparable(analyzeNcclLog(everything)));
  });

  test("segments end at line ends, never split a character, and together are the input", async () => {
    const input = Buffer.from(everything.slice(0, 20_000), "utf8");
    const longest = Math.max(
      ...input
        .toString("utf8")
        .split("\n")
        .map((l) => Buffer.byteLength(l) + 1),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: longest, max: 4096 }), async (size) => {
        const segments = await collect(lineSegments(piecesOf(input, [size, 3, 1000]), size));
        const lines = segments.map((s) => ("lines" in s ? s.lines : Buffer.alloc(0)));
        expect(Buffer.concat(lines).equals(input)).toBe(true);
        for (const l of lines.slice(0, -1)) expect(l.at(-1)).toBe(10);
        for (const l of lines) expect(l.toString("utf8")).not.toContain("\ufffd");
      }),
      { numRuns: 25 },
    );
  });

  test("a 'line' longer than a segment (a dump with no newline) is one binary line, skipped to its end", async () => {
    const dump = "\u0001".repeat(50_000);
    const text = `${everything.slice(0, 3000)}\n${dump}\n${everything.slice(3000)}`;
    const segments = await collect(lineSegments(piecesOf(Buffer.from(text, "utf8")), 8 << 10));
    expect(segments.filter((s) => "overlong" in s)).toHaveLength(1);
    const r = await analyzeNcclLogChunks(
      piecesOf(Buffer.from(text, "utf8")),
      {},
      { threads: 2, segmentBytes: 8 << 10 },
    );
    const alone = analyzeNcclLog(`${everything.slice(0, 3000)}\n${everything.slice(3000)}`);
    const binary = (x: typeof r) => x.problems?.find((p) => p.code === "nccl_log.binary")?.message ?? "";
    expect(binary(alone)).toBe("");
    expect(binary(r)).toMatch(/^1 line\(s\) hold binary data/);
    expect(r.data.verdict).toBe(alone.data.verdict);
    expect(r.data.ranks).toBe(alone.data.ranks);
  });

  test("an empty stream gives the empty log's report", async () => {
    async function* none(): AsyncGenerator<Uint8Array> {}
    expect(comparable(await analyzeNcclLogChunks(none(), {}, { threads: 2 }))).toEqual(comparable(analyzeNcclLog("")));
  });
});

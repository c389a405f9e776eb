import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { fixtureText } from "../../test/support/fixtures.js";
import { analyzeNcclLog, createNcclLogStream } from "./log/analyzer.js";
import { analyzeNcclTests } from "./perf-results/analyzer.js";

const LOGS = [
  "roce-2node-gdr-2.18.txt",
  "roce-2node-gdr-2.23-mpi.txt",
  "socket-fallback-no-device.txt",
  "status12-2.27.txt",
  "ib-2node-gdr-2.7.txt",
  "mixed-versions-srun.txt",
].map((n) => fixtureText("nccl-logs", n));
const PERF = ["allreduce-2node-a100-hdr-185.txt", "alltoall-2node-blank-redop.txt", "allreduce-2node-J.json"].map((n) =>
  fixtureText("nccl-tests", n),
);
const VERDICTS = ["rdma_gdr", "rdma_partial_gdr", "rdma_no_gdr", "socket", "init_failed", "unknown"];

/** A real capture, mutated: cut anywhere, lines dropped/duplicated/shuffled, bytes flipped, garbage spliced in. */
function mutated(sources: readonly string[]) {
  return fc
    .record({
      src: fc.constantFrom(...sources),
      cut: fc.nat(),
      drop: fc.array(fc.nat(), { maxLength: 6 }),
      dup: fc.array(fc.nat(), { maxLength: 4 }),
      garbage: fc.string({ maxLength: 200, unit: "binary" }),
      at: fc.nat(),
      flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 0xffff })), { maxLength: 8 }),
    })
    .map(({ src, cut, drop, dup, garbage, at, flips }) => {
      const lines = src.slice(0, cut % (src.length + 1)).split("\n");
      for (const d of drop) lines.splice(d % (lines.length || 1), 1);
      for (const d of dup) lines.splice(d % (lines.length || 1), 0, lines[d % (lines.length || 1)] ?? "");
      lines.splice(at % (lines.length + 1), 0, garbage);
      const chars = [...lines.join("\n")];
      for (const [i, c] of flips) if (chars.length) chars[i % chars.length] = String.fromCharCode(c);
      return chars.join("");
    });
}

describe("NCCL log analyser never throws and always answers with a verdict", () => {
  test("random text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000, unit: "binary" }), (text) => {
        const r = analyzeNcclLog(text);
        expect(VERDICTS).toContain(r.data.verdict);
      }),
      { numRuns: 300 },
    );
  });

  test("mutated real logs, streamed in random chunks, agree with the whole-text result", () => {
    fc.assert(
      fc.property(mutated(LOGS), fc.integer({ min: 1, max: 500 }), (text, size) => {
        const whole = analyzeNcclLog(text);
        const s = createNcclLogStream();
        for (let i = 0; i < text.length; i += size) s.write(text.slice(i, i + size));
        const streamed = s.end();
        expect(streamed.data).toEqual(whole.data);
        expect(VERDICTS).toContain(whole.data.verdict);
        expect(whole.data.connections.netGdr).toBeLessThanOrEqual(whole.data.connections.net);
      }),
      { numRuns: 200 },
    );
  });

  test("a connection line cut by a stray newline ('via N' / 'T/IB/0/GDRDMA') reads the same streamed byte by byte", () => {
    const text =
      "gpu-node-2:3301:3390 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [receive] via N\nT/IB/0/GDRDMA\n" +
      "gpu-node-2:3301:3390 [0] NCCL INFO Channel 01/0 : 1[1] -> 2[0] [receive] via NET/IB/0/GDRDMA\n";
    const whole = analyzeNcclLog(text);
    const s = createNcclLogStream();
    for (const ch of text) s.write(ch);
    expect(s.end().data).toEqual(whole.data);
    expect(whole.data.connections).toMatchObject({ net: 1, netGdr: 1, other: 1 });
  });

  test("lines of mixed NCCL versions: every version is reported", () => {
    const version = fc.tuple(
      fc.integer({ min: 2, max: 2 }),
      fc.integer({ min: 4, max: 30 }),
      fc.integer({ min: 0, max: 12 }),
    );
    fc.assert(
      fc.property(fc.array(version, { minLength: 1, maxLength: 8 }), (versions) => {
        const text = versions
          .map(([a, b, c], i) => `node-${i}:${100 + i}:${100 + i} [0] NCCL INFO NCCL version ${a}.${b}.${c}+cuda12.2`)
          .join("\n");
        const r = analyzeNcclLog(text);
        expect(new Set(r.data.ncclVersions)).toEqual(new Set(versions.map(([a, b, c]) => `${a}.${b}.${c}`)));
      }),
      { numRuns: 100 },
    );
  });
});

describe("nccl-tests analyser never throws", () => {
  test("random text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000, unit: "binary" }), (text) => {
        const r = analyzeNcclTests(text);
        if (r.data === null) expect(r.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  test("mutated real outputs: rows are numbers, problems instead of crashes", () => {
    fc.assert(
      fc.property(mutated(PERF), (text) => {
        const r = analyzeNcclTests(text);
        if (r.data === null) {
          expect(r.problems.length).toBeGreaterThan(0);
          return;
        }
        for (const row of r.data.rows) {
          expect(Number.isFinite(row.bytes)).toBe(true);
          for (const p of [row.outOfPlace, row.inPlace]) {
            if (p?.busbw != null) expect(Number.isFinite(p.busbw)).toBe(true);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

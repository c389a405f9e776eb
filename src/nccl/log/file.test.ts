import { closeSync, mkdtempSync, openSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { comparableReport, everyFixtureLog } from "../../../test/support/nccl-log-fixtures.js";
import { analyzeNcclLog } from "./analyzer.js";
import { analyzeNcclLogFile, lineAlignedRanges, scanRange } from "./file.js";
import { reportLog } from "./report.js";
import { LogState, mergeInto } from "./state.js";

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-nccl-file-"));
let n = 0;
function fileWith(text: string): string {
  const path = join(dir, `log-${n++}.txt`);
  writeFileSync(path, text);
  return path;
}

const everything = everyFixtureLog();
const comparable = comparableReport;

describe("a large log file is read in parallel parts and gives the report one pass gives", () => {
  test.each([1, 2, 3, 5, 8])(
    "every fixture log in one file, in %i part(s): same data, findings and problems",
    async (threads) => {
      const path = fileWith(everything);
      const whole = analyzeNcclLog(everything);
      expect(comparable(await analyzeNcclLogFile(path, {}, { threads }))).toEqual(comparable(whole));
    },
  );

  test("parts always start at a line start and cover the file", () => {
    const text = "a\nbb\n\nccc\nd";
    const fd = openSync(fileWith(text), "r");
    try {
      for (let parts = 1; parts <= 12; parts++) {
        const ranges = lineAlignedRanges(fd, text.length, parts);
        expect(ranges[0]!.start).toBe(0);
        expect(ranges.at(-1)!.end).toBe(text.length);
        for (const [i, r] of ranges.entries()) {
          expect(r.start === 0 || text[r.start - 1] === "\n").toBe(true);
          if (i > 0) expect(r.start).toBe(ranges[i - 1]!.end);
        }
      }
    } finally {
      closeSync(fd);
    }
  });

  test("UTF-8 characters split across 64 KiB reads are decoded whole (warning samples keep them)", async () => {
    const filler = "x".repeat((64 << 10) - 60);
    const text = `${filler}\ngpu-a:1:1 [0] NCCL WARN Cuda failure 'out of memory' — réessayer ✓\n`;
    const path = fileWith(text);
    const r = await analyzeNcclLogFile(path, {}, { threads: 1 });
    expect(comparable(r)).toEqual(comparable(analyzeNcclLog(text)));
    expect(JSON.stringify(r.data)).toContain("réessayer ✓");
  });

  test("any cut of the lines into consecutive parts, merged in order, equals one pass", () => {
    const lines = everything.split("\n");
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: lines.length - 1 }), { maxLength: 6 }), (cuts) => {
        const bounds = [0, ...cuts.sort((a, b) => a - b), lines.length];
        const parts = bounds.slice(1).map((end, i) => {
          const last = end === lines.length;
          const text = lines.slice(bounds[i], end).join("\n") + (last ? "" : "\n");
          const fd = openSync(fileWith(text), "r");
          try {
            return scanRange(fd, { start: 0, end: Buffer.byteLength(text) });
          } finally {
            closeSync(fd);
          }
        });
        const merged = parts.slice(1).reduce((a, b) => mergeInto(a, b), parts[0]!);
        expect(comparable(reportLog(merged))).toEqual(comparable(analyzeNcclLog(everything)));
      }),
      { numRuns: 40 },
    );
  });

  test("binary garbage (invalid UTF-8, NULs, no newlines for 100 KiB) between log lines: parts agree with one pass", async () => {
    const rnd = fc.sample(fc.uint8Array({ minLength: 100_000, maxLength: 100_000 }), { numRuns: 1, seed: 7 })[0]!;
    const bytes = Buffer.concat([
      Buffer.from(everything.slice(0, 5000)),
      Buffer.from(rnd.filter((b) => b !== 10)),
      Buffer.from(`\n${everything.slice(5000)}`),
    ]);
    const path = join(dir, `garbage-${n++}.bin`);
    writeFileSync(path, bytes);
    const whole = analyzeNcclLog(bytes.toString("utf8"));
    for (const threads of [1, 3]) {
      expect(comparable(await analyzeNcclLogFile(path, {}, { threads }))).toEqual(comparable(whole));
    }
  });

  test("an empty file, and parts with nothing in them, give the empty log's report", async () => {
    const path = fileWith("");
    expect(comparable(await analyzeNcclLogFile(path, {}, { threads: 4 }))).toEqual(comparable(analyzeNcclLog("")));
    expect(comparable(reportLog(mergeInto(new LogState(), new LogState())))).toEqual(comparable(analyzeNcclLog("")));
  });
});

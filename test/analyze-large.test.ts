import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { AnalyzerKind } from "../src/analyze/types.js";
import { analyzeInput } from "../src/cli/commands/analyze.js";
import { readInput } from "../src/cli/input.js";
import { captureIo } from "./support/io.js";

const NINE_MIB = 9 * 1024 * 1024;

function bigShowGids(): string {
  const lines = ["DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV"];
  let size = 0;
  for (let d = 0; size < NINE_MIB; d++) {
    for (let i = 0; i < 4; i++) {
      const ip = `10.${(d >> 8) & 255}.${d & 255}.${i + 1}`;
      const hex = ip
        .split(".")
        .map((n) => Number(n).toString(16).padStart(2, "0"))
        .join("");
      const line = `mlx5_${d}\t1\t${i}\t0000:0000:0000:0000:0000:ffff:${hex.slice(0, 4)}:${hex.slice(4)}\t${ip}  \tv2\teth${d}`;
      lines.push(line);
      size += line.length + 1;
    }
  }
  return `${lines.join("\n")}\n`;
}

/** A test kind with a line stream: counts lines, as nccl_log's stream would parse them. */
const countingKind: AnalyzerKind = {
  kind: "nccl_log",
  detect: (head) => (head.startsWith("LINES") ? 1 : 0),
  analyze: () => ({ data: { whole: true }, findings: [], problems: [] }),
  createStream: () => {
    let lines = 0;
    return {
      push: () => {
        lines++;
      },
      end: () => ({ data: { streamed: true, lines }, findings: [], problems: [], summary: `${lines} lines` }),
    };
  },
};

describe("large inputs", () => {
  const dir = mkdtempSync(join(tmpdir(), "analyze-large-"));
  const io = { ...captureIo(), cwd: dir };

  test("a 9 MiB input of a kind with a stream is read line by line, never whole", async () => {
    const file = join(dir, "big.log");
    const line = "LINES host:1:2 [0] NCCL INFO something happened on the way to the ring\n";
    writeFileSync(file, line.repeat(Math.ceil(NINE_MIB / line.length)));
    const input = await readInput(file, io, { largeBytes: 8 * 1024 * 1024, headBytes: 64 * 1024 });
    expect(input.status).toBe("large");
    if (input.status === "large") expect(input.head.length).toBe(64 * 1024);
    const entry = await analyzeInput(input, { ctx: {}, kind: undefined, io, analyzers: [countingKind] });
    expect(entry.data).toEqual({ streamed: true, lines: Math.ceil(NINE_MIB / line.length) });
  });

  test("a large NCCL log that vanishes while it is read (rotated away) → a read problem for it, not a crash", async () => {
    const file = join(dir, "rotated.log");
    const line = "gpu-a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n";
    writeFileSync(file, line.repeat(Math.ceil(NINE_MIB / line.length)));
    const input = await readInput(file, io, { largeBytes: 8 * 1024 * 1024, headBytes: 64 * 1024 });
    rmSync(file);
    const entry = await analyzeInput(input, { ctx: {}, kind: undefined, io });
    expect(entry.kind).toBe("nccl_log");
    expect(entry.problems?.[0]?.message).toMatch(/rotated\.log: no such file/);
  });

  test("a 9 MiB show_gids (a kind without a stream) is still read and parsed whole", async () => {
    const file = join(dir, "big-gids.txt");
    writeFileSync(file, bigShowGids());
    const input = await readInput(file, io, { largeBytes: 8 * 1024 * 1024, headBytes: 64 * 1024 });
    expect(input.status).toBe("large");
    const entry = await analyzeInput(input, { ctx: {}, kind: undefined, io });
    expect(entry.kind).toBe("show_gids");
    expect((entry.data as { gids: unknown[] }).gids.length).toBeGreaterThan(100_000);
    expect(entry.problems).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import {
  bareDatetimeAt,
  colourResetStart,
  indentAt,
  launcherRankAt,
  logLineStart,
  lostEscapeColourAt,
  PLAIN_SHAPES,
  pdshLaxAt,
  plainShapeAt,
  tableBarAt,
  torchrunTagAt,
} from "./log-line-prefixes.js";

// Shapes: Open MPI --tag-output https://docs.open-mpi.org/en/v5.0.x/man-openmpi/man1/mpirun.1.html ; kubectl logs
// --timestamps (RFC 3339) https://kubernetes.io/docs/reference/kubectl/generated/kubectl_logs/ ; NCCL's
// NCCL_DEBUG_TIMESTAMP_FORMAT (`[%F %T] ` by default, src/debug.cc in https://github.com/NVIDIA/nccl) ; torchrun's
// `[default0]:` local rank tags https://pytorch.org/docs/stable/elastic/run.html ; pdsh https://linux.die.net/man/1/pdsh
const REC = "node-07:4412:4498 [3] NCCL INFO Channel 02/0 : 3[3] -> 4[4] via P2P/IPC";

describe("log-only wrappers", () => {
  it("each family reads its own shape and nothing else", () => {
    expect(torchrunTagAt(`[default3]:${REC}`, 0, 99)).toBe(11);
    expect(torchrunTagAt("[0]: NCCL INFO x", 0, 16)).toBe(-1);
    expect(launcherRankAt(`[12] ${REC}`, 0, 99)).toBe(5);
    expect(launcherRankAt("[3] NCCL INFO x", 0, 15)).toBe(-1);
    expect(launcherRankAt("[node-07:4412] NCCL WARN x", 0, 26)).toBe(-1);
    expect(tableBarAt(`| ${REC}`, 0, 99)).toBe(2);
    expect(indentAt(`    ${REC}`, 0, 99)).toBe(4);
    expect(indentAt("   12: x", 0, 8)).toBe(-1);
    expect(indentAt(`\t\t${REC}`, 0, 99)).toBe(2);
    expect(bareDatetimeAt(`2026-11-30 07:41:09 ${REC}`, 0, 99)).toBe(20);
    expect(pdshLaxAt(`node-07: ${REC}`, 0, 99)).toBe(9);
    expect(pdshLaxAt(REC, 0, REC.length)).toBe(-1);
    const coloured = `\u001b[32m${REC}\u001b[0m`;
    expect(colourResetStart(coloured, 0, coloured.length)).toBe(coloured.length - 4);
  });

  // A coloured log whose ESC characters were dropped (`[0m ` before every line), shape seen in
  // https://github.com/pytorch/pytorch/issues/68893.
  it("a colour sequence that lost its ESC is a wrapper; a host-stripped record's `[0] ` is not", () => {
    expect(lostEscapeColourAt(`[0m ${REC}`, 0, 99)).toBe(3);
    expect(lostEscapeColourAt(`[1;32m${REC}`, 0, 99)).toBe(6);
    expect(lostEscapeColourAt("[0] NCCL INFO x", 0, 15)).toBe(-1);
    expect(lostEscapeColourAt("[mlx5_0] x", 0, 10)).toBe(-1);
    const line = `[0m ${REC}`;
    expect(line.slice(logLineStart(line, 0, line.length))).toBe(REC);
  });

  it("stacked wrappers are all skipped, and the line starts at its record", () => {
    const stacks = [
      `[1,7]<stdout>:${REC}`,
      `2026-11-30T07:41:09.204518733Z [2026-11-30 07:41:09] ${REC}`,
      `\u001b[36m[default1]:\u001b[0m  ${REC}`,
      `[pod/trainer-3/worker] 2026-11-30T07:41:09+01:00 [1,12]<stderr>: ${REC}`,
      `\t${REC}`,
    ];
    for (const line of stacks) expect(line.slice(logLineStart(line, 0, line.length))).toBe(REC);
  });

  it("a plain shape's match is exactly its family reader's answer, whatever the digits, separators and line end", () => {
    // Variations around each shape (digit counts, separators, fraction, offset, trailing space/tab, cut ends): a
    // match of the compiled pattern must agree with the character reader; a miss falls back to the reader anyway.
    const parts = {
      tag: [
        "[1,0]<stdout>:",
        "[12,345]<stderr>:",
        "[1,0]<stdout>: ",
        "[1,0]<stdout>:\t",
        "[,1]<stdout>:",
        "[1,0]<stdin>:",
      ],
      date: [
        "[2026-11-30 07:41:09] ",
        "[2026-11-30T07:41:09,118]",
        "[2026-11-30 07:41:09.]",
        "[2026-1-30 07:41:09] ",
        "[2026-11-30 07:41:9] ",
      ],
      stamp: [
        "2026-11-30T07:41:09Z ",
        "2026-11-30T07:41:09.123456789Z ",
        "2026-11-30T07:41:09-08:00 ",
        "2026-11-30T07:41:09+0800 ",
        "2026-11-30T07:41:09+08:000 ",
        "2026-11-30T07:41:09.Z ",
        "2026-11-30 07:41:09Z ",
      ],
    };
    let agreed = 0;
    for (const list of Object.values(parts)) {
      for (const prefix of list) {
        const line = `${prefix}${REC}`;
        for (let end = 1; end <= prefix.length + 2; end++) {
          for (const { re, reader } of PLAIN_SHAPES) {
            const fast = plainShapeAt(re, line, 0);
            if (fast < 0 || fast > end) continue;
            expect(fast, `${re} on ${JSON.stringify(line.slice(0, end))}`).toBe(reader(line, 0, end));
            agreed++;
          }
          // Whatever the fast path does, the whole reading is the reader's: logLineStart never reads past `end`.
          expect(logLineStart(line, 0, end)).toBeLessThanOrEqual(end);
        }
      }
    }
    expect(agreed).toBeGreaterThan(20);
  });
});

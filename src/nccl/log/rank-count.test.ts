/**
 * The rank count of a log that never states it. NCCL's rank 0 prints each ring of a communicator as a ring order line,
 * and a ring holds every rank once (ncclBuildRings checks it): src/graph/rings.cc in https://github.com/NVIDIA/nccl,
 * dumpLine at v2.10.3-1 (` %3d` per value, at most 20 values, prefix `Channel %02d/%02d : `) and at v2.23.4-1 (` %*d`
 * with the width of nranks-1, a line cut at 128 characters ending in `...`, prefix `Channel %02d/%02d :`); NCCL 2.4
 * printed `Channel %02d : ` from src/init.cc (v2.4.8-1). The line counts the ranks only when it is whole, and only
 * when no line states the count (src/nccl/log/evidence.ts, ranksOf).
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const read = (lines: string[]) => analyzeNcclLog(`${lines.join("\n")}\n`).data;

describe("ranks from the ring order lines when no line states the count", () => {
  test("a three-GPU box whose log has rings but no `comm … nRanks` line: 3 ranks, from the ring lists", () => {
    const d = read([
      "box7:901:901 [0] NCCL INFO Using network Socket",
      "box7:901:950 [0] NCCL INFO Channel 00/02 :    0   1   2",
      "box7:901:950 [0] NCCL INFO Channel 01/02 :    0   2   1",
      "box7:901:950 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 2/-1/-1->0->-1",
    ]);
    expect(d.ranks).toBe(3);
    expect(d.evidence.ranks).toBe("ring_lists");
  });

  test("NCCL 2.23+ spacing (` %*d`) and NCCL 2.4's `Channel 00 :` read the same", () => {
    expect(read(["n1:5:6 [0] NCCL INFO Channel 00/04 : 0 3 1 2"]).ranks).toBe(4);
    expect(read(["n1:5:6 [0] NCCL INFO Channel 00 :    0   1"]).ranks).toBe(2);
  });

  test("a stated count wins over the rings, even when they disagree", () => {
    const d = read([
      "n1:5:6 [0] NCCL INFO Channel 00/02 :    0   1",
      "n1:5:6 [0] NCCL INFO comm 0x55d0 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0",
    ]);
    expect(d.ranks).toBe(16);
    expect(d.evidence.ranks).toBe("comm_lines");
  });

  test("a line that may be cut says nothing: 20 values of old NCCL, a `...` line, a rank missing or twice", () => {
    const old20 = Array.from({ length: 20 }, (_, i) => String(i).padStart(4)).join("");
    expect(read([`n1:5:6 [0] NCCL INFO Channel 00/02 :${old20}`]).ranks).toBe(0);
    const cut = Array.from({ length: 30 }, (_, i) => ` ${String(i).padStart(3)}`).join("");
    expect(read([`n1:5:6 [0] NCCL INFO Channel 00/02 :${cut.slice(0, 100)}...`]).ranks).toBe(0);
    expect(read(["n1:5:6 [0] NCCL INFO Channel 00/02 :    0   2"]).ranks).toBe(0);
    expect(read(["n1:5:6 [0] NCCL INFO Channel 00/02 :    0   1   1"]).ranks).toBe(0);
    expect(read(["n1:5:6 [0] NCCL INFO Channel 00/02 :    0   1"]).evidence.ranks).toBe("ring_lists");
  });

  test("24 ranks in NCCL 2.23+ spacing (width 2, whole line) count; the same in old ` %3d` spacing does not", () => {
    const order = Array.from({ length: 24 }, (_, i) => i);
    const wide = order.map((v) => ` ${String(v).padStart(2)}`).join("");
    expect(read([`n1:5:6 [0] NCCL INFO Channel 00/02 :${wide}`]).ranks).toBe(24);
    const old = order.map((v) => ` ${String(v).padStart(3)}`).join("");
    expect(read([`n1:5:6 [0] NCCL INFO Channel 00/02 :${old}`]).ranks).toBe(0);
  });
});

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

/**
 * The line that starts a communicator names the API that made it: src/init.cc prints `"%s comm %p rank %d nranks %d
 * cudaDev %d nvmlDev %d busId %lx parent %p splitCount %d color %d key %d- Init START"` with job->funcName
 * (`ncclCommSplit` since v2.18, https://github.com/NVIDIA/nccl/blob/v2.21.5-1/src/init.cc), as well as
 * `ncclCommInitRank … commId 0x… - Init START`. Shape of a split communicator's line glued mid-line between other
 * ranks' records seen in https://github.com/modelscope/ms-swift/issues/3934.
 */
describe("the rank count a communicator's Init START line states, whichever API made it", () => {
  test("`ncclCommSplit comm … rank 3 nranks 12 …` counts 12 ranks", () => {
    const d = read([
      "gx4:7101:7150 [3] NCCL INFO ncclCommSplit comm 0x7f10aa0012c0 rank 3 nranks 12 cudaDev 3 nvmlDev 3 busId 61000 parent 0x5602bb9e1a40 splitCount 1 color 1804289383 key 3- Init START",
    ]);
    expect(d.ranks).toBe(12);
    expect(d.evidence.ranks).toBe("comm_lines");
  });

  test("a split line glued mid-line after another rank's cut record still counts", () => {
    const d = read([
      "gx4:7101:7150 [3] NCCL INFO Connected NVLS tree",
      "gx4:7101:7150 [3] NCCL INFO threadThresholds 8gx4:7099:7152 [1] NCCL INFO ncclCommSplit comm 0x7f2c40631a10 rank 1 nranks 24 cudaDev 1 nvmlDev 1 busId 1b000 parent 0x55aa",
    ]);
    expect(d.ranks).toBe(24);
  });

  test("`ncclCommInitRankConfig` and a bare split message read the same; an unrelated `ncclComm…` word does not count", () => {
    expect(
      read([
        "n2:55:55 [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank 0 nranks 6 cudaDev 0 nvmlDev 0 busId 1000 commId 0x9 - Init START",
      ]).ranks,
    ).toBe(6);
    expect(
      read([
        "ncclCommSplit comm 0x7f00 rank 2 nranks 10 cudaDev 2 nvmlDev 2 busId 3d000 parent 0x55 splitCount 1 color 7 key 2- Init START",
      ]).ranks,
    ).toBe(10);
    expect(read(["n2:55:55 [0] NCCL INFO ncclCommDestroy comm 0x1 rank 0"]).ranks).toBe(0);
  });
});

// A communicator made by ncclCommSplit: each rank's `bootstrapSplit: … rank R nranks N …` line (src/bootstrap.cc of
// https://github.com/NVIDIA/nccl), a host redacted as `<host>` (shape seen in https://github.com/NVIDIA/nccl/issues/1185).
test("bootstrapSplit lines state the new communicator's size", () => {
  const d = read([
    "<host>:37:11870 [0] NCCL INFO bootstrapSplit: comm 0x7f08e4f68d10 parent 0xdc33e90 rank 0 nranks 4 color -12984 key 0 prev 3 next 1 - DONE",
    "<host>:38:11877 [1] NCCL INFO bootstrapSplit: comm 0x7f61c0f5d6b0 parent 0xdf0c5a0 rank 1 nranks 4 color -12984 key 1 prev 0 next 2 - DONE",
  ]);
  expect(d.ranks).toBe(4);
});

// src/init.cc from NCCL 2.28: `INFO(NCCL_INIT, "[Rank %d] %s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx
// commId 0x%llx - Init START", …)` (https://github.com/NVIDIA/nccl/blob/master/src/init.cc); shape seen at
// https://github.com/NVIDIA/nccl/issues/2389 (a per-rank NCCL_DEBUG_FILE, hosts stripped).
describe("NCCL 2.28's Init START line opens with the rank", () => {
  test("`[Rank 0] ncclCommInitRankConfig … nranks 16` states 16 ranks, with its host or stripped to `NCCL INFO`", () => {
    const line =
      "[Rank 0] ncclCommInitRankConfig comm 0x7a11c0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 19000 commId 0x3c - Init START";
    expect(
      read([`gpu-b-4:7711:7711 [0] NCCL INFO ${line}`, "gpu-b-4:7711:7711 [0] NCCL INFO Using network IB"]).ranks,
    ).toBe(16);
    expect(read([`NCCL INFO ${line}`, "NCCL INFO Using network IB"]).ranks).toBe(16);
  });
});

// src/init.cc `"comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d"` with the pointer elided in a
// write-up's quote (`comm ... rank 0 nRanks 2`, shape seen in notes committed to a public repository, index-file
// 52966034485); hosts and figures here our own.
test("a comm line whose pointer a page elided still states the communicator's size", () => {
  const d = read([
    "NCCL INFO comm ... rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0",
    "NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IBext_v8/5/GDRDMA",
  ]);
  expect(d).toMatchObject({ ranks: 2, nNodes: 2 });
});

// src/bootstrap.cc `WARN("Bootstrap Root : mismatch in info from procs, nranks %d vs %d, nroots %d vs %d, …", nranks,
// info.nranks, …)`: the root's own count first (https://github.com/NVIDIA/nccl/blob/master/src/bootstrap.cc); shape
// seen in a job's log committed to a public repository, index-file 33880404065. Hosts and figures here our own.
test("the bootstrap root's mismatch WARN states the size of the communicator being built", () => {
  const d = read([
    "[2026-03-11 09:41:07] gpu-a17:18703:18716 [0] bootstrap.cc:345 NCCL WARN Bootstrap Root : mismatch in info from procs, nranks 16 vs 16, nroots 1 vs 1, iroot 0 vs 0, offset 0 vs 171293",
  ]);
  expect(d.ranks).toBe(16);
});

/**
 * The bootstrap root gives up on a rank that checks in twice or on ranks that disagree on their count
 * (src/bootstrap.cc `goto out`, https://github.com/NVIDIA/nccl/blob/master/src/bootstrap.cc): no communicator can
 * complete, so the log is an init failure with the cause named, not "no verdict".
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

// Shape seen at https://github.com/Lightning-AI/pytorch-lightning/issues/14986 (the WARN is the last line of the paste).
const lines = [
  "gn-14:18622:18622 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB em1:172.22.9.81<0>",
  "gn-14:18622:18622 [1] NCCL INFO Using network IB",
  "gn-15:21476:21476 [2] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB em1:172.22.9.82<0>",
  "gn-15:21476:21476 [2] NCCL INFO Using network IB",
  "",
];

describe("the bootstrap root refusing a rank", () => {
  test.each([
    [
      "a rank checked in twice",
      "gn-14:18569:18835 [0] bootstrap.cc:131 NCCL WARN Bootstrap Root : rank 1 of 8 ranks has already checked in",
    ],
    [
      "ranks disagree on the count",
      "gn-14:18569:18835 [0] bootstrap.cc:125 NCCL WARN Bootstrap Root : mismatch in rank count from procs 8 : 16",
    ],
  ])("%s → init_failed, NCCL_WARN_BOOTSTRAP_ROOT as an error", (_, warn) => {
    const r = analyzeNcclLog([...lines, warn].join("\n"));
    expect(r.data.verdict).toBe("init_failed");
    expect(r.data.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_BOOTSTRAP_ROOT"]);
    expect(r.findings.find((f) => f.code === "NCCL_WARN_BOOTSTRAP_ROOT")?.severity).toBe("error");
  });

  test("the same root after every rank completed its init stays a warning of a run that started", () => {
    const done = "gn-14:18622:18640 [1] NCCL INFO comm 0x55e0c0 rank 1 nranks 8 cudaDev 1 busId 3b000 - Init COMPLETE";
    const warn =
      "gn-14:18569:18835 [0] bootstrap.cc:131 NCCL WARN Bootstrap Root : rank 1 of 8 ranks has already checked in";
    expect(analyzeNcclLog([...lines, done, warn].join("\n")).data.verdict).not.toBe("init_failed");
  });
});

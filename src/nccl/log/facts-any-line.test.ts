import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const data = (lines: string[]) => analyzeNcclLog(`${lines.join("\n")}\n`).data;

// Every NCCL record starts `host:pid:tid [dev] NCCL LEVEL` (src/include/debug.h, src/debug.cc in
// https://github.com/NVIDIA/nccl). Shapes where some hosts print only Trees / comm / proxy lines were seen in
// https://github.com/NVIDIA/nccl-tests/issues/311 ; hosts seen only on WARN lines in https://github.com/NVIDIA/nccl/issues/1837 ;
// topology dumps only in https://github.com/NVIDIA/nccl/issues/1189 .
describe("hosts are counted from every NCCL record, whatever it says", () => {
  test("hosts that print only Trees, comm or proxy lines count", () => {
    expect(
      data([
        "nodea:410:440 [0] NCCL INFO Using network IB",
        "nodeb:520:551 [0] NCCL INFO comm 0x5b1d0e0 rank 2 nRanks 8 nNodes 4 localRanks 2 localRank 0 MNNVL 0",
        "nodec:630:661 [1] NCCL INFO Trees [0] 4/-1/-1->5->6 [1] -1/-1/-1->5->4",
        "noded:740:771 [0] NCCL INFO [Proxy Service UDS] Device 0 CPU core 16",
      ]).hosts,
    ).toBe(4);
  });

  test("hosts seen only on WARN and topology lines count; a redacted or stripped prefix names no host", () => {
    expect(
      data([
        "trainer-0:88:120 [0] NCCL INFO === System : maxBw 24.0 totalBw 24.0 ===",
        "trainer-1:91:131 [3] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.1.2.3<40123> failed : Software caused connection abort",
        "<node>:<pid>:<tid> [0] NCCL INFO Bootstrap : Using eth0:10.1.2.4<0>",
        "[0] NCCL INFO Channel 00/02 : 0 1",
      ]).hosts,
    ).toBe(2);
  });
});

import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, test } from "vitest";
import { compileFilter } from "../../../../wasm/build.mjs";
import { CAPTURES, readCorpus } from "../../../analyze/corpus.js";
import { WRAPS } from "../../../analyze/wrappers.js";
import { scanSegment } from "../segment-scan.js";
import { LogState } from "../state.js";
import { lineFilter } from "./line-filter.js";
import { FILTER_WASM_BASE64 } from "./wasm-bytes.js";

// The judge of the filter is the line scanner itself: with the filter off (KUBE_RDMA_NO_LINE_FILTER=1) every line is
// scanned, and whatever the text, the state with the filter on must be the same. The filter's source is
// wasm/nccl-line-filter/filter.ts; the scanner's rules it mirrors are in scan.ts and channel-lines.ts.

function scanned(text: string, filtered: boolean): LogState {
  const before = process.env.KUBE_RDMA_NO_LINE_FILTER;
  if (filtered) delete process.env.KUBE_RDMA_NO_LINE_FILTER;
  else process.env.KUBE_RDMA_NO_LINE_FILTER = "1";
  try {
    return scanSegment(Buffer.from(text, "utf8"));
  } finally {
    if (before === undefined) delete process.env.KUBE_RDMA_NO_LINE_FILTER;
    else process.env.KUBE_RDMA_NO_LINE_FILTER = before;
  }
}

function expectSameState(text: string): void {
  expect(scanned(text, true)).toEqual(scanned(text, false));
}

afterEach(() => {
  delete process.env.KUBE_RDMA_NO_LINE_FILTER;
});

describe("the NCCL log line filter", () => {
  test("is available on this Node, and the bytes kept are what its source compiles to", async () => {
    expect(lineFilter()).not.toBeNull();
    const bytes = await compileFilter();
    expect(bytes.toString("base64")).toBe(FILTER_WASM_BASE64);
  }, 60_000);

  test("drops the bulk lines of an INFO log and counts them as the scanner does", () => {
    const host = "gpu-a17:2201:2290 [3] NCCL INFO ";
    const other = "gpu-a18:3301:3390 [0] NCCL INFO ";
    const lines = [
      `${host}comm 0x7f01 rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0`,
      `${host}Channel 00/0 : 3[3] -> 4[4] via P2P/CUMEM/read`,
      `${host}Channel 01/0 : 3[3] -> 4[4] via SHM/direct/direct`,
      `${other}Channel 02/0 : 15[7] -> 8[0] [receive] via NET/IB/2/GDRDMA`,
      `${other}Channel 03/0 : 8[0] -> 15[7] [send] via NET/IB/3`,
      `${host}Trees [0] 4/-1/-1->3->2 [1] 4/-1/-1->3->2`,
      `${host}Connected all rings`,
      `${host}16 coll channels, 16 collnet channels, 0 nvls channels, 16 p2p channels, 2 p2p channels per peer`,
    ];
    const text = `${lines.join("\n")}\n`;
    const filter = lineFilter()!;
    filter.begin(new LogState());
    const bytes = Buffer.from(text);
    bytes.copy(filter.room());
    const kept = filter.run(bytes.length).toString() + filter.flush().toString();
    // The first record of each host goes through (the scanner notes the host there); later bulk lines of it do not.
    expect(kept.split("\n").filter(Boolean)).toEqual([lines[0], lines[3]]);
    const st = scanned(text, true);
    expect(st.conn).toMatchObject({ p2p: 1, shm: 1, net: 2, netGdr: 1, netRecv: 1, netRecvGdr: 1 });
    expect(st.lines).toBe(8);
    expectSameState(text);
  });

  test("every capture of the corpus, bare and behind every wrapper, scans the same with the filter on", () => {
    const files = readCorpus().map((c) => c.file);
    expect(files.length).toBeGreaterThan(500);
    const differing: string[] = [];
    for (const f of files) {
      const clean = readFileSync(join(CAPTURES, f), "utf8");
      for (const w of [{ name: "bare", apply: (t: string) => t }, ...WRAPS]) {
        const text = w.apply(clean);
        try {
          expect(scanned(text, true)).toEqual(scanned(text, false));
        } catch {
          differing.push(`${f} (${w.name})`);
        }
      }
    }
    expect(differing).toEqual([]);
  }, 300_000);

  // Lines the filter might misread: every prefix it must refuse or accept, every message shape near the ones it drops.
  const prefix = fc.constantFrom(
    "",
    "",
    "",
    "Using network Socket ",
    "Assigned NET plugin Socket to comm ",
    "2026-12-04T18:02:07.123456789Z ",
    "[2026-12-04 18:02:07] ",
    "[1,5]<stdout>:",
    "[12,130]<stderr>:",
    "x[1,5]<stdout>:",
    "[1,5]<stdout>: ",
    "[default0]:",
    "[rank12]:",
    "x[default0]:",
    "[default0]: ",
    "[1m]:",
    "[0m]:",
    "[default 0]:",
    "[a_very_long_launcher_tag_of_many_chars]:",
    "2026-12-04T18:02:07.123456789Z [default3]:",
    "[default0]:[1,5]<stdout>:",
    "gpu-a17: ",
    "rank3.log:",
    "logs/rank3.log:[1,3]<stdout>:",
    "(RayWorkerWrapper pid=336, ip=10.1.2.3) ",
    "12 | ",
    "\u001b[36m",
    " * ",
    "> ",
    "INFO worker-3 | ",
    "\t",
  );
  /** Mostly the usual shape, so that a line's host was seen before (the filter drops nothing else). */
  const usually = <T>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<T>) =>
    fc.oneof({ arbitrary: usual, weight: 6 }, { arbitrary: rare, weight: 1 });
  const host = usually(
    fc.constantFrom(
      "gpu-a17:2201:2290",
      "gpu-a18:3301:3390",
      "pretrain-llama-70b-worker-12-7d9f8b6c4-x2k9p:1234:5678",
      "pretrain-llama-70b-worker-12-7d9f8b6c4-x2k9p.train.svc:1234:5678",
    ),
    fc.constantFrom(
      "Node-7:11:12",
      "n.example-1_x:5:6",
      "gpu-a17:XXXX:XXXX",
      "gpu-a17:2201",
      "<node>:<pid>:<tid>",
      "[gpu-a17:2201:2290]",
      "9host:1:2",
      "gpu-a17:22a1:2290",
      "",
    ),
  );
  const device = usually(
    fc.constantFrom(" [3] ", " [15] "),
    fc.constantFrom(" [] ", " [x] ", "[3] ", " [3]  ", " [123] "),
  );
  const level = usually(fc.constant("NCCL INFO "), fc.constantFrom("NCCL WARN ", "NCCL INFO", "NCCL  INFO ", "INFO "));
  const message = fc.constantFrom(
    "Channel 00/0 : 3[3] -> 4[4] via P2P/CUMEM/read",
    "Channel 00/0 : 3[3] -> 4[4] via P2P/IPC",
    "Channel 01/0 : 3[3] -> 4[4] via SHM/direct/direct",
    "Channel 02/0 : 15[7] -> 8[0] [receive] via NET/IB/2/GDRDMA",
    "Channel 02/0 : 15[7] -> 8[0] [receive] via NET/IB/2",
    "Channel 02/0 : 15[7] [receive] -> 8[0] via NET/IB/2/GDRDMA",
    "Channel 03/0 : 8[0] -> 15[7] [send] via NET/IB/3/GDRDMA",
    "Channel 03/0 : 8[0] -> 15[7] via NET/IB/3/GDRDMA(0)",
    "Channel 03/0 : 8[0] -> 15[7] via NET/Socket/0",
    "Channel 03/0 : 8[0] -> 15[7] via NET/AWS Libfabric/0/GDRDMA",
    "Channel 03/0 : 8[0] -> 15[7] via NET/IBext_v8/0/GDRDMA",
    "Channel 03/0 : 8[0] -> 15[7] [receive] via NET/IBext_v8/0/GDRDMA",
    "Channel 03/0 : 8[0] -> 15[7] via NET/AWS Libfabric/1",
    "Channel 03/0 : 8[0] -> 15[7] via NET/GPUDirectTCPX/0",
    "Channel 03/0 : 8[0] -> 15[7] via NET/",
    "Channel 03/0 : 8[0] -> 15[7] via NET//0",
    "Channel 03/0 : 8[0] -> 15[7] via NET/Socket/0",
    "Channel 03/0 : 8[0] -> 15[7] via NET/Sockets",
    "Channel 03/0 : 8[0] -> 15[7] via NET/a-network-name-longer-than-forty-characters-x/0",
    "Channel 03/0 : 8[0] -> 15[7] via direct shared memory",
    "Channel 03/0 : 8[0] -> 15[7] via NVLS",
    "Channel 03/0 : 8[0] -> 15[7] via N",
    "Channel 03/0 : 8[0] -> 15[7] via ",
    "Channel 00/02 :    0   1   2   3",
    "Channel 00 :    0   1",
    "Channels 00 : via P2P",
    "Ring 00 : 0[0] -> 1[1] via P2P/IPC",
    "Trees [0] 4/-1/-1->3->2 [1] 4/-1/-1->3->2",
    "Trees: [0] 4/-1/-1->3->2",
    "Connected all rings",
    "Connected all trees",
    "threadThresholds 8/8/64 | 128/8/64 | 512 | 512",
    "P2P Chunksize set to 524288",
    "P2P Chunksize set to: opCount 3 [nranks=64]",
    "P2P Chunksize set to 5: opCount 3 [nranks=64]",
    "Assigned NET plugin IB to comm",
    "Assigned NET plugin Socket to comm",
    "Using internal Network IB",
    "Using network IBext_v8",
    "Using network IB ",
    "comm 0x7f01 rank 3 nranks 16 cudaDev 3 busId 3b000 - Init START",
    "comm 0x7f01 rank 3 nRanks 1234567890123 nNodes 2 localRanks 8 localRank 3 MNNVL 0",
    "comm 0x7f01 rank 3 nRanks 64 nNodes 8 localRanks 8 localRank 3 MNNVL 0",
    "comm 0x7f01 rank 3 nRanks 4",
    "comm 0x7f01 rank 3 nRanks x nranks 12",
    "comm 0x7f01 rank 3 nRanks 16 nNodes 2 localRanks 8 - Destroy COMPLETE",
    "Trees [0] 4/-1/-1->3->2 comm 0x7f01 rank 3 nranks 16 cudaDev 3 busId 3b000 - Init COMPLETE",
    "Setting affinity for GPU 3 to ffffffff,00000000",
    "NVLS multicast support is not available on dev 3",
    "16 coll channels, 16 collnet channels, 0 nvls channels, 16 p2p channels, 2 p2p channels per peer",
    "16 coll channels: opCount 1",
    "AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 8 datatype 7 op 0 root 0 comm 0x3 [nranks=32] stream 0x4",
    "Using network IB",
    "Using network Socket",
    "comm 0x7f01 rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0",
    "ncclCommInitRank comm 0x7f01 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 3b000 commId 0x1 - Init COMPLETE",
    "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB eth0:10.0.0.3<0>",
    "NCCL version 2.23.4+cuda12.6",
    "NET/IB : Got async event : port error",
    "Channel 00/0 : 3[3] -> 4[4] via P2P/CUMEM/read\u001b[0m",
    "Channel 00/0 : 3[3] -> 4[4] via P2P/CUMEM/read\r",
    "Channel 00/0 : 3[3] -> 4[4] via P2P/CUMEM/read[0m",
    "Channel 00/0 : 3[3] -> 4[4] via P2P/CUMEM/read [0m",
    "Channel 00/0 : 3[3] -> 4[4] via P2P/CUMEM/read gpu-a18:3301:3390 [0] NCCL INFO Connected all rings",
    "Channel 00/0 : 3[3] -> 4[4] via P2P/CUMEM/readgpu-a18:3301:3390 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1",
    "Channel 00/0 : 3[3] -> 4[4] via P2P/CUMEM/read Init COMPLETE",
    "ncclCommInitRank comm 0x7f01 rank 5 nranks 16 cudaDev 5 nvmlDev 5 busId 5b000 commId 0x1 - Init COMPLETE",
    "ncclCommInitRank comm 0x7f01 rank 7 nranks 32 cudaDev 7 busId 7b000 - Init COMPLETE",
    "ncclCommInitRank comm 0x7f01 rank 2000000 nranks 2000001 cudaDev 7 busId 7b000 - Init COMPLETE",
    "ncclCommInitRank comm 0x7f01 rank 12345678901 nranks 16 - Init COMPLETE",
    "ncclCommInitRank comm 0x7f01 - Init COMPLETE",
    "nvls comm 0x7f01 rank 7 nranks 64 - Init COMPLETE",
    "ncclCommInitRank comm 0x7f01 rank 3 nranks 16 cudaDev 3 - Init START",
    "init.cc:1303 -> 2",
    "Using network Socket gpu-a17:2201:2290 [3] NCCL INFO Using network Socket",
    "Channel 00/0 : 3[3] → 4[4] via P2P/CUMEM/read",
    "",
  );
  const line = fc.tuple(prefix, host, device, level, message, fc.nat(200)).map(([p, h, d, l, m, cut]) => {
    const whole = `${p}${h}${d}${l}${m}`;
    // Most lines whole; some cut (a torn paste), some glued to nothing after a colour.
    return cut < 170 ? whole : whole.slice(0, cut - 170 + 20);
  });

  test("any log made of lines near the ones it drops scans the same with the filter on", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 60 }), fc.boolean(), (lines, newlineAtEnd) => {
        expectSameState(lines.join("\n") + (newlineAtEnd ? "\n" : ""));
      }),
      { numRuns: 400 },
    );
  });

  // What the filter remembers between lines (a process's network, whether an init completed) changed by other lines.
  const stateful = fc
    .tuple(
      fc.constantFrom("", "", "[1,5]<stdout>:", "2026-12-04T18:02:07.123456789Z "),
      fc.constantFrom("gpu-a17:2201:2290 [3] NCCL ", "gpu-a17:2202:2291 [4] NCCL "),
      fc.constantFrom(
        "INFO Using network IB",
        "INFO Using network IB",
        "INFO Using network Socket",
        "INFO Using internal Network Socket",
        "INFO Assigned NET plugin Socket to comm",
        "INFO Assigned NET plugin IB to comm",
        "INFO Assigned NET plugin AWS Libfabric to comm 0x7f01",
        "INFO Using network AWS Libfabric",
        "INFO Using network  AWS Libfabric ",
        "INFO Using network IBext_v8",
        "INFO Assigned NET plugin  to comm",
        "INFO Channel 02/0 : 15[7] -> 8[0] [receive] via NET/IB/2/GDRDMA",
        "INFO ncclCommInitRank comm 0x7f01 rank 5 nranks 16 cudaDev 5 busId 5b000 - Init COMPLETE",
        "INFO ncclCommInitRank comm 0x7f01 rank 6 nranks 16 cudaDev 6 busId 6b000 - Init COMPLETE",
        "INFO comm 0x7f01 rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0",
        "WARN Call to ibv_create_qp failed",
        "WARN NET/IB : Got async event : port error",
        "INFO init.cc:1303 -> 2",
      ),
    )
    .map(([p, r, m]) => `${p}${r}${m}`);
  const other = fc.constantFrom(
    "",
    "epoch 1 step 20 loss 2.31",
    "Using network Socket",
    "gpu-a17:2201:2290 [3] INFO Using network Socket",
    "job log: Assigned NET plugin Socket to comm",
    "gpu-a17:2201:2290 [3] NCCL INFO Using network Sockets\u001b[0m",
    "x gpu-a17:2201:2290 [3] NCCL INFO Using network IBgpu-a17:2201:2290 [3] NCCL INFO Using network Socket",
  );

  test("what the filter remembers between lines follows the lines that change it", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof({ arbitrary: stateful, weight: 5 }, other), { minLength: 2, maxLength: 40 }),
        (lines) => {
          expectSameState(`${lines.join("\n")}\n`);
        },
      ),
      { numRuns: 600 },
    );
  });

  test("lines cut by the filter's pieces (64 KiB) scan the same as whole ones", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 200, maxLength: 400 }), fc.nat(120), (lines, pad) => {
        // Enough lines to cross several piece boundaries at different places in a line.
        const block = `${"x".repeat(pad)}\n${lines.join("\n")}\n`;
        expectSameState(block.repeat(Math.ceil(200_000 / block.length)));
      }),
      { numRuns: 12 },
    );
  });
});

import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";
import { bannerAt, gluedBannerEnd, recordStart, splitPoint } from "./record.js";

/** The record `line` holds, from where recordStart puts its start (k: the space before `NCCL`). */
function record(line: string): string {
  const k = line.indexOf(" NCCL ");
  return line.slice(recordStart(line, 0, k));
}

// Shapes: Ray actor prefixes https://github.com/ray-project/ray/issues/59778 ; masked hosts
// https://github.com/NVIDIA/nccl/issues/952 ; a logger in front https://github.com/NVIDIA/nccl/issues/1499 ;
// NCCL's own record layout `host:pid:tid [dev] NCCL INFO` (src/debug.cc, https://github.com/NVIDIA/nccl).
describe("where an NCCL record starts, whatever is in front of it", () => {
  test.each([
    [
      "(RayWorkerWrapper pid=581, ip=10.2.0.18) k8s17:581:581 [0] NCCL INFO P2P Chunksize set to 131072",
      "k8s17:581:581",
    ],
    ["  41 | gn-07:3301:3301 [0] NCCL INFO Using network IB", "gn-07:3301:3301"],
    ["2025-06-11 09:12:05,301 - trainer - INFO - mp-0:4120:4120 [0] NCCL INFO Bootstrap", "mp-0:4120:4120"],
    ["error info : mp-1:3301:3301 [0] NCCL INFO NET/IB : Using", "mp-1:3301:3301"],
    [" * node-3:77:91 [5] NCCL INFO Using network IB", "node-3:77:91"],
    ["<node>:<pid>:<tid> [0] NCCL INFO Using network IB", "<node>:<pid>:<tid>"],
    ["hostX:XXXXXX:XXXXXX [0] transport/net_ib.cc:1003 NCCL WARN NET/IB : req", "hostX:XXXXXX:XXXXXX"],
    ["[1,0]<stdout>:gpu-1:2101:2101 [0] NCCL INFO Using network IB", "gpu-1:2101:2101"],
    ["[cx-11:4410:4410] [init.cc:1720] NCCL INFO Bootstrap", "cx-11:4410:4410]"],
    ["some prefix [3] NCCL INFO Using network IB", "[3]"],
  ])("%s", (line, host) => {
    expect(record(line).startsWith(host)).toBe(true);
  });

  test("a second rank's record glued to the first one's end splits at the known host", () => {
    const line =
      "tr-0:811:850 [0] NCCL INFO Channel 00/0 : 3[1] -> 0[0] [receive] via NET/IB/0/GDRDMAtr-0:812:851 [1] NCCL INFO Channel";
    const k = line.indexOf(" NCCL ");
    const again = line.indexOf("] NCCL ", k + 1);
    const split = splitPoint(line, k, again, new Set(["tr-0"]), "tr-0:811:850 [0]");
    expect(line.slice(split).startsWith("tr-0:812:851 [1] NCCL INFO")).toBe(true);
    expect(line.slice(0, split).endsWith("GDRDMA")).toBe(true);
  });

  // Record shapes: `Channel 03 : 5[99000] -> 4[93000] via P2P/IPC/read` (https://github.com/NVIDIA/nccl/issues/743),
  // `Using network IB`; glued mid-line the way processes writing one pipe unbuffered leave them. Hosts and pids here
  // are this test's own.
  test("two short records glued into one line are both read, however short", () => {
    const glued = "tr-0:811:850 [0] NCCL INFO Using network IBtr-0:812:851 [1] NCCL INFO Using network IB";
    const d = analyzeNcclLog(`${glued}\ntr-0:813:852 [2] NCCL INFO Using network IB\n`).data;
    expect([d.processes, d.networks]).toEqual([3, { IB: 3 }]);
    const channels = [
      "tr-0:811:850 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPCtr-0:812:851 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via P2P/IPC",
      "tr-0:811:850 [0] NCCL INFO Channel 01 : 0[0] -> 1[1] via P2P/IPC",
    ].join("\n");
    expect(analyzeNcclLog(`${channels}\n`).data.connections).toMatchObject({ p2p: 3 });
  });

  test("the version banner behind a logger, or quoted by an application's NCCL error; not a sentence's", () => {
    expect(bannerAt("NCCL version 2.18.3+cuda12.2")).toBe(0);
    expect(bannerAt("2025-06-11 09:12:05,302 - trainer - INFO - NCCL version 2.17.1+cuda12.1")).toBeGreaterThan(0);
    expect(
      bannerAt("RuntimeError: NCCL error in: x.cpp:1, unhandled system error, NCCL version 2.14.3"),
    ).toBeGreaterThan(0);
    expect(bannerAt("please upgrade to NCCL version 2.20 or later")).toBe(-1);
  });

  test("the version survives every prefix family (never lost, never empty)", () => {
    for (const prefix of [
      "",
      "\u001b[36m(RayWorkerWrapper pid=336, ip=10.1.2.3)\u001b[0m ",
      "  12 | ",
      " * ",
      "2025-06-11 09:12:05,302 - trainer - INFO - ",
      "[1,0]<stdout>:",
      "W0611 09:12:01.118220 140211 run.py:757] ",
    ]) {
      const log = `${prefix}NCCL version 2.21.5+cuda12.4\n${prefix}gpu-a:10:10 [0] NCCL INFO Using network IB\n`;
      expect(analyzeNcclLog(log).data.ncclVersions, JSON.stringify(prefix)).toEqual(["2.21.5"]);
    }
  });

  test("NCCL 2.0–2.2 lines without the word NCCL before the level are read", () => {
    const log = [
      "dl-3:22817:22817 [0] INFO NET/IB: [0] mlx5_0:1/IB",
      "dl-3:22817:22817 [0] INFO Using internal Network IB",
      "NCCL version 2.1.15+cuda9.0",
      "dl-3:22817:22817 [0] include/socket.h:185 WARN Call to connect failed : Connection refused",
    ].join("\n");
    const d = analyzeNcclLog(`${log}\n`).data;
    expect([d.network, d.ncclVersions, d.devices.map((x) => x.name), d.warnings.length]).toEqual([
      "IB",
      ["2.1.15"],
      ["mlx5_0"],
      1,
    ]);
  });
});

// NCCL's `host:pid:tid [dev] NCCL INFO Channel …` connection lines (src/transport.cc, https://github.com/NVIDIA/nccl);
// a job's ranks write them interleaved, so that consecutive lines rarely share a host.
describe("hosts of interleaved ranks", () => {
  test("hosts alike in length and last characters are all counted, each once, in any order", () => {
    // Same length and same two last characters: the reader's table of hosts seen puts them in one slot.
    const hosts = ["ab-01", "cd-01", "ef-01", "ab-1", "cd-1", "x1", "y1", "gpu-node-001"];
    const lines: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < hosts.length; i++) {
        const at = (i * 5 + round) % hosts.length;
        lines.push(
          `${hosts[at]}:${2000 + at}:${2100 + at} [0] NCCL INFO Channel 00/0 : ${at}[0] -> ${(at + 1) % 8}[0] via P2P/IPC`,
        );
      }
    }
    const r = analyzeNcclLog(`${lines.join("\n")}\n`);
    expect(r.data.hosts).toBe(hosts.length);
  });
});

// Rank 0 printf()s `NCCL version 2.7.8+cuda10.2` to stdout (VERSION_STRING in src/init.cc of v2.7.8-1,
// https://github.com/NVIDIA/nccl) while the other ranks write to stderr: a paste of both can lose the banner's newline.
// Shape seen at https://gist.github.com/djberenberg/bf9551ab1bda8797caff6d48d51c5374; hosts and pids are ours.
describe("the version banner with another rank's record glued to it", () => {
  const glued = (host: string) => `NCCL version 2.7.8+cuda10.2${host}:771303:771303 [1] NCCL INFO Using network Socket`;

  test("ends after CUDA's minor: the host after it is the record's", () => {
    const line = glued("gpunode031");
    expect(line.slice(gluedBannerEnd(line, 0, line.length, new Set()))).toMatch(/^gpunode031:771303/);
  });

  test("a host made of digits: a known one is kept whole, else one minor digit ends the banner", () => {
    const line = glued("10-7-6-170");
    expect(line.slice(gluedBannerEnd(line, 0, line.length, new Set(["10-7-6-170"])))).toMatch(/^10-7-6-170:/);
    expect(line.slice(gluedBannerEnd(line, 0, line.length, new Set()))).toMatch(/^10-7-6-170:/);
  });

  test("the banner alone, or followed by prose, is not glued to a record", () => {
    for (const line of ["NCCL version 2.7.8+cuda10.2", "NCCL version 2.7.8+cuda10.2 loaded: ok"])
      expect(gluedBannerEnd(line, 0, line.length, new Set())).toBe(-1);
  });

  test("in a log: the version is read and the glued record's host is the one host it names", () => {
    const log = [
      "gpunode031:771302:771302 [0] NCCL INFO Using network Socket",
      glued("gpunode031"),
      "gpunode032:40911:40911 [0] NCCL INFO Using network Socket",
    ].join("\n");
    const r = analyzeNcclLog(`${log}\n`);
    expect(r.data.hosts).toBe(2);
    expect(r.data.ncclVersions).toEqual(["2.7.8"]);
  });
});

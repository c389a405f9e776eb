import { describe, expect, it } from "vitest";
import { analyzeText } from "../../analyze/index.js";
import { analyzeNcclLog } from "./analyzer.js";
import { ChunkFeeder } from "./feeder.js";
import { LogState } from "./state.js";

// Record shape `%s:%d:%d [%d] NCCL INFO …` (hostname, pid, tid, cudaDev) as NCCL's src/debug.cc prints it
// (https://github.com/NVIDIA/nccl/blob/master/src/debug.cc); hosts and numbers here are made up.
const rec = (host: string, pid: number, dev: number) =>
  `${host}:${pid}:${pid + 7} [${dev}] NCCL INFO Channel 00/0 : ${dev}[${dev}] -> ${dev + 1}[${dev + 1}] via P2P/IPC\n`;

function hostsOf(text: string): Set<string> {
  const f = new ChunkFeeder(new LogState());
  f.write(text);
  return f.finish().hosts;
}

describe("the host table", () => {
  it("keeps apart hosts that differ in one digit anywhere, interleaved line by line", () => {
    const names = Array.from({ length: 1500 }, (_, i) => `rack${i % 3}-gpu${String(i).padStart(4, "0")}`);
    let text = "";
    for (let round = 0; round < 3; round++) {
      for (const [i, h] of names.entries()) text += rec(h, 3100 + i, i % 8);
    }
    const hosts = hostsOf(text);
    expect(hosts.size).toBe(1500);
    for (const h of names) expect(hosts.has(h)).toBe(true);
  });

  it("names no host for a record without the full host:pid:tid", () => {
    const hosts = hostsOf(
      "trainer0722410:22467 [6] NCCL INFO Channel 00/0 : 6[6] -> 7[7] via P2P/IPC\n" +
        "trainer-3:XXXXXX:40112 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/IPC\n",
    );
    expect([...hosts]).toEqual(["trainer-3"]);
  });
});

/**
 * A paste that starts mid-line cuts the first record's host (`m-ds-v25-0:733:733` for `llm-ds-v25-0:733:733`; shape
 * seen in a Ray worker's pasted log, https://github.com/vllm-project/vllm/issues/15100). NCCL's prefix is `"%s:%d:%d"` of hostname, pid and tid (src/debug.cc in https://github.com/NVIDIA/nccl), so a
 * host whose name ends another host's and whose first record has the same pid:tid is that host, cut.
 */
describe("a host name cut at the start of a paste", () => {
  const count = (lines: string[]) => analyzeNcclLog(`${lines.join("\n")}\n`).data.hosts;

  it("is not a second host when its first record's pid:tid is the longer name's", () => {
    expect(
      count([
        "(RayWorkerWrapper pid=412) e-7b:412:412 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
        "(RayWorkerWrapper pid=412) node-7b:412:412 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/IPC",
        "(RayWorkerWrapper pid=413) node-7b:413:413 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC",
      ]),
    ).toBe(1);
  });

  it("stays a host of its own with another process, or when no longer name ends with it", () => {
    expect(
      count([
        "a-1:412:412 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
        "gpu-a-1:977:977 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] via P2P/IPC",
      ]),
    ).toBe(2);
    expect(
      count([
        "hostb:412:412 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
        "hosta:412:412 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] via P2P/IPC",
      ]),
    ).toBe(2);
  });
});

/**
 * Records whose prefix kept the host and lost `:pid:tid` (`gpu-node117 [5] NCCL INFO …` behind kubectl and logger
 * timestamps, shape seen in https://github.com/NVIDIA/nccl/issues/1920). The host word must be a host name right
 * before ` [dev] `; a timestamp or a bracketed logger field is not one.
 */
describe("a record with a host and no pid:tid", () => {
  const hostsIn = (lines: string[]) => analyzeNcclLog(`${lines.join("\n")}\n`).data.hosts;

  it("counts its host, behind timestamps too, and two such hosts are two", () => {
    expect(
      hostsIn([
        "2026-03-14T02:11:09.000000001Z [2026-03-14 10:11:09] rig-a04 [2] NCCL INFO Bootstrap: Using eth0:10.9.0.4<0>",
        "2026-03-14T02:11:09.000000002Z [2026-03-14 10:11:09] rig-a04 [2] NCCL INFO NCCL version 2.26.2+cuda12.8",
        "rig-a04 [2] NCCL INFO misc/socket.cc:64 -> 6",
      ]),
    ).toBe(1);
    expect(
      hostsIn([
        "rig-a04 [2] NCCL INFO NCCL version 2.26.2+cuda12.8",
        "rig-a05.cluster [0] NCCL INFO NCCL version 2.26.2+cuda12.8",
      ]),
    ).toBe(2);
  });

  it("takes no word that is not a host name as one", () => {
    expect(hostsIn(["[2026-03-14 10:11:09] [2] NCCL INFO NCCL version 2.26.2+cuda12.8"])).toBe(0);
    expect(hostsIn(["12345 [2] NCCL INFO NCCL version 2.26.2+cuda12.8"])).toBe(0);
  });
});

/**
 * A paste that masked the pid and tid as one run of `X` (`host.example.net:XXXXXX [5] ibvwrap.c:262 NCCL WARN …`,
 * shape seen in https://github.com/NVIDIA/nccl/issues/2013) still names its host; digits with one colon missing do not
 * (a line that lost a character).
 */
describe("a record whose pid and tid were masked as one run of X", () => {
  const count = (lines: string[]) => analyzeNcclLog(`${lines.join("\n")}\n`).data.hosts;

  it("names its host, behind a time stamp too", () => {
    expect(
      count([
        "[2026-02-01 03:04:05] n12.rack4.example.org:XXXXXX [5] NCCL INFO Using network IB",
        "[2026-02-01 03:04:09] n12.rack4.example.org:XXXXXX [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out",
        "[2026-02-01 03:04:09] n13.rack4.example.org:xxxxxx [2] NCCL INFO Using network IB",
      ]),
    ).toBe(2);
  });

  it("digits with no tid are not a mask: beside whole records they name no other host", () => {
    expect(
      count(["n12b07:22410:22467 [6] NCCL INFO Using network IB", "n12b0722410:22467 [6] NCCL INFO Using network IB"]),
    ).toBe(1);
  });

  // `host:pid [dev]` with no tid on every record (a book's grep of its log, shape seen in a networking book's chapter
  // committed to a public repository, index-file 62606974178; host and pids here our own): the weaker reading of the
  // host, counted only where no record names one whole.
  it("records that all show `host:pid` alone name their host", () => {
    expect(
      count([
        "gpu07:38102 [2] NCCL INFO NET/IB : No device found.",
        "gpu07:38102 [2] NCCL INFO NET/Socket : Using [0]eth0:10.44.2.71<0>",
        "gpu07:38102 [2] NCCL INFO Using network Socket",
      ]),
    ).toBe(1);
  });
});

// pdsh/clush `host: ` before records that lost their own `host:pid:tid` (shape seen in an HPC runbook committed to a
// public repository, index-file 24293149602): the launcher's host names each record's.
describe("records that kept no host under a launcher's `host: `", () => {
  const lines = ["gpu-g107", "gpu-h031", "gpu-h032"].map((h) => `${h}: NCCL INFO NET/IB : Using [0]ibp97s0:1/RoCE`);

  it("amid a page's prose (the prefix read line by line): one host each", () => {
    const text = [
      "**NCCL communication (from logs)**:",
      "```",
      ...lines,
      "NCCL INFO Channel 00 : 0[0] -> 2[0] via NET/IB/0",
      "```",
    ];
    expect(analyzeNcclLog(text.join("\n")).data.hosts).toBe(3);
  });

  it("on every line (removed before the log is read): the same count", () => {
    expect((analyzeText("log.txt", lines.join("\n")).data as { hosts: number }).hosts).toBe(3);
  });

  it("a word that is no host name (`Note: NCCL INFO …`) names none", () => {
    expect(analyzeNcclLog("Note: NCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n").data.hosts).toBe(0);
  });
});

// A record quoted in a Chinese note, glued to the sentence and set in Markdown bold (shape seen in a note committed to a
// public repository, index-file 46823065291): the host is the ASCII name after the sentence's last character.
it("a record glued to a sentence's CJK word and `**`: the host is the name alone", () => {
  const text = [
    "b7c0e1d2a3f4:3120:3120 [0] NCCL INFO Using network Socket",
    "关键的地方在于**b7c0e1d2a3f4:3121:3190 [1] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-0 (size 9637888)**可以看到",
  ].join("\n");
  expect([...hostsOf(`${text}\n`)]).toEqual(["b7c0e1d2a3f4"]);
});

/**
 * The network a `Using network …` line names ends where a wrapper's own text starts on the same line: a log export's
 * JSON (one LogEntry per line, the NCCL line in `textPayload`,
 * https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry) or a log pasted as one escaped string.
 * Otherwise every line gives its own "network" and the log reads as "mixed".
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const lines = (host: string, ip: string) => [
  `${host}:311:402 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:${ip}<0>`,
  `${host}:311:402 [0] NCCL INFO Using network IB`,
];

describe("the network named by `Using network …` behind a wrapper", () => {
  test('JSON lines: `…Using network IB", "timestamp": …}` on every line → IB, once per process', () => {
    const text = [...lines("pod-a", "10.9.1.4"), ...lines("pod-b", "10.9.1.5")]
      .map((l, i) => JSON.stringify({ textPayload: l, timestamp: `2026-02-03T09:14:0${i}.302Z`, severity: "ERROR" }))
      .join("\n");
    const d = analyzeNcclLog(text).data;
    expect(d.network).toBe("IB");
    expect(d.networks).toEqual({ IB: 2 });
  });

  test("a log pasted as one escaped string (`Using network IB\\npod-b:…`) → IB", () => {
    const text = [...lines("pod-a", "10.9.1.4"), ...lines("pod-b", "10.9.1.5")].join("\\n");
    expect(analyzeNcclLog(text).data.network).toBe("IB");
  });

  test("a name with a space stays whole (`Using network AWS Libfabric`)", () => {
    // aws-ofi-nccl's network name, https://github.com/aws/aws-ofi-nccl
    const text = "ip-10-1-2-3:77:120 [0] NCCL INFO Using network AWS Libfabric";
    expect(analyzeNcclLog(text).data.networks).toEqual({ "AWS Libfabric": 1 });
  });
});

// A page that quotes the line it expected, with no host, under a log whose records name their process (a blog's
// `* NCCL INFO Using network AWS Libfabric` bullet under a run that fell back to Socket; shape seen in a blog post
// committed to a public repository, index-file 24563078160; hosts and pids our own): the records with a process
// decide, the hostless line is the weaker reading. Alone, a hostless line still names the network.
test("a hostless record's network gives way to the network records with a process name", () => {
  const log = [
    "trn-0:211:402 [0] NCCL INFO NET/IB : No device found.",
    "trn-0:211:402 [0] NCCL INFO NET/Socket : Using [0]eth0:10.12.3.14<0>",
    "trn-0:211:402 [0] NCCL INFO Using network Socket",
    "",
    "What a healthy run prints instead:",
    "* NCCL INFO NET/OFI Selected Provider is efa",
    "* NCCL INFO Using network AWS Libfabric",
  ].join("\n");
  expect(analyzeNcclLog(log).data.network).toBe("Socket");
  expect(analyzeNcclLog("NCCL INFO Using network AWS Libfabric\n").data.network).toBe("AWS Libfabric");
});

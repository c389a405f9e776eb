import { describe, expect, test } from "vitest";
import { analyzeTranscript } from "../../analyze/index.js";
import { analyzeNcclLog } from "../log/analyzer.js";
import { analyzeNcclTests } from "./analyzer.js";

/*
 * Result rows are collectives that ran: nccl-tests prints a row only after timing the collective on a built
 * communicator (src/common.cu, https://github.com/NVIDIA/nccl-tests). WARNs printed beside them are what they are —
 * warnings or errors of that run — never proof that the init failed. Shapes: NCCL WARNs interleaved with the table
 * (https://github.com/NVIDIA/nccl-tests/issues/131, graph/search.cc "Could not find a path" between rows); an IB
 * async event and the failed `ibv_get_async_event` behind it (https://github.com/NVIDIA/nccl/issues/230). Hosts,
 * pids and numbers are this project's own.
 */
const HEADER = [
  "# nThread 1 nGpus 1 minBytes 16777216 maxBytes 67108864 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
  "#",
  "# Using devices",
  "#  Rank  0 Group  0 Pid   4411 on      kr-a1 device  0 [0x1b] NVIDIA H100 80GB HBM3",
  "#  Rank  1 Group  0 Pid   5120 on      kr-b2 device  0 [0x1b] NVIDIA H100 80GB HBM3",
  "kr-a1:4411:4411 [0] NCCL INFO Bootstrap : Using ens7:10.20.0.11<0>",
  "kr-b2:5120:5120 [0] NCCL INFO Bootstrap : Using ens7:10.20.0.12<0>",
  "NCCL version 2.18.5+cuda12.2",
  "#",
  "#                                                              out-of-place                       in-place          ",
  "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
  "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
];
const ROWS = [
  "    16777216       4194304     float     sum      -1    812.4   20.65   20.65      0    809.1   20.74   20.74      0",
  "    33554432       8388608     float     sum      -1   1580.2   21.23   21.23      0   1577.9   21.27   21.27      0",
  "    67108864      16777216     float     sum      -1   3120.6   21.51   21.51      0   3118.3   21.52   21.52      0",
];
const FOOTER = ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 21.1533 ", "#"];
const ASYNC = [
  "",
  "kr-a1:4411:4470 [0] transport/net_ib.cc:98 NCCL WARN NET/IB : Got async event : local catastrophic error",
  "",
  "kr-a1:4411:4470 [0] misc/ibvwrap.cc:220 NCCL WARN Call to ibv_get_async_event failed",
];
const PATH_WARN = [
  "",
  "kr-b2:5120:5180 [0] graph/search.cc:890 NCCL WARN Could not find a path for pattern 4, falling back to simple order",
];

const text = (lines: string[]) => `${lines.join("\n")}\n`;
const codes = (fs: { code: string; severity: string }[]) => fs.map((f) => `${f.severity}:${f.code}`).sort();

describe("nccl-tests rows prove the communicator ran, whatever WARNs are interleaved", () => {
  const run = [...HEADER, ROWS[0]!, ...ASYNC, ROWS[1]!, ROWS[2]!, ...FOOTER];

  test("error WARNs between rows, no Init COMPLETE: not an init failure; each WARN reported as what it is", () => {
    const o = analyzeNcclTests(text(run));
    const found = codes(o.findings);
    expect(found).not.toContain("error:NCCL_LOG_INIT_FAILED");
    expect(found).toContain("warning:NCCL_WARN_ASYNC_EVENT");
    expect(found).toContain("error:NCCL_WARN_VERBS_CALL_FAILED");
    expect(o.data?.rows).toHaveLength(3);
    expect(o.data?.peak).toEqual({ bytes: 67108864, busbw: 21.52 });
  });

  test("the NCCL log read beside the rows rests its verdict on them (the mixed kinds of one paste)", () => {
    const entries = analyzeTranscript("run.log", text(run));
    const log = entries.find((e) => e.kind === "nccl_log");
    expect(entries.map((e) => e.kind)).toEqual(["nccl_tests", "nccl_log"]);
    const d = log!.data as { verdict: string; evidence: { communicator: string | null } };
    expect(d.verdict).not.toBe("init_failed");
    expect(d.evidence.communicator).toBe("nccl_tests_rows");
    expect(codes(log!.findings)).not.toContain("error:NCCL_LOG_INIT_FAILED");
  });

  test("a verdict from the NCCL lines comes with the evidence that decided it", () => {
    const ran = [...HEADER, "kr-a1:4411:4470 [0] NCCL INFO Using network Socket", ...ROWS, ...FOOTER];
    const log = analyzeNcclTests(text(ran)).data?.log;
    expect([log?.verdict, log?.network, log?.evidence.network, log?.evidence.communicator]).toEqual([
      "socket",
      "Socket",
      "using_network",
      "nccl_tests_rows",
    ]);
  });

  test("the same WARNs and no row (the run hung or died after its header): the init failed", () => {
    const o = analyzeNcclLog(text([...HEADER, ...ASYNC]));
    expect(o.data.verdict).toBe("init_failed");
    expect(o.data.evidence.communicator).toBeNull();
  });

  test("a warning-only WARN between rows: verdict unknown, the WARN a warning, no error from the log", () => {
    const o = analyzeNcclTests(text([...HEADER, ROWS[0]!, ...PATH_WARN, ROWS[1]!, ROWS[2]!, ...FOOTER]));
    const found = codes(o.findings);
    expect(found.filter((c) => c.startsWith("error:"))).toEqual([]);
    expect(found).toContain("warning:NCCL_WARN_OTHER");
    expect(o.data?.log).toBeNull();
  });
});

describe("a log of WARNs alone: init_failed or unknown by whether any communicator completed", () => {
  const INIT_COMPLETE =
    "kr-a1:4411:4470 [0] NCCL INFO comm 0x55d0c8a0 rank 0 nranks 2 cudaDev 0 busId 1b000 commId 0x9e1f - Init COMPLETE";

  test("a warning-only WARN and no Init COMPLETE: unknown (nothing failed)", () => {
    expect(analyzeNcclLog(text(["NCCL version 2.18.5+cuda12.2", ...PATH_WARN])).data.verdict).toBe("unknown");
  });

  test("an error WARN and no Init COMPLETE: init_failed", () => {
    expect(analyzeNcclLog(text(["NCCL version 2.18.5+cuda12.2", ...ASYNC])).data.verdict).toBe("init_failed");
  });

  test("an error WARN after a communicator completed: not an init failure", () => {
    const d = analyzeNcclLog(text(["NCCL version 2.18.5+cuda12.2", INIT_COMPLETE, ...ASYNC])).data;
    expect(d.verdict).not.toBe("init_failed");
    expect(d.evidence.communicator).toBe("init_complete");
  });
});

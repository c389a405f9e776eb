/**
 * nccl-tests prints a row in three writes — its head (`size count type redop root`), then each side's figures once that
 * side has run (src/common.cu: print_line_header, then BenchTime's PRINT per side, https://github.com/NVIDIA/nccl-tests)
 * — so NCCL's own lines printed while the collective runs (NCCL_DEBUG_SUBSYS=COLL, or connections set up on first use)
 * land between the pieces, glued to the piece before. Shape seen at https://github.com/Timez-zx/nccl-tests/blob/HEAD/nccl.log;
 * own host and numbers.
 */
import { describe, expect, test } from "vitest";
import { analyzeText, analyzeTranscript } from "../../analyze/index.js";

const coll = (dev: number) =>
  `tb-7:5120:5120 [${dev}] NCCL INFO AllReduce: opCount 0 sendbuff 0x7200 recvbuff 0x9200 count 1048576 datatype 7 op 0 root 0 comm 0x55a1 [nranks=2] stream 0x55b1`;

const text = [
  "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
  "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
  `     4194304       1048576     float     sum      -1${coll(1)}`,
  coll(0),
  coll(1),
  `    41.07  102.12  102.12      0${coll(1)}`,
  coll(0),
  "    40.96  102.40  102.40      0",
  `     8388608       2097152     float     sum      -1    80.11  104.71  104.71      0    80.02  104.83  104.83      0`,
  "# Out of bounds values : 0 OK",
  "# Avg bus bandwidth    : 103.5 ",
  "#",
  "# Collective test concluded: all_reduce_perf",
].join("\n");

type Row = { bytes: number; outOfPlace: { busbw: number } | null; inPlace: { busbw: number } | null };

describe("a row NCCL's lines broke into pieces", () => {
  test("is one row again, both sides read, beside the NCCL log the same text holds", () => {
    const entries = analyzeTranscript("run.log", text);
    expect(entries.map((e) => e.kind)).toEqual(["nccl_tests", "nccl_log"]);
    const rows = (entries[0]!.data as { rows: Row[] }).rows;
    expect(rows.map((r) => [r.bytes, r.outOfPlace?.busbw, r.inPlace?.busbw])).toEqual([
      [4194304, 102.12, 102.4],
      [8388608, 104.71, 104.83],
    ]);
    expect((entries[0]!.data as { collective: string }).collective).toBe("all_reduce");
  });

  test("a head with no figures after it (the paste stops) is no row", () => {
    const cut = text.split("\n").slice(0, 5).join("\n");
    const tests = analyzeTranscript("run.log", cut).find((e) => e.kind === "nccl_tests");
    expect((tests?.data as { rows: Row[] } | null)?.rows ?? []).toEqual([]);
  });
});

// A harness built to print where each write came from, `function(), file.cu:123, ` before it: its header and footer
// lines carry one mark, a row three (size … root, then each side's figures, each its own write). Shape seen in logs
// committed to https://github.com/ssbandjl/nccl-tests (log/); hosts and numbers ours.
describe("an instrumented build's source-location marks", () => {
  const mark = (fn: string, line: number) => `${fn}(), common.cu:${line}, `;
  const row = (size: number, t1: number, t2: number) => {
    const alg = (t: number) => (size / t / 1e3).toFixed(2);
    const bus = (t: number) => ((size / t / 1e3) * 0.75).toFixed(2);
    return `${mark("TimeTest", 610)}${String(size).padStart(12)}  ${String(size / 16).padStart(12)}     float    none      -1${mark("BenchTime", 561)}  ${t1.toFixed(1).padStart(8)}  ${alg(t1).padStart(6)}  ${bus(t1).padStart(6)}      0${mark("BenchTime", 561)}  ${t2.toFixed(1).padStart(8)}  ${alg(t2).padStart(6)}  ${bus(t2).padStart(6)}      0${mark("TimeTest", 613)}`;
  };
  const text = [
    "mpirun -np 4 -H 10.9.0.11:2,10.9.0.12:2 ./build/all_gather_perf -b 1M -e 4M -f 2 -g 1",
    `${mark("run", 967)}# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0`,
    `${mark("run", 973)}#`,
    ...[0, 1, 2, 3].map(
      (r) =>
        `${mark("run", 998)}#  Rank  ${r} Group  0 Pid ${4100 + r} on   gpu-${r < 2 ? "a" : "b"} device  ${r % 2} [0x08] Tesla V100-SXM2-16GB`,
    ),
    "ncclIbInit(), transport/net_ib.cc:700, NCCL Match dev_num:2",
    `${mark("run", 1084)}#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong`,
    row(1048576, 1310.2, 1290.7),
    row(2097152, 1805.4, 1790.1),
    row(4194304, 2955.8, 2901.3),
    `${mark("run", 1174)}# Out of bounds values : 0 OK`,
    `${mark("run", 1175)}# Avg bus bandwidth    : 1.05627 `,
  ].join("\n");

  test("every mark comes off: the banner, the rank lines, each row's three writes and the footer are read", () => {
    const e = analyzeText("run.log", `${text}\n`);
    expect(e.kind).toBe("nccl_tests");
    const d = e.data as {
      collective: string;
      nranks: number;
      rows: { outOfPlace: { busbw: number } }[];
      avgBusBw: number;
    };
    expect([d.collective, d.nranks, d.rows.length, d.avgBusBw]).toEqual(["all_gather", 4, 3, 1.05627]);
    expect(d.rows[2]!.outOfPlace.busbw).toBe(1.06);
  });
});

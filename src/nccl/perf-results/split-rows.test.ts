/**
 * nccl-tests prints a row in three writes — its head (`size count type redop root`), then each side's figures once that
 * side has run (src/common.cu: print_line_header, then BenchTime's PRINT per side, https://github.com/NVIDIA/nccl-tests)
 * — so NCCL's own lines printed while the collective runs (NCCL_DEBUG_SUBSYS=COLL, or connections set up on first use)
 * land between the pieces, glued to the piece before. Shape seen at https://github.com/Timez-zx/nccl-tests/blob/HEAD/nccl.log;
 * own host and numbers.
 */
import { describe, expect, test } from "vitest";
import { analyzeTranscript } from "../../analyze/index.js";

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

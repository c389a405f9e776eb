import { describe, expect, test } from "vitest";
import { analyzeTranscript } from "../../analyze/index.js";

// MSCCL++'s test harness output, in the layout its source prints (microsoft/mscclpp test/mscclpp-test/common.cc,
// BaseTestEngine::runTest: a three-line header with in-place first and no type/redop/root columns, each row
// `setw(12) size  setw(12) count`, then 33 spaces when the run is out-of-place, then `time algbw busbw #wrong`). Shapes
// pasted as at https://github.com/microsoft/mscclpp/pull/114 and /pull/87 (behind `[1,0]<stdout>:` tags). Our numbers.
const HEADER = [
  "#",
  "#                                        in-place                       out-of-place",
  "#       size         count     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong",
  "#        (B)    (elements)     (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)",
];
const size = (b: number) => `${String(b).padStart(12)}  ${String(b / 4).padStart(12)}`;
const side = (t: string, a: string, b: string, w = "0") =>
  `  ${t.padStart(7)}  ${a.padStart(6)}  ${b.padStart(6)}  ${w.padStart(5)}`;
const FOOTER = ["", "# Out of bounds values : 0 OK", "#"];

type Data = {
  collective: string | null;
  nranks: number | null;
  rows: { bytes: number; inPlace: { busbw: number } | null; outOfPlace: { busbw: number } | null }[];
  peak: { busbw: number } | null;
};

describe("MSCCL++ test tables", () => {
  test("in-place rows under an mpirun command: collective and ranks from the command, each row on its side", () => {
    const text = [
      "$ mpirun -np 8 --hostfile hosts -npernode 4 ./build/test/mscclpp-test/allreduce_test_perf -b 1G -e 2G -f 2",
      ...HEADER,
      size(1073741824) + side("9120", "117.74", "206.04"),
      size(2147483648) + side("17702", "121.31", "212.29"),
      ...FOOTER,
    ].join("\n");
    const [e] = analyzeTranscript("m.txt", text);
    expect(e!.kind).toBe("nccl_tests");
    const d = e!.data as Data;
    expect(d.collective).toBe("all_reduce");
    expect(d.nranks).toBe(8);
    expect(d.rows.map((r) => r.inPlace?.busbw)).toEqual([206.04, 212.29]);
    expect(d.rows.every((r) => r.outOfPlace === null)).toBe(true);
    expect(d.peak?.busbw).toBe(212.29);
  });

  test("an out-of-place row padded where the in-place figures would be, behind rank tags", () => {
    const text = [...HEADER, size(536870912) + " ".repeat(33) + side("12410", "43.26", "37.85"), ...FOOTER]
      .map((l) => `[1,0]<stdout>:${l}`)
      .join("\n");
    const [e] = analyzeTranscript("m.txt", text);
    expect(e!.kind).toBe("nccl_tests");
    const d = e!.data as Data;
    expect(d.rows).toHaveLength(1);
    expect(d.rows[0]!.inPlace).toBeNull();
    expect(d.rows[0]!.outOfPlace?.busbw).toBe(37.85);
  });

  test("a row that is not `size count time algbw busbw [#wrong]` is reported, not read", () => {
    const text = [...HEADER, `${size(1048576)}  12.5  fast  0`, ...FOOTER].join("\n");
    const [e] = analyzeTranscript("m.txt", text);
    expect((e!.data as Data | null)?.rows ?? []).toHaveLength(0);
    expect((e!.problems ?? []).map((p) => p.code)).toContain("nccl_tests.bad_row");
  });
});

// A table trimmed on a page to `size time algbw busbw`, under a launcher command typed over several lines with `\`
// continuations (shape seen at https://github.com/elizabetht/spark/blob/HEAD/infiniband-tutorial/LINKEDIN_ARTICLE.md;
// continuation: https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_02_01). Our numbers.
describe("a table trimmed to the columns a page wanted", () => {
  test("rows read by the header's names; ranks from the continued command", () => {
    const text = [
      "mpirun -np 4 -H 10.4.0.11:2,10.4.0.12:2 \\",
      "    -x NCCL_IB_HCA=mlx5_1 \\",
      "    ./nccl-tests/build/reduce_scatter_perf -b 1G -e 4G -f 2",
      "",
      "#       size      time   algbw   busbw",
      "#        (B)      (us)  (GB/s)  (GB/s)",
      "  1073741824     30120   35.65   26.74",
      "  2147483648     59881   35.86   26.90",
      "  4294967296    119410   35.97   26.98",
      "# Avg bus bandwidth    : 26.8733",
    ].join("\n");
    const [e] = analyzeTranscript("t.txt", text);
    expect(e!.kind).toBe("nccl_tests");
    const d = e!.data as Data & { avgBusBw: number | null };
    expect(d.collective).toBe("reduce_scatter");
    expect(d.nranks).toBe(4);
    expect(d.rows.map((r) => r.bytes)).toEqual([1073741824, 2147483648, 4294967296]);
    expect(d.peak?.busbw).toBe(26.98);
    expect(d.avgBusBw).toBeCloseTo(26.8733, 4);
  });
});

// `# Avg bus bandwidth` footers grepped from one log per host, behind grep's file-name prefixes (shape seen at
// https://github.com/FlagOpen/FlagPerf/blob/main/base/toolkits/interconnect-MPI_intraserver/dcu/BW/main.sh; the footer
// is nccl-tests' `# Avg bus bandwidth    : %g`, https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu). Our hosts.
describe("footers alone, one per log", () => {
  test("each footer is a run of its own; the figure judged is the last", () => {
    const text = [
      '$ grep "# Avg bus bandwidth" node*_nccl_log',
      "node7_nccl_log:# Avg bus bandwidth    : 41.2203 ",
      "node8_nccl_log:# Avg bus bandwidth    : 12.0871 ",
      "node9_nccl_log:# Avg bus bandwidth    : 40.9518 ",
      "node10_nccl_log:# Avg bus bandwidth    : 41.0032 ",
    ].join("\n");
    const [e] = analyzeTranscript("f.txt", text);
    expect(e!.kind).toBe("nccl_tests");
    const d = e!.data as { runs: { avgBusBw: number | null }[]; avgBusBw: number | null };
    expect(d.runs.map((r) => r.avgBusBw)).toEqual([41.2203, 12.0871, 40.9518, 41.0032]);
    expect(d.avgBusBw).toBe(41.0032);
  });

  test("one footer in prose is not claimed as a test's output", () => {
    const [e] = analyzeTranscript("f.txt", "We got\n# Avg bus bandwidth : 41.2\nlast week.\n");
    expect(e!.kind).not.toBe("nccl_tests");
  });
});

// rccl-tests rows with the tuning each size ran with after the figures, `algo proto nchannels` (shape seen at
// https://github.com/ROCm/rocm-systems/pull/8273); our numbers.
describe("trailing tuning columns", () => {
  test("are left off each row; the figures stay where the header puts them", () => {
    const text = [
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong   algo  proto  nchannels",
      "     1048576        262144     float     sum      -1    49.00   21.40   37.45      0    49.50   21.18   37.07      0  RING  LL128    32",
      "    16777216       4194304     float     sum      -1    163.5  102.61  179.57      0    165.1  101.62  177.84      0  RING  SIMPLE   64",
      "# Out of bounds values : 0 OK",
      "# Avg bus bandwidth    : 108.51 ",
    ].join("\n");
    const [e] = analyzeTranscript("r.txt", text);
    const d = e!.data as Data;
    expect(d.rows.map((r) => [r.outOfPlace?.busbw, r.inPlace?.busbw])).toEqual([
      [37.45, 37.07],
      [179.57, 177.84],
    ]);
  });
});

/**
 * A page that trimmed nccl-tests' table to fit: the header cut to one side's `time algbw busbw` (no #wrong, no in-place
 * side), one sample row, and the collective named only in the words beside it (shape seen at
 * https://github.com/diogoaav/multinode-droplet-rccl-test/blob/HEAD/README.md). Own numbers. nccl-tests prints the
 * out-of-place side first (src/common.cu), and a single rank's bus factor is 0 for every reducing collective
 * (doc/PERFORMANCE.md), so the row alone names none.
 */
import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";

const page = [
  "### What a run prints",
  "",
  "```",
  "# size         count      type   redop    root     time   algbw   busbw",
  "#  (B)    (elements)                               (us)  (GB/s)  (GB/s)",
  " 4194304       1048576     float     sum      -1     6.02  696.74    0.00",
  "```",
  "",
  "- **Operation**: AllReduce sum of float values",
].join("\n");

type Data = {
  collective: string | null;
  collectiveSource: string | null;
  rows: { outOfPlace: { timeUs: number; algbw: number; busbw: number; wrong: number | null } | null }[];
};

describe("a table trimmed to one side's figures", () => {
  test("its row is read by the header: time, algbw, busbw, nothing checked", () => {
    const d = analyzeText("readme.md", page).data as Data;
    expect(d.rows.map((r) => r.outOfPlace)).toEqual([
      { timeUs: 6.02, algbw: 696.74, busbw: 0, wrong: null, maxError: null },
    ]);
  });

  test("the collective the words name decides what the row cannot, when the row's op fits it", () => {
    const d = analyzeText("readme.md", page).data as Data;
    expect([d.collective, d.collectiveSource]).toEqual(["all_reduce", "text"]);
    // A word naming a collective whose rows print no reducing op does not fit a `sum` row.
    const other = analyzeText("readme.md", page.replace("AllReduce sum", "AllGather")).data as Data;
    expect(other.collective).toBeNull();
  });
});

/**
 * The same trim keeping the check column: `time algbw busbw #wrong` once, a single size's row under it (shape seen in a
 * Kubernetes MPIJob recipe's expected results committed to a public repository, index-file 56767258008). Own numbers.
 */
describe("a table trimmed to one side's figures and its #wrong", () => {
  const table = [
    "# nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703",
    "# Collective test starting: all_reduce_perf",
    "# nThread 1 nGpus 4 minBytes 17179869184 maxBytes 17179869184 step: 2(factor)",
    "#",
    "#       size    count   type  redop  root   time   algbw   busbw  #wrong",
    "#        (B)  (elements)                    (us)  (GB/s)  (GB/s)",
    "  17179869184 4294967296  float   sum    -1  100234  171.40  257.10       0",
    "# Avg bus bandwidth    : 257.1",
  ].join("\n");

  test("its row is the out-of-place side, checked", () => {
    const d = analyzeText("recipe.md", table).data as Data;
    expect(d.rows.map((r) => r.outOfPlace)).toEqual([
      { timeUs: 100234, algbw: 171.4, busbw: 257.1, wrong: 0, maxError: null },
    ]);
  });
});

/**
 * A README's template of the output, every figure masked (`XXXXX`, `XXX.XX`: shape seen at
 * https://github.com/GoogleCloudPlatform/cluster-toolkit/blob/HEAD/examples/machine-learning/a3-megagpu-8g/nccl-tests/README.md
 * and in two more READMEs of the same toolkit): the rows' sizes, counts and types are read,
 * their figures are no values, like `N/A`, and nothing is judged of a bandwidth nobody printed. Own sizes.
 */
describe("a template whose figures a page masked", () => {
  const template = [
    "The job writes the output of the `all_gather_perf` benchmark:",
    "",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
    "   134217728       2097152     float    none      -1    XXXXX  XXX.XX  XXX.XX    N/A   XXXXXX  XXX.XX  XXX.XX      0",
    "   268435456       4194304     float    none      -1    XXXXX  XXX.XX  XXX.XX    N/A   XXXXXX  XXX.XX  XXX.XX      0",
    "   536870912       8388608     float    none      -1    XXXXX  XXX.XX  XXX.XX    N/A   XXXXXX  XXX.XX  XXX.XX      0",
    "# Out of bounds values : 0 OK",
    "# Avg bus bandwidth    : XXX.XX",
  ].join("\n");

  test("its rows are read without figures, and no bandwidth is judged", () => {
    const r = analyzeText("README.md", template);
    const d = r.data as Data & { peak: unknown; avgBusBw: unknown };
    expect(d.rows).toHaveLength(3);
    expect(d.rows[0]!.outOfPlace).toMatchObject({ timeUs: null, algbw: null, busbw: null });
    expect([d.collective, d.peak, d.avgBusBw]).toEqual(["all_gather", null, null]);
    const codes = r.findings.map((f) => f.code);
    for (const c of ["NCCL_TESTS_BANDWIDTH_LOW", "NCCL_TESTS_BANDWIDTH_OK", "NCCL_TESTS_NOT_AT_PLATEAU"])
      expect(codes).not.toContain(c);
  });
});

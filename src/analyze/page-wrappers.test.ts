import { describe, expect, test } from "vitest";
import { analyzeText } from "./index.js";
import { normaliseCapture } from "./normalise.js";
import {
  flattenedTablesOff,
  gutterLinesOff,
  markdownTablesOff,
  pageBulletsOff,
  viewerCellsOff,
  viewerLineNumbersOff,
} from "./page-wrappers.js";

// Rows in nccl-tests' own layout (src/common.cu's PrintLine: size, count, type, redop, root, then time, algbw, busbw,
// #wrong for out-of-place and in-place), https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu ; own hosts.
const CAPTURE = [
  "#  Rank  0 Group  0 Pid  41120 on    gb-n01 device  0 [0000:18:00] NVIDIA B200",
  "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
  "   134217728      33554432     float     sum      -1    412.3  325.53  610.37      0    415.0  323.42  606.41      0",
  "   268435456      67108864     float     sum      -1    801.9  334.75  627.66      0    806.2  332.97  624.31      0",
];

describe("a viewer's line numbers count up by one and come off", () => {
  // Glued to the text: a documentation site's code block copied with its gutter (`1spec:` `2 categories:`),
  // https://docs.nvidia.com/cluster-readiness-engine/how-to-guides/run-nccl-benchmarks
  test("glued numbers come off, and only the line's own number (a row's leading spaces stay)", () => {
    const glued = ["View as Markdown", ...CAPTURE.map((l, i) => `${i + 1}${l}`)];
    expect(viewerLineNumbersOff(glued)?.lines).toEqual(["View as Markdown", ...CAPTURE]);
  });

  // With one space: a gitweb blob view (`12 text`), https://git.droids-corp.org/?p=dpdk.git;a=blob;f=doc/guides/nics/mlx5.rst
  test("a number and one space come off every line, from any first number (a paste cut from the middle)", () => {
    const spaced = ["$ ofed_info -s", "MLNX_OFED_LINUX-23.10-1.1.9.0:"].map((l, i) => `${37 + i} ${l}`);
    expect(viewerLineNumbersOff(spaced)?.lines).toEqual(["$ ofed_info -s", "MLNX_OFED_LINUX-23.10-1.1.9.0:"]);
  });

  test("a number glued to a line that starts with digits is read as the count goes, not as the digits", () => {
    const csv = ["0, NVIDIA H100 80GB HBM3, 00000000:18:00.0", "1, NVIDIA H100 80GB HBM3, 00000000:2A:00.0"];
    const glued = csv.map((l, i) => `${12 + i}${l}`);
    expect(viewerLineNumbersOff(glued)?.lines).toEqual(csv);
  });

  test("a blank line between numbered ones (a stray carriage return) and a line whose number another wrapper took", () => {
    const split = CAPTURE.flatMap((l, i) => [`${i + 1}${l}`, ""]);
    expect(viewerLineNumbersOff(split)?.lines).toEqual(CAPTURE.flatMap((l) => [l, ""]));
    const twice = [...CAPTURE, ...CAPTURE];
    const taken = twice.map((l, i) => (i === 2 ? l : `${i + 1}${l}`));
    expect(viewerLineNumbersOff(taken)?.lines).toEqual(twice);
  });

  test("numbers that do not count up, a numbered list and `ip link`'s `1: lo:` are not a gutter", () => {
    expect(viewerLineNumbersOff(CAPTURE)).toBeNull();
    expect(viewerLineNumbersOff(["8 2 float sum", "16 4 float sum", "32 8 float sum"])).toBeNull();
    expect(viewerLineNumbersOff(["1. load the module", "2. run the test", "3. read busbw"])).toBeNull();
    expect(viewerLineNumbersOff(["1: lo: <LOOPBACK,UP> mtu 65536", "2: ens1f0np0: <BROADCAST> mtu 9000"])).toBeNull();
    // A single numbered line among plain ones proves nothing.
    expect(viewerLineNumbersOff(["1 mlx5_0 port 1 ==> ib0 (Up)", "mlx5_1 port 1 ==> ib1 (Up)"])).toBeNull();
  });
});

describe("a source view's gutter lines, a page's bullets and a Markdown table", () => {
  // A Gitea/Forgejo file view copied with its gutter: a lone `|` line after every line,
  // https://code.badstorm.xyz/AI/rocm-systems/src/commit/130ee246e21d3f73c977eda496ac9c90c3aa520b/src/all_gather.cu
  test("lone `|` lines between the lines come off; a table's own bars do not", () => {
    const viewed = CAPTURE.flatMap((l) => [l, "|", "|"]);
    expect(gutterLinesOff(viewed)).toEqual(CAPTURE);
    expect(gutterLinesOff(["| GPU  Name |", "|   0  H100 |"])).toBeNull();
    expect(gutterLinesOff([...CAPTURE, "|"])).toBeNull();
  });

  // A rendered list (`  • ` before each item) copied as text, https://excel.kuizhiqing.cn/nccl/nccl.html
  test("a page's `• ` before every line comes off; a few bullets among plain lines stay", () => {
    expect(pageBulletsOff(CAPTURE.map((l) => `  • ${l}`))).toEqual(CAPTURE);
    expect(pageBulletsOff(["Steps:", "  • load the module", ...CAPTURE])).toBeNull();
  });

  // GitHub-flavoured Markdown tables, https://github.github.com/gfm/#tables-extension- ; a results table in a page of
  // checks, https://facebookresearch.github.io/gcm/docs/GCM_Health_Checks/health_checks/check-nccl
  test("a Markdown table's rows read as the text they were made from; an nvidia-smi box is no table", () => {
    const md = [
      "### broadcast_perf",
      "| size | count | type | redop | root | time | algbw | busbw | #wrong |",
      "|---|---:|---|---|---|---|---|---|---|",
      "| 16777216 | 4194304 | float | none | 0 | 95.1 | 176.42 | 176.42 | 0 |",
      "| 67108864 | 16777216 | float | none | 0 | 352.0 | 190.65 | 190.65 | |",
    ];
    expect(markdownTablesOff(md)).toEqual([
      "### broadcast_perf",
      "size  count  type  redop  root  time  algbw  busbw  #wrong",
      "16777216  4194304  float  none  0  95.1  176.42  176.42  0",
      "67108864  16777216  float  none  0  352.0  190.65  190.65  -",
    ]);
    const box = [
      "+-----------------------------------------------------------------------------+",
      "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
      "|===============================+======================+======================|",
      "|   0  NVIDIA H100 80GB    On   | 00000000:18:00.0 Off |                    0 |",
    ];
    expect(markdownTablesOff(box)).toBeNull();
  });

  test("the normalisation layer names each page shape it removed", () => {
    const n = normaliseCapture(
      CAPTURE.map((l, i) => `${i + 1}${l}`)
        .flatMap((l) => [l, "|"])
        .join("\n"),
    );
    expect(n.removed).toEqual(["viewer_gutter_lines", "viewer_line_numbers"]);
    expect(n.text).toBe(CAPTURE.join("\n"));
  });
});

// A web table copied out of a rendered page, one cell per line, each ending in its column's bar (shape seen at
// https://yundeesoft.com/160641.html); the columns are nccl-tests' (https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu)
// and show_gids' (DEV PORT INDEX GID IPv4 VER DEV). Our own numbers and addresses.
describe("a web table flattened to one cell per line", () => {
  const cellsOf = (rows: string[][]) => rows.flat().map((c) => (c ? `${c} |` : "|"));
  test("rows rebuilt at the width the cells prove, an empty cell kept empty", () => {
    const rows = [
      ["DEV", "PORT", "INDEX", "GID", "IPv4", "VER"],
      ["mlx5_2", "1", "0", "fe80::1", "", "v1"],
      ["mlx5_2", "1", "3", "::ffff:10.9.0.4", "10.9.0.4", "v2"],
    ];
    const out = flattenedTablesOff(["show_gids here:", ...cellsOf(rows), "done"]);
    expect(out).toEqual([
      "show_gids here:",
      "DEV  PORT  INDEX  GID  IPv4  VER",
      "mlx5_2  1  0  fe80::1    v1",
      "mlx5_2  1  3  ::ffff:10.9.0.4  10.9.0.4  v2",
      "done",
    ]);
  });

  test("an nccl-tests table read back as rows by analyze", () => {
    const side = ["time", "algbw", "busbw", "#wrong"];
    const header = ["size", "count", "type", "redop", "root", ...side, ...side];
    const rows = [
      ["1048576", "262144", "float", "sum", "-1", "40.1", "26.15", "45.76", "0", "40.9", "25.64", "44.87", "0"],
      ["2097152", "524288", "float", "sum", "-1", "58.3", "35.97", "62.95", "0", "59.0", "35.54", "62.20", "0"],
      ["4194304", "1048576", "float", "sum", "-1", "91.0", "46.09", "80.66", "0", "92.2", "45.49", "79.61", "0"],
    ];
    const entry = analyzeText("t.txt", ["all_reduce_perf -g 8 (8 GPUs):", ...cellsOf([header, ...rows])].join("\n"));
    expect(entry.kind).toBe("nccl_tests");
    expect((entry.data as { rows: unknown[] }).rows).toHaveLength(3);
    expect((entry.data as { peak: { busbw: number } }).peak.busbw).toBe(80.66);
  });

  test("cells whose columns mix numbers and words at every width are left alone", () => {
    const lines = ["a |", "1 |", "b |", "c |", "2 |", "3 |", "d |", "4 |", "e |"];
    expect(flattenedTablesOff(lines)).toBeNull();
  });
});

// A gist page copied whole: its title and notice lines, then the file with a viewer's two empty cells after each line
// and one after the last, then the sign-up line (shape seen at https://gist.github.com/huseinzol05/04f93dfb57c463eb968f2162761e9540).
describe("a file viewer's empty cells amid the page around the file", () => {
  test("five lines in a row carrying ` | |` prove them; the last line's lone ` |` comes off too", () => {
    const file = CAPTURE.slice(0, 3);
    const page = [
      "Created",
      "March 3, 2026 10:12",
      "nccl run on two nodes",
      "This file contains bidirectional Unicode text.",
      "make MPI=1 | |",
      "./build/all_reduce_perf -g 8 | |",
      ...file.map((l) => `${l} | |`),
      `${CAPTURE[3]} |`,
      "Sign up for free",
    ];
    const out = viewerCellsOff(page)!;
    expect(out.slice(4, 10)).toEqual(["make MPI=1", "./build/all_reduce_perf -g 8", ...CAPTURE]);
    expect(out.at(-1)).toBe("Sign up for free");
  });

  test("a few lines ending in ` | |` among many others are no viewer's", () => {
    const lines = ["a | |", "b", "c | |", "d", "e", "f", "g", "h"];
    expect(viewerCellsOff(lines)).toBeNull();
  });
});

// A source view's gutter (one `|` after every line, blank ones too; shape seen at
// https://code.badstorm.xyz/AI/rocm-systems/src/commit/130ee246e21d3f73c977eda496ac9c90c3aa520b/src/all_gather.cu) over
// a file whose own lines include a lone `|` (a table's empty cell copied one cell to a line).
describe("a gutter of one width over a file with lone bars of its own", () => {
  test("exactly the gutter's bars come off; the file's own `|` stays", () => {
    const file = ["mlx5_0 |", "|", "v2 |", ""];
    expect(gutterLinesOff(file.flatMap((l) => [l, "|"]))).toEqual(file);
  });

  test("two bars after every line come off as two", () => {
    const file = ["# Avg bus bandwidth : 9.1", "|", "done"];
    expect(gutterLinesOff(file.flatMap((l) => [l, "|", "|"]))).toEqual(file);
  });
});

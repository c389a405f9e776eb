import { describe, expect, test } from "vitest";
import { analyzeText } from "./index.js";
import { terminalWrapOff } from "./terminal-wrap.js";

/** `text` cut every `width` columns, as a terminal window breaks a line that does not fit. */
const cutAt = (width: number, lines: string[]): string[] =>
  lines.flatMap((l) => {
    const out: string[] = [];
    for (let i = 0; i < l.length; i += width) out.push(l.slice(i, i + width));
    return out.length > 0 ? out : [""];
  });

// Shape seen in a PyTorch error pasted into an issue (https://github.com/ai4d-iasc/trixie/issues/87): the report of the
// failed NCCL call and its detail each broken at the window's width, the first in the middle of `version`. The path,
// the numbers and the width here are our own.
const REPORT = [
  "The error seems to be",
  "```",
  "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1655000000000/work/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.10.3",
  "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. It can be also caused by unexpected exit of a remote peer, you can check NCCL warnings for failure reason and see if there is connection closure by a peer.",
  "```",
];

describe("lines a window cut at one width", () => {
  test("are joined again, and the version a cut split is read", () => {
    const cut = cutAt(166, REPORT);
    expect(cut.some((l) => l.endsWith("NCCL versi"))).toBe(true);
    expect(terminalWrapOff(cut)).toEqual(REPORT);
    const e = analyzeText("issue.md", cut.join("\n"));
    expect(e.kind).toBe("nccl_log");
    expect(e.data).toMatchObject({ ncclVersions: ["2.10.3"], verdict: "init_failed" });
  });

  test("a table's rows of one width are not cuts", () => {
    // show_gids' rows, one width each (the script pads its columns), one after another.
    const rows = [
      "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
      ...[0, 1, 2].map((i) =>
        `mlx5_${i}  1       3       0000:0000:0000:0000:0000:ffff:0a00:000${i} 10.0.0.${i}        v2      ens${i}f0np0`.padEnd(
          96,
        ),
      ),
      "n_gids_found=3",
    ];
    expect(rows[1]!.length).toBeGreaterThan(80);
    expect(terminalWrapOff(rows)).toBeNull();
    // nvidia-smi's box twice, a prompt and a word after each: its borders are the widest lines.
    const box = [`+${"-".repeat(88)}+`, `| NVIDIA-SMI 550.54.15${" ".repeat(68)}|`, `+${"-".repeat(88)}+`];
    expect(terminalWrapOff([...box, "root@gpu-7:~# nvidia-smi", ...box, "done"])).toBeNull();
  });

  test("log records that end at one width by chance are not cuts", () => {
    const records = [
      "gpu-a:101:101 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA comm 0x55aa nRanks 02",
      "gpu-b:202:202 [0] NCCL INFO Using network IB",
      "gpu-a:101:101 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/IB/1/GDRDMA comm 0x55aa nRanks 02",
      "gpu-b:202:202 [0] NCCL INFO comm 0x77bb rank 1 nRanks 2 nNodes 2",
    ];
    expect(terminalWrapOff(records)).toBeNull();
  });

  test("a line of its own after one that ends at the width is not a cut: an error's name, a word other lines start with", () => {
    const long = "x".repeat(70);
    // PyTorch's detail under its report, twice (shape seen in a note quoting two failed runs).
    const reports = [
      `NCCL error in: ${long}/libtorch_cuda.so, unhandled cuda error, NCCL version 2.18.3`,
      "ncclInternalError: Internal check failed.",
      `NCCL error in: ${long}/libtorch_cuda.so, unhandled cuda error, NCCL version 2.18.4`,
      "ncclTimeoutError: Call to NCCL function timed out.",
    ];
    expect(terminalWrapOff(reports)).toBeNull();
    // A harness cut NCCL's long lines short; its own lines follow them, and start other lines too.
    const harness = [
      `h:1:1 [0] NCCL TRACE enqueue coll AllReduce ${long}chunkCo`,
      "rank=0 operation=6 stage=api_return",
      `h:1:1 [0] NCCL TRACE enqueue coll AllReduce ${long}lastCh`,
      "rank=0 operation=7 stage=api_return",
      "rank=0 operation=8 stage=api_call",
    ];
    expect(terminalWrapOff(harness)).toBeNull();
  });

  test("one line at the width proves no window", () => {
    expect(terminalWrapOff(cutAt(166, REPORT.slice(0, 3)))).toBeNull();
  });
});

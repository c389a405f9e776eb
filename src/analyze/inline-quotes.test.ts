/**
 * A question that quotes one line of a tool's output inline, and nothing else of it. Shapes seen at
 * https://github.com/NVIDIA/nccl/issues/1939 (`INFO NET/IB : …` as inline code, NCCL ≤ 2.4's record without its host)
 * and https://github.com/NVIDIA/nccl/issues/1151 (`NCCL INFO GPU Direct RDMA Disabled for GPU …`); hosts ours.
 */
import { describe, expect, test } from "vitest";
import { analyzeText } from "./index.js";
import { inlineQuotesOf } from "./inline-quotes.js";

const question = [
  "### Question",
  "",
  "`nvidia_peermem` is loaded and `ib_write_bw -d mlx5_2 -x 3 --use_cuda=0 10.8.1.12` works, but the log shows:",
  "`INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_2'`. Is peermem registered?",
].join("\n");

describe("a line of output quoted inline in prose", () => {
  test("the spans long enough to be output, a line each", () => {
    expect(inlineQuotesOf(question)?.split("\n")).toEqual([
      "ib_write_bw -d mlx5_2 -x 3 --use_cuda=0 10.8.1.12",
      "INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_2'",
    ]);
  });

  test("the quoted NCCL record is read: IB from the IB transport's own line, no verdict, no version", () => {
    const e = analyzeText("q.md", question);
    expect(e.kind).toBe("nccl_log");
    const d = e.data as { network: string | null; verdict: string; ncclVersions: string[] };
    expect([d.network, d.verdict, d.ncclVersions]).toEqual(["IB", "unknown", []]);
    expect(e.wrappers?.removed).toContain("inline_quotes");
  });

  test("a generic NCCL line quoted in bold names no network", () => {
    const e = analyzeText(
      "q.md",
      "NCCL keeps printing **NCCL INFO GPU Direct RDMA Disabled for GPU 1b000 / HCA 1 (distance 6 > 5)** — why?",
    );
    expect(e.kind).toBe("nccl_log");
    expect((e.data as { network: string | null }).network).toBeNull();
  });

  test("prose that quotes only names and settings is still no capture", () => {
    const e = analyzeText("q.md", "I set `NCCL_DEBUG=INFO` and `NCCL_IB_HCA=mlx5_0,mlx5_1` but see `nothing useful`.");
    expect(e.kind).toBe("unknown");
  });

  test("a capture's own backticks never send it to its quotes", () => {
    const log = [
      "gpu-b-03:71:71 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.3.0.7<0>",
      "gpu-b-03:71:71 [0] NCCL INFO Using network IB",
      "gpu-b-03:71:71 [0] NCCL INFO comm 0x5581d2c0 rank 0 nranks 16 cudaDev 0 busId 1b000 - Init COMPLETE",
    ].join("\n");
    const e = analyzeText("log.txt", `\`note\`: see the \`NCCL_IB_GID_INDEX\` line\n${log}`);
    expect(e.wrappers?.removed ?? []).not.toContain("inline_quotes");
    expect((e.data as { network: string }).network).toBe("IB");
  });
});

// The banner pasted bare, then the WARN quoted inline in a sentence (shape seen at
// https://github.com/NVIDIA/nccl/issues/296); own rank and version.
describe("an NCCL line pasted bare beside the inline quote", () => {
  const text = [
    "NCCL version 2.5.6+cuda10.1",
    "",
    "`init.cc:1180 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 7.`",
    "",
    "The flags it suggests are set, and the message stays the same.",
  ].join("\n");
  test("is read with the quote: the version is NCCL's own banner", () => {
    const e = analyzeText("q.md", text);
    expect(e.kind).toBe("nccl_log");
    expect((e.data as { ncclVersions: string[] }).ncclVersions).toEqual(["2.5.6"]);
  });
  test("prose lines outside the quotes are not kept", () => {
    expect(inlineQuotesOf(text, (l) => l.startsWith("NCCL version"))?.split("\n")).toEqual([
      "NCCL version 2.5.6+cuda10.1",
      "init.cc:1180 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 7.",
    ]);
  });
});

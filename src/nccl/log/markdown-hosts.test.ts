/** A paste's Markdown glued to a host name does not make another host (host names: RFC 1123 letters, digits, `-`, `.`). */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

describe("hosts behind a paste's Markdown", () => {
  // Shape seen at https://github.com/NVIDIA/nccl/issues/1105: the code span's backtick glued to the first line.
  test("`` `ps-8:796:796 [1] NCCL INFO … `` and `ps-8:796:822 [0] …` are one host", () => {
    const text = [
      "`ps-8:796:796 [1] NCCL INFO Bootstrap : Using enp67s0:192.168.1.8<0>",
      "ps-8:796:796 [1] NCCL INFO NET/IB : No device found.",
      "ps-8:795:822 [0] NCCL INFO Using network Socket`",
    ].join("\n");
    expect(analyzeNcclLog(text).data.hosts).toBe(1);
  });

  test("two real hosts stay two", () => {
    const text = [
      "`ps-8:796:796 [1] NCCL INFO Using network Socket",
      "ps-9:711:711 [0] NCCL INFO Using network Socket`",
    ];
    expect(analyzeNcclLog(text.join("\n")).data.hosts).toBe(2);
  });
});

import { describe, expect, test } from "vitest";
import { analyzeTranscript } from "../../analyze/index.js";

// A JSON-output build of nccl-tests prints one line `{"identifier": "nccl-tests structured output", "version": …,
// "benchmark": [{"<bytes>": {"count", "type", "redop", "root", "oop_time", "oop_algbw", "oop_busbw", "oop_error",
// "ip_…"}}]}` in place of its table; shape seen at https://github.com/NVIDIA/nccl-tests/pull/318 (own hosts, numbers).
const entry = (bytes: number, busbw: number) =>
  `"${bytes}": {"count": ${bytes / 32}, "type": "float", "redop": "none", "root": "-1", "oop_time": 900.5, "oop_algbw": ${(busbw * 8) / 7}, "oop_busbw": ${busbw}, "oop_error": 0.000000, "ip_time": 899.1, "ip_algbw": ${(busbw * 8) / 7}, "ip_busbw": ${busbw + 0.5}, "ip_error": "N/A"}`;
const report = `{"identifier": "nccl-tests structured output", "version": "2.26.6", "benchmark": [{${entry(8388608, 9.1)}, ${entry(16777216, 12.4)}}]}`;

const analyse = (text: string) => {
  const [e] = analyzeTranscript("paste.txt", text);
  return e!;
};

describe("the one-line JSON report of nccl-tests", () => {
  test("after the command and the NCCL banner: rows, the collective from the command line, the peak", () => {
    const e = analyse(
      `$ ./build/alltoall_perf -b 8M -e 16M -f 2 -g 8 --json\nNCCL version 2.26.6+cuda12.8\n${report}\n`,
    );
    expect(e.kind).toBe("nccl_tests");
    const d = e.data as { collective: string; rows: unknown[]; peak: { busbw: number } };
    expect(d.collective).toBe("alltoall");
    expect(d.rows).toHaveLength(2);
    expect(d.peak.busbw).toBe(12.9);
  });

  test("alone (the paste starts at the JSON line): read, not refused as a -J file without results", () => {
    const e = analyse(`${report}\n`);
    expect(e.kind).toBe("nccl_tests");
    expect(e.problems ?? []).toEqual([]);
    expect((e.data as { rows: unknown[] }).rows).toHaveLength(2);
  });

  test("another JSON object is not taken for it", () => {
    const e = analyse(`{"identifier": "something else", "benchmark": []}\n`);
    expect(e.kind).not.toBe("nccl_tests");
  });
});

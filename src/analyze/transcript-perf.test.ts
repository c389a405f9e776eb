import { describe, expect, test } from "vitest";
import { analyzeTranscript } from "./index.js";
import { splitTranscript } from "./transcript.js";

/**
 * An old nccl-tests run (no `#` before its header, as nccl-tests printed before 2.0) pasted above an
 * `nvidia-smi topo -m` typed at a root prompt glued to the command (`#nvidia-smi topo -m`). Shape seen in
 * https://github.com/NVIDIA/nccl-tests/issues/37; the binaries are named `<collective>_perf`
 * (https://github.com/NVIDIA/nccl-tests#usage). Numbers and hosts are this project's own.
 */
const SESSION = [
  "reduce_scatter_perf -g 4 -b 1073741824 -e 1073741824 -n 50",
  "                                             out-of-place                       in-place",
  "       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error",
  "        (B)    (elements)             (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
  "  1073741824      67108864   float    12044   89.15   66.86  0e+00    12071   88.95   66.71  0e+00",
  " Out of bounds values : 0 OK",
  " Avg bus bandwidth    : 66.785",
  "",
  "#nvidia-smi topo -m",
  "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity",
  "GPU0\t X \tNV4\tNV4\tNV4\t0-31",
  "GPU1\tNV4\t X \tNV4\tNV4\t0-31",
  "GPU2\tNV4\tNV4\t X \tNV4\t0-31",
  "GPU3\tNV4\tNV4\tNV4\t X \t0-31",
].join("\n");

describe("a session of an nccl-tests run and another capture", () => {
  test("the run's command line starts its own segment, kept with its output; the glued root prompt is a prompt", () => {
    const segs = splitTranscript(SESSION) ?? [];
    expect(segs.map((s) => [s.kind, s.line])).toEqual([
      ["nccl_tests", 1],
      ["nvidia_smi_topo", 9],
    ]);
    const [tests, topo] = analyzeTranscript("session.txt", SESSION);
    expect(tests?.kind).toBe("nccl_tests");
    expect((tests?.data as { collective?: string } | null)?.collective).toBe("reduce_scatter");
    expect(topo?.kind).toBe("nvidia_smi_topo");
  });

  test("nccl-tests runs typed one after another stay one capture of several runs", () => {
    const run = SESSION.split("\n").slice(0, 7);
    expect(splitTranscript([...run, ...run].join("\n"))).toBeNull();
  });
});

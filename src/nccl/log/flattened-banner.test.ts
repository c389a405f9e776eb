/**
 * Rank 0's banner inside a line of glued records. NCCL prints the banner with no prefix (src/init.cc, `"NCCL version
 * %s\n"` of `NCCL_VERSION_STRING "+cuda" CUDA_VERSION`, https://github.com/NVIDIA/nccl); a paste that lost its line
 * breaks puts it between two records (shape seen in https://github.com/vllm-project/vllm/issues/12292). Hosts and
 * numbers here are made up.
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const read = (text: string) => analyzeNcclLog(`${text}\n`).data;

describe("the banner between two glued records", () => {
  test("is read, whichever record it follows", () => {
    const d = read(
      "hx2:811:811 [0] NCCL INFO Bootstrap : Using eth0:10.4.0.2<0> hx2:811:811 [0] NCCL INFO cudaDriverVersion 12020 NCCL version 2.19.3+cuda12.3 hx2:812:812 [1] NCCL INFO cudaDriverVersion 12020 hx2:812:812 [1] NCCL INFO Bootstrap : Using eth0:10.4.0.2<0>",
    );
    expect(d.ncclVersions).toEqual(["2.19.3"]);
    expect(d.hosts).toBe(1);
  });

  test("words like a version in a message, without the banner's `+cuda`, are not one", () => {
    const d = read(
      "hx2:811:811 [0] NCCL INFO NCCL version 2.19 is too old hx2:812:812 [1] NCCL INFO cudaDriverVersion 12020 hx2:812:812 [1] NCCL INFO Bootstrap : Using eth0:10.4.0.2<0>",
    );
    expect(d.ncclVersions).toEqual([]);
  });
});

// The line opens with a WARN that names its source (`[0] misc/cudawrap.cc:179 NCCL WARN …`, src/debug.cc), then the
// banner, then records with `] NCCL ` markers (shape seen at https://github.com/vllm-project/vllm/issues/3710, a WSL
// log flattened into a comment). Hosts and numbers ours.
describe("a located WARN opening a flattened line", () => {
  const text =
    "ws-7:4410:4410 [0] misc/cudawrap.cc:179 NCCL WARN Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file: No such file or directory NCCL version 2.18.1+cuda12.1 ws-7:4410:5120 [0] NCCL INFO Failed to open libibverbs.so[.1] ws-7:4410:5120 [0] NCCL INFO NET/Socket : Using [0]eth0:172.20.3.7<0> ws-7:4410:5120 [0] NCCL INFO Using network Socket";

  test("is read on its own, and the banner glued after its message is read", () => {
    const d = read(text);
    expect(d.ncclVersions).toEqual(["2.18.1"]);
    expect(d.network).toBe("Socket");
    expect(d.warnings.map((w) => w.text)).toContainEqual(
      expect.stringMatching(/^ws-7:4410:4410 \[0\] misc\/cudawrap\.cc:179 NCCL WARN Failed to find CUDA library/),
    );
  });
});

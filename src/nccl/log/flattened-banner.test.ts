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

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CAPTURES } from "./corpus.js";
import { analyzeTranscript } from "./index.js";

// nccl-tests run with NCCL_DEBUG=INFO behind mpirun --tag-output: NCCL INFO lines between the test's header lines
// (shape as in https://github.com/NVIDIA/nccl-tests/issues, noted in fixtures/captures/corpus.json).
const FILE = "nccl_log/tag-output-2.27-gdrdma-shared.txt";

describe("a file that is both an nccl-tests output and an NCCL log", () => {
  test("gives one entry per kind: the test results and the NCCL verdict, with the Open MPI ranks kept", () => {
    const entries = analyzeTranscript(FILE, readFileSync(join(CAPTURES, FILE), "utf8"));
    expect(entries.map((e) => e.kind)).toEqual(["nccl_tests", "nccl_log"]);
    expect(entries[1]?.data).not.toBeNull();
    expect(entries[0]?.wrappers?.removed).toEqual(["tag_output"]);
    expect(entries[0]?.wrappers?.ranks?.length).toBeGreaterThan(1);
  });
});

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { AnalyzedInput } from "../src/analyze/index.js";
import { analyzeInputs } from "../src/cli/commands/analyze.js";
import { readInput } from "../src/cli/input.js";
import { captureIo } from "./support/io.js";

const LARGE = 8 * 1024 * 1024;

/**
 * The same capture small and padded past the large-input size: a long `NCCL_DEBUG=INFO all_reduce_perf` run log,
 * its tail the job's own lines between NCCL lines that carry no fact (`cudaDriverVersion`, which NCCL's init.cc
 * prints once per process: https://github.com/NVIDIA/nccl/blob/master/src/init.cc), from the capture's own first
 * NCCL process so that no host or rank is added; mpirun's tag (https://docs.open-mpi.org/en/main/man-openmpi/man1/mpirun.1.html,
 * --tag-output) kept on every line, as a tagged run prints it.
 */
function padded(text: string): string {
  const first = text.split("\n").find((l) => l.includes(" NCCL INFO ")) ?? "";
  const neutral = `${first.slice(0, first.indexOf(" NCCL INFO "))} NCCL INFO cudaDriverVersion 12020\n`;
  // Under mpirun's --tag-output every line of the run carries the launcher's tag: the job's lines too.
  const tag = /^\s*\[\d+,\d+\]<std(?:out|err)>:/.exec(first)?.[0] ?? "";
  const block = `${tag}train step 10 loss 0.51\n${tag}train step 11 loss 0.50\n${neutral}`;
  return text + block.repeat(Math.ceil((LARGE + (1 << 20)) / block.length));
}

/** The facts and the evidence each entry reports (what users' scripts read). */
function factsOf(entries: AnalyzedInput[]) {
  return entries.map((e) => {
    const d = e.data as Record<string, unknown> | null;
    return {
      kind: e.kind,
      evidence: d?.evidence,
      verdict: d?.verdict,
      network: d?.network,
      ncclVersions: d?.ncclVersions,
      collective: d?.collective,
      nranks: d?.nranks,
      rows: Array.isArray(d?.rows) ? d.rows.length : undefined,
    };
  });
}

describe("a large nccl-tests run log with NCCL lines reports what the same content small reports", () => {
  const dir = mkdtempSync(join(tmpdir(), "analyze-large-mixed-"));
  const io = { ...captureIo(), cwd: dir };
  // Shapes seen where corpus.json says (fixtures/captures/corpus.json `seen`), e.g. the mpirun-tagged run log of
  // https://github.com/bottlerocket-os/bottlerocket-kernel-kit/pull/304.
  test.each([
    "runlog-interleaved-ib.txt",
    "socket-channels-no-using.txt",
    "tagged-rows-destroy-complete-before-footer.txt",
  ])("%s", async (name) => {
    const text = readFileSync(join("fixtures/captures/nccl_tests", name), "utf8");
    const small = join(dir, `small-${name}`);
    const big = join(dir, `big-${name}`);
    writeFileSync(small, text);
    writeFileSync(big, padded(text));
    const read = (f: string) => readInput(f, io, { largeBytes: LARGE, headBytes: 64 * 1024 });
    const smallInput = await read(small);
    const bigInput = await read(big);
    expect(smallInput.status).toBe("whole");
    expect(bigInput.status).toBe("large");
    const want = factsOf(await analyzeInputs(smallInput, { ctx: {}, kind: undefined, io }));
    const got = factsOf(await analyzeInputs(bigInput, { ctx: {}, kind: undefined, io }));
    expect(want.map((e) => e.kind)).toEqual(["nccl_tests", "nccl_log"]);
    expect(got).toEqual(want);
  });
});

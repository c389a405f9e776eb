import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { agrees, decidedFacts, disagreements, evidenceDisagreements } from "./agreement.js";
import { CAPTURES, KNOWN_MISSES, readCorpus } from "./corpus.js";
import { type AnalyzedInput, analyzeTranscript } from "./index.js";
import { WRAP_STACKS } from "./wrappers.js";

/**
 * Any capture × any wrapper stack × a cut at any line gives the facts of the clean capture, or fewer of them — never a
 * different value. A cut capture may lose facts (a `null`, an empty or shorter list, a smaller count, `unknown`), but
 * what it still states must agree with the whole capture: a network, a version, a collective read from half a paste is
 * the one the whole paste holds. The corpus facts are the oracle. Judgements that a cut may rightly change (problems,
 * findings, the verdict of a log cut before its connections, the averages of a table cut before its footer) are left
 * out; the facts themselves are not. `npm test` samples; KUBE_RDMA_FUZZ_RUNS runs longer.
 */
const CASES = readCorpus().filter((c) => !KNOWN_MISSES.has(c.file));
const TEXTS = CASES.map((c) => readFileSync(join(CAPTURES, c.file), "utf8"));
const RUNS = Number(process.env.KUBE_RDMA_FUZZ_RUNS ?? 0) > 0 ? Number(process.env.KUBE_RDMA_FUZZ_RUNS) * 10 : 250;

/** The entry of the kind the corpus files a capture under (a mixed file gives one per kind). */
const entryOf = (file: string, text: string): AnalyzedInput | undefined => {
  const kind = file.split("/")[0];
  return analyzeTranscript(file, text).find((e) => e.kind === kind);
};
const CLEAN = CASES.map((c, i) => entryOf(c.file, TEXTS[i]!));

/**
 * Pastes holding several attempts of one test, each typed at a prompt: the paste's facts are those of its last
 * attempt, so a cut that ends before the last attempt began states an earlier attempt's facts (its rank count, say),
 * which is right for that text and not the whole paste's. For these, cuts start at the last attempt's command line.
 */
const LAST_ATTEMPT = new Map<string, RegExp>([
  // https://github.com/NVIDIA/nccl-tests/issues/289: `-g 8` on a two-GPU host fails, then `-g 2`.
  ["nccl_tests/hypercube-two-attempts-cuda-failures.txt", /[#$] .*_perf /],
  // https://github.com/NVIDIA/nccl-tests/issues/280: `-g 4` fails on a three-GPU host, then `with -g 3 it runs:` (no
  // command line; its facts start at its rank lines).
  ["nccl_tests/failure-first-then-three-gpu-left-aligned-rows.txt", /^#\s+Rank\s+0 /],
  // https://github.com/NVIDIA/nccl-tests/issues/109: a build without MPI launched by `mpirun -np 2 … -g 6`, each
  // process printing its own banner. Cut before the second banner, the text is an MPI run of 12 ranks as far as it
  // shows (the launcher's count), right for that text; the banner repeating is what makes it two tests of 6.
  ["nccl_tests/heldout5-two-hosts-standalone-6gpu-socket-info.txt", /^# nThread /],
  // The same, builds without MPI whose processes each print a banner: cut before the last banner, the launcher's count
  // is what the text shows.
  ["nccl_tests/non-mpi-four-rank0-busbw-zero.txt", /^# nThread /],
  ["nccl_tests/two-unlinked-single-rank-runs-interleaved.txt", /^# nThread /],
  ["nccl_tests/each-node-own-8-rank-run-mpi-mismatch.txt", /^# nThread /],
]);

/** The first line a cut may end on: the last attempt's command line for LAST_ATTEMPT pastes, else the first line. */
const firstCutLine = (file: string, lines: readonly string[]): number => {
  const marker = LAST_ATTEMPT.get(file);
  if (!marker) return 0;
  const at = lines.findLastIndex((l) => marker.test(l));
  if (at < 0) throw new Error(`${file}: no attempt's command line matches ${marker}`);
  return at;
};

/** A cut of the capture's first `n` lines under a wrapper stack. */
const cutWrapped = (ci: number, wi: number, cut: number) => {
  const lines = TEXTS[ci]!.split("\n");
  const from = firstCutLine(CASES[ci]!.file, lines);
  const kept = lines.slice(0, 1 + from + (cut % (lines.length - from))).join("\n");
  return WRAP_STACKS[wi]!.reduce((t, w) => w.apply(t), kept);
};

describe("a cut, wrapped capture states the clean capture's facts or fewer, never others", () => {
  test("agreement: the same, nothing, fewer", () => {
    expect(agrees(null, "IB")).toBe(true);
    expect(agrees(["2.18.3"], ["2.18.3", "2.19.1"])).toBe(true);
    expect(agrees(12, 25)).toBe(true);
    expect(agrees("Socket", "IB")).toBe(false);
    expect(agrees("Socket", "mixed")).toBe(true);
    expect(agrees(["2.18.4"], ["2.18.3"])).toBe(false);
    expect(agrees(30, 25)).toBe(false);
    expect(agrees(["mlx5_0/1:UNKNOWN:Unknown"], ["mlx5_0/1:ACTIVE:InfiniBand", "mlx5_1/1:DOWN:InfiniBand"])).toBe(true);
    expect(agrees(["mlx5_0/1:DOWN:InfiniBand"], ["mlx5_0/1:ACTIVE:InfiniBand"])).toBe(false);
    expect(agrees({ perNode: 1, gbps: 400 }, { perNode: 2, gbps: 400 })).toBe(true);
  });

  test(`${CASES.length} captures × ${WRAP_STACKS.length} wrapper stacks × a cut at any line`, () => {
    fc.assert(
      fc.property(
        fc.nat({ max: CASES.length - 1 }),
        fc.nat({ max: WRAP_STACKS.length - 1 }),
        fc.nat(),
        (ci, wi, cut) => {
          const stack = WRAP_STACKS[wi]!;
          const text = cutWrapped(ci, wi, cut);
          expect({
            file: CASES[ci]!.file,
            stack: stack.map((w) => w.name),
            wrong: disagreements(CASES[ci]!, text),
          }).toEqual({ file: CASES[ci]!.file, stack: stack.map((w) => w.name), wrong: [] });
        },
      ),
      { numRuns: RUNS },
    );
  });

  test("every kind that reports evidence: the facts its evidence decided are the whole capture's, or fewer", () => {
    // Every kind of the corpus reports evidence but three: show_gids (its data is `gids -o json`, one reading: the
    // rows) and the RoCE QoS counters (mlnx_qos, ethtool -S: one reading per value).
    const kinds = new Set(CLEAN.filter((e) => e && Object.keys(decidedFacts(e)).length > 0).map((e) => e!.kind));
    expect([...kinds].sort()).toEqual(
      [...new Set(CASES.map((c) => c.file.split("/")[0]!))]
        .filter((k) => !["mlnx_qos", "ethtool_stats", "show_gids"].includes(k))
        .sort(),
    );
    fc.assert(
      fc.property(
        fc.nat({ max: CASES.length - 1 }),
        fc.nat({ max: WRAP_STACKS.length - 1 }),
        fc.nat(),
        (ci, wi, cut) => {
          const clean = CLEAN[ci];
          const got = clean ? entryOf(CASES[ci]!.file, cutWrapped(ci, wi, cut)) : undefined;
          const wrong = clean && got ? evidenceDisagreements(clean, got) : [];
          expect({ file: CASES[ci]!.file, stack: WRAP_STACKS[wi]!.map((w) => w.name), wrong }).toMatchObject({
            wrong: [],
          });
        },
      ),
      { numRuns: RUNS },
    );
  });
});

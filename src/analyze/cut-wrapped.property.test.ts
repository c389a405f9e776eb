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
 * An nccl-tests paste's facts are those of its last run (the corpus's rule, as a reader takes them): a paste holding
 * several attempts — a failed `alltoall_perf` then a `sendrecv_perf` that ran, `-g 8` on a two-GPU host then `-g 2`,
 * or a build without MPI whose processes each print a banner — cut before its last banner states an earlier attempt's
 * facts (its collective, its rank count, the launcher's count), right for that text and not the whole paste's. Cuts of
 * such a paste start at its last banner (`# nThread …`); the pastes below mark their last attempt otherwise.
 */
const LAST_BANNER = /#\s*nThread \d/;
const LAST_ATTEMPT = new Map<string, RegExp>([
  // https://github.com/NVIDIA/nccl-tests/issues/289: `-g 8` on a two-GPU host fails, then `-g 2`.
  ["nccl_tests/hypercube-two-attempts-cuda-failures.txt", /[#$] .*_perf /],
  // https://github.com/NVIDIA/nccl-tests/issues/280: `-g 4` fails on a three-GPU host, then `with -g 3 it runs:` (no
  // command line; its facts start at its rank lines).
  ["nccl_tests/failure-first-then-three-gpu-left-aligned-rows.txt", /^#\s+Rank\s+0 /],
]);

/** The first line a cut may end on: the start of an nccl-tests paste's last attempt, else the first line. */
const firstCutLine = (file: string, lines: readonly string[]): number => {
  const marker = LAST_ATTEMPT.get(file);
  if (marker) {
    const at = lines.findLastIndex((l) => marker.test(l));
    if (at < 0) throw new Error(`${file}: no attempt's command line matches ${marker}`);
    return at;
  }
  if (!file.startsWith("nccl_tests/")) return 0;
  return Math.max(
    0,
    lines.findLastIndex((l) => LAST_BANNER.test(l)),
  );
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

  test("a node count read from the hosts that logged is judged as a host count, not as a communicator's nNodes", () => {
    // vLLM with pipeline parallelism over Ray: each node's 8 GPUs form one communicator (`nNodes 1`), and two hosts
    // log. Cut before the `comm … nNodes 1` line, the text shows only its two hosts (index-file:17822999525).
    const file = "nccl_log/heldout13-vllm-lws-ray-leader-ib-init-partial.txt";
    const ci = CASES.findIndex((c) => c.file === file);
    const lines = TEXTS[ci]!.split("\n");
    const before = lines.findIndex((l) => / nNodes \d/.test(l));
    const cut = entryOf(file, lines.slice(0, before).join("\n"))!;
    const whole = CLEAN[ci]!;
    const of = (e: AnalyzedInput) => e.data as { nNodes: number; hosts: number; evidence: { nNodes: string } };
    expect([of(whole).nNodes, of(whole).hosts, of(whole).evidence.nNodes]).toEqual([1, 2, "comm_lines"]);
    expect([of(cut).nNodes, of(cut).evidence.nNodes]).toEqual([2, "hosts"]);
    expect(evidenceDisagreements(whole, cut)).toEqual([]);
    // The same count from a communicator's own line would be a different nNodes, and wrong.
    const claimed = { ...cut, data: { ...of(cut), evidence: { ...of(cut).evidence, nNodes: "comm_lines" } } };
    expect(evidenceDisagreements(whole, claimed)).toEqual(["nNodes: whole 1, cut 2"]);
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

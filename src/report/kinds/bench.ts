/** The `bench` reports: the nccl-tests command (`bench job`), pair rounds (`bench pairs`), the verdict (`bench judge`). */
import { type NcclTestsCommand, shellLine } from "../../nccl/bench-command.js";
import { type PairRound, type PairsReport, renderPairRounds, renderPairsReport } from "../../nccl/pairs/index.js";
import { defineReport } from "../registry.js";

export const BENCH_JOB_REPORT = defineReport<NcclTestsCommand>({
  name: "bench job",
  text: (cmd) => `${shellLine(cmd.argv)}\n\n${cmd.notes.map((n) => `# ${n}`).join("\n")}\n`,
  structured: (cmd) => ({ schemaVersion: 1, command: shellLine(cmd.argv), ...cmd }),
});

export type BenchPairsResult = { rounds: PairRound[]; cmd: NcclTestsCommand };

export const BENCH_PAIRS_REPORT = defineReport<BenchPairsResult>({
  name: "bench pairs",
  text: ({ rounds, cmd }) => renderPairRounds(rounds, shellLine(cmd.argv), cmd.np / 2),
  structured: ({ rounds, cmd }) => ({ schemaVersion: 1, rounds, command: shellLine(cmd.argv), env: cmd.env }),
});

/** `bench judge`: every pair's bus bandwidth against the reference, the bad nodes and links. */
export const BENCH_JUDGE_REPORT = defineReport<PairsReport>({
  name: "bench judge",
  text: renderPairsReport,
  structured: (report) => report,
  html: () => import("../html/pages/bench-judge.js"),
});

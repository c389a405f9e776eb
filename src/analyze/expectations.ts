import type { Finding } from "../core/finding.js";
import { makeFinding } from "../core/finding.js";
import { ANALYZE_CATALOGUE as C } from "./catalogue.js";
import type { AnalyzedInput } from "./index.js";
import type { AnalyzeContext, AnalyzeKindName } from "./types.js";

/** The kinds each expectation flag judges. */
const JUDGED_BY: { flag: "--expect" | "--expect-gpus"; kinds: AnalyzeKindName[]; wants: string }[] = [
  {
    flag: "--expect-gpus",
    kinds: ["nvidia_smi", "nvidia_smi_xml"],
    wants: "an nvidia-smi capture (nvidia-smi or nvidia-smi -q -x)",
  },
  { flag: "--expect", kinds: ["nccl_tests"], wants: "nccl-tests output (all_reduce_perf …)" },
];

/**
 * `--expect-gpus 8` beside a show_gids table checked nothing: an expectation no input could be judged against is a
 * finding of its own, never a silent PASS.
 */
export function uncheckedExpectations(entries: readonly AnalyzedInput[], ctx: AnalyzeContext): Finding[] {
  const out: Finding[] = [];
  for (const { flag, kinds, wants } of JUDGED_BY) {
    const value = flag === "--expect-gpus" ? ctx.expectGpus : ctx.expectGBps;
    if (value === undefined) continue;
    if (entries.some((e) => e.data !== null && kinds.includes(e.kind as AnalyzeKindName))) continue;
    const found = [...new Set(entries.map((e) => e.kind))];
    out.push(makeFinding(C, "EXPECTATION_UNCHECKED", flag, { flag: `${flag} ${value}`, wants, found }));
  }
  return out;
}

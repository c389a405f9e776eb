/** How a simulated run's findings compare with the planted faults: per kind, true/false positives and misses. Pure. */

import type { Truth } from "../simulate/flat.js";
import type { Found } from "./report.js";

export type KindScore = { truePositives: number; falsePositives: string[]; missed: string[] };
export type Score = { nodes: KindScore; rails: KindScore; links: KindScore };

function scoreKind(found: readonly string[], truth: readonly string[]): KindScore {
  const t = new Set(truth);
  const f = new Set(found);
  return {
    truePositives: found.filter((x) => t.has(x)).length,
    falsePositives: found.filter((x) => !t.has(x)),
    missed: truth.filter((x) => !f.has(x)),
  };
}

export function scoreFound(found: Found, truth: Truth): Score {
  return {
    nodes: scoreKind(found.nodes, truth.nodes),
    rails: scoreKind(found.rails, truth.rails),
    links: scoreKind(found.links, truth.links),
  };
}

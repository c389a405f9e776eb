/**
 * Every verify finding's words, written once. Rules supply the evidence; messages name the subject and the
 * evidence, fixes say what to run.
 */
import { defineCatalogue, type Finding, makeFinding, type Severity } from "../core/finding.js";
import { ETHTOOL_CATALOGUE } from "./catalogue-ethtool.js";
import { FABRIC_CATALOGUE } from "./catalogue-fabric.js";
import { GPU_CATALOGUE } from "./catalogue-gpu.js";
import { NODE_CATALOGUE } from "./catalogue-node.js";
import { PLATFORM_CATALOGUE } from "./catalogue-platform.js";

export const CATALOGUE = defineCatalogue({
  ...NODE_CATALOGUE,
  ...GPU_CATALOGUE,
  ...FABRIC_CATALOGUE,
  ...ETHTOOL_CATALOGUE,
  ...PLATFORM_CATALOGUE,
});

export type CheckCode = keyof typeof CATALOGUE & string;

type EvidenceFor<K extends CheckCode> = Parameters<(typeof CATALOGUE)[K]["message"]>[0];

/** Builds a finding from the catalogue; a rule may lower or raise the catalogue's severity. */
export function finding<K extends CheckCode>(
  code: K,
  subject: string,
  evidence: EvidenceFor<K>,
  severity?: Severity,
): Finding {
  return makeFinding(CATALOGUE, code, subject, evidence as never, severity);
}

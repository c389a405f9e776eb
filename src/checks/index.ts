/** Node verification: the registry of rules, and the `verify -o json` report. */
import { bySeverity, type Finding, summarize } from "../core/finding.js";
import type { NodeInventory } from "../inventory/types.js";
import { CHECKS } from "./registry.js";
import { withViews } from "./select.js";
import type { CheckOptions } from "./types.js";

export { CATALOGUE, type CheckCode } from "./catalogue.js";
export { DEFAULT_SHM_MIN_BYTES } from "./pod.js";
export { CHECKS } from "./registry.js";
export type { Check, CheckOptions } from "./types.js";

/** Runs every rule on one node. Pure and synchronous: `fleet verify` calls it once per node. */
export function runChecks(inv: NodeInventory, opts: CheckOptions = {}): Finding[] {
  return withViews(inv, () => CHECKS.flatMap((check) => check.run(inv, opts)));
}

export type VerifyReport = {
  schemaVersion: 1;
  host: string;
  source: string;
  inventory: NodeInventory;
  /** Errors first, then warnings, then info; rule order within a severity. */
  findings: Finding[];
  summary: { status: "pass" | "warn" | "fail"; errors: number; warnings: number; infos: number };
};

/** The `verify -o json` object (design.md contract). `strict` makes warnings fail the status. */
export function verifyReport(inv: NodeInventory, findings: readonly Finding[], strict = false): VerifyReport {
  return {
    schemaVersion: 1,
    host: inv.hostname,
    source: inv.source,
    inventory: inv,
    findings: [...findings].sort(bySeverity),
    summary: summarize(findings, strict),
  };
}

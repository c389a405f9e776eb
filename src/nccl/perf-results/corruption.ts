import type { Finding } from "../../core/finding.js";

/**
 * The findings that say a run's collective returned wrong data: `#wrong` above 0, an `error` column beyond nccl-tests'
 * tolerance, `Out of bounds values : N FAILED`. Such a run fails whatever its bandwidth: `analyze`, `bench judge` and
 * `fleet bench` all judge it by this one list.
 */
export const CORRUPT_DATA_CODES: readonly string[] = [
  "NCCL_TESTS_WRONG",
  "NCCL_TESTS_ERROR_DELTA",
  "NCCL_TESTS_OUT_OF_BOUNDS",
];

/** The first finding that says the run returned corrupted data, or null. */
export function corruptionOf(findings: readonly Finding[]): Finding | null {
  return findings.find((f) => CORRUPT_DATA_CODES.includes(f.code)) ?? null;
}

import type { Io, OptionValues } from "../../cli/spec.js";
import { str, UsageError } from "../../cli/spec.js";

export type DerivedEnv = { env: Record<string, string>; source: string; notes: string[] };

/** NCCL variables for the job from --example / --snapshot / --env-from-node; null when none is given. */
export async function deriveJobEnv(values: OptionValues, _io: Io): Promise<DerivedEnv | null> {
  const given = ["example", "snapshot", "env-from-node"].filter((n) => str(values, n) !== undefined);
  if (given.length === 0) return null;
  if (given.length > 1) throw new UsageError(`give one node source, not ${given.map((g) => `--${g}`).join(" and ")}.`);
  throw new UsageError(`--${given[0]} needs the NCCL derivation, which this build does not include yet.`);
}

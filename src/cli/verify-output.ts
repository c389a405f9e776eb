/** The part of `verify` after the inventory is read: options → checks → report → exit code. */
import { type CheckOptions, runChecks, verifyReport } from "../checks/index.js";
import { exitCodeFor } from "../core/finding.js";
import type { NodeInventory } from "../inventory/types.js";
import { textWidth } from "../report/findings-text.js";
import { VERIFY_REPORT } from "../report/kinds/verify.js";
import { renderReport } from "../report/registry.js";
import { parseSize } from "./parse-size.js";
import { vmHostOf } from "./shared-options.js";
import { bool, type Io, num, type OptionValues, str, UsageError } from "./spec.js";

/** Reads --pod, --expect-gpus, --expect-gpu-model, --shm-min; bad values are usage errors (exit 2). */
export function checkOptionsFromFlags(values: OptionValues): CheckOptions {
  const opts: CheckOptions = { pod: bool(values, "pod") };
  const gpus = num(values, "expect-gpus");
  if (gpus !== undefined) {
    if (!Number.isInteger(gpus) || gpus < 0) {
      throw new UsageError(`--expect-gpus expects a whole number of GPUs (0 or more); got ${gpus}.`);
    }
    opts.expectGpus = gpus;
  }
  const model = str(values, "expect-gpu-model");
  if (model !== undefined) {
    // An empty text is inside every name: the check would pass without comparing anything.
    if (model.trim() === "") {
      throw new UsageError('--expect-gpu-model expects text every GPU name must contain, e.g. A100-SXM4-80GB; got "".');
    }
    opts.expectGpuModel = model;
  }
  opts.shmMinBytes = parseSize(str(values, "shm-min") ?? "1Gi", "shm-min");
  Object.assign(opts, vmHostOf(values));
  return opts;
}

/** Runs the checks on an inventory, prints the report in the chosen format and returns the exit code. */
export async function writeVerifyReport(
  inv: NodeInventory,
  opts: CheckOptions,
  values: OptionValues,
  io: Io,
): Promise<number> {
  const strict = bool(values, "strict");
  const findings = runChecks(inv, opts);
  const report = verifyReport(inv, findings, strict);
  io.stdout(await renderReport(VERIFY_REPORT, report, str(values, "output") ?? "text", { width: textWidth(io) }));
  return exitCodeFor(findings, strict);
}

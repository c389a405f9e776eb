import { UsageError } from "../../cli/spec.js";
import type { NodeAnalyser } from "./analyse.js";

/** The verify pipeline over a snapshot (wired to the host reader, inventory and checks). */
export function nodeAnalyser(): NodeAnalyser {
  const missing = async (): Promise<never> => {
    throw new UsageError("fleet verify needs the snapshot reader and checks, which this build does not include yet.");
  };
  return { inventoryOf: missing, checks: () => [] };
}

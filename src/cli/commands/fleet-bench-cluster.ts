import { type CommandContext, UsageError } from "../spec.js";

export async function runClusterBench(_ctx: CommandContext): Promise<number> {
  throw new UsageError("fleet bench through the cluster is not built yet; use --simulate N.");
}

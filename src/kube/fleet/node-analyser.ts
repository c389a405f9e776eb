import { type CheckOptions, runChecks } from "../../checks/index.js";
import type { Finding } from "../../core/finding.js";
import { SnapshotHostReader } from "../../host/index.js";
import type { Snapshot } from "../../host/types.js";
import { readInventory } from "../../inventory/index.js";
import type { NodeInventory } from "../../inventory/types.js";
import { attributeValues } from "./consistency.js";
import { type NodeRail, railsOf } from "./rails.js";
import type { LogOutcome } from "./run.js";
import { parseSnapshotLog, SNAPSHOT_INVALID_PROBLEM } from "./snapshot-log.js";

/** What the fleet keeps of one node: its verify findings and the values compared across the fleet. */
export type NodeAnalysis = { findings: Finding[]; values: Record<string, string>; rails: NodeRail[] };

/**
 * The `verify --snapshot` pipeline on one collected snapshot: replay it as a host, build the inventory, run the
 * checks. The collector pod is not the training pod, so pod-level checks (IPC_LOCK, memlock, /dev/shm) stay off.
 */
export async function analyseSnapshot(snapshot: Snapshot, opts: FleetCheckOptions = {}): Promise<NodeAnalysis> {
  return analyseInventory(
    await readInventory(new SnapshotHostReader(snapshot, `collector snapshot of ${snapshot.host}`)),
    opts,
  );
}

/** What `fleet verify` is told about every node that no host shows (`--vm-host`); plain data, sent to workers. */
export type FleetCheckOptions = Pick<CheckOptions, "vmHost">;

/** One node model → what the fleet keeps of it (the node agent's report holds the same). */
export function analyseInventory(inventory: NodeInventory, opts: CheckOptions = {}): NodeAnalysis {
  return { findings: runChecks(inventory, opts), values: attributeValues(inventory), rails: railsOf(inventory) };
}

/**
 * A collector's log → the node's analysis, or why it could not be analysed. Never rejects: a damaged snapshot (or
 * an analysis that fails on one) is this node's problem, and the other nodes are still analysed.
 */
export async function analyseLog(
  log: string,
  node: string,
  opts: FleetCheckOptions = {},
): Promise<LogOutcome<NodeAnalysis>> {
  const parsed = parseSnapshotLog(log, node);
  if (!parsed.ok) {
    const bad = parsed.problems.find((p) => p.code === SNAPSHOT_INVALID_PROBLEM);
    const reason = parsed.problems.map((p) => p.message).join("; ");
    return bad ? { ok: false, reason, invalidAt: bad.path ?? "$" } : { ok: false, reason };
  }
  try {
    return { ok: true, value: await analyseSnapshot(parsed.value, opts) };
  } catch (err) {
    return {
      ok: false,
      reason: `the analysis of its snapshot failed (${err instanceof Error ? err.message : String(err)})`,
    };
  }
}

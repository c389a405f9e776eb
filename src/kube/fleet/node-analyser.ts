import { runChecks } from "../../checks/index.js";
import type { Finding } from "../../core/finding.js";
import { SnapshotHostReader } from "../../host/index.js";
import type { Snapshot } from "../../host/types.js";
import { readInventory } from "../../inventory/index.js";
import { attributeValues } from "./consistency.js";
import { type NodeRail, railsOf } from "./rails.js";
import { parseSnapshotLog } from "./snapshot-log.js";

/** What the fleet keeps of one node: its verify findings and the values compared across the fleet. */
export type NodeAnalysis = { findings: Finding[]; values: Record<string, string>; rails: NodeRail[] };

/**
 * The `verify --snapshot` pipeline on one collected snapshot: replay it as a host, build the inventory, run the
 * checks. The collector pod is not the training pod, so pod-level checks (IPC_LOCK, memlock, /dev/shm) stay off.
 */
export async function analyseSnapshot(snapshot: Snapshot): Promise<NodeAnalysis> {
  const inventory = await readInventory(new SnapshotHostReader(snapshot, `collector snapshot of ${snapshot.host}`));
  return { findings: runChecks(inventory), values: attributeValues(inventory), rails: railsOf(inventory) };
}

/** A collector's log → the node's analysis, or why it could not be analysed. */
export async function analyseLog(
  log: string,
  node: string,
): Promise<{ ok: true; value: NodeAnalysis } | { ok: false; reason: string }> {
  const parsed = parseSnapshotLog(log, node);
  if (!parsed.ok) return { ok: false, reason: parsed.problems.map((p) => p.message).join("; ") };
  return { ok: true, value: await analyseSnapshot(parsed.value) };
}

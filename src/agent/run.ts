/** The agent's runs: read the node, check it, decide (plan.ts), write (cluster-io.ts) or print. */

import type { OptionValues } from "../cli/spec.js";
import { str } from "../cli/spec.js";
import { type QuarantineFile, quarantineOf } from "../device-plugin/quarantine.js";
import { writeFileAtomic } from "../host/atomic-write.js";
import type { NodeInventory } from "../inventory/types.js";
import { analyseInventory } from "../kube/fleet/node-analyser.js";
import { type AgentCluster, applyPlan, readClusterState, readTaintCounts } from "./cluster-io.js";
import type { AgentMetrics } from "./metrics.js";
import { type AgentSettings, type ClusterState, planRun, type RunOutcome, stateAfter } from "./plan.js";
import type { AgentRunResult } from "./render.js";

export { AGENT_ROLE } from "./cluster-io.js";

export type AgentRunInput = {
  node: string;
  read: () => Promise<NodeInventory>;
  settings: AgentSettings;
  withinGrace: () => boolean;
  /** null: a dry run, no cluster. */
  cluster: AgentCluster | null;
  source: string;
  /** Where to write the quarantined HCAs for the device plugin in the same pod (`--quarantine-file`). */
  quarantineFile?: string | undefined;
  /** What the cluster holds, as the previous run of this process left it; absent: read it from the API. */
  known?: ClusterState | undefined;
  /** The previous run's node model: counter deltas (link downs, flaps) are judged against it. */
  earlier?: { inventory: NodeInventory; seconds: number } | undefined;
};

/** Where the agent reads the node from, in words. */
export function agentSource(values: OptionValues): string {
  const example = str(values, "example");
  if (example !== undefined) return `example ${example}`;
  const snapshot = str(values, "snapshot");
  if (snapshot !== undefined) return `snapshot ${snapshot}`;
  return `host ${str(values, "root") ?? "/"}`;
}

/** A dry run knows nothing of earlier runs: it previews the first run of a fresh agent on an untainted node. */
const FRESH: ClusterState = { tainted: false, taintedNodes: 0, selectedNodes: 1 };

async function check(input: AgentRunInput): Promise<{ outcome: RunOutcome; inventory?: NodeInventory }> {
  try {
    const inventory = await input.read();
    const analysis = analyseInventory(
      inventory,
      input.earlier ? { earlier: input.earlier, countersSinceEarlier: true } : {},
    );
    return { outcome: { ok: true, analysis, withinGrace: input.withinGrace() }, inventory };
  } catch (err) {
    return { outcome: { ok: false, reason: err instanceof Error ? err.message : String(err) } };
  }
}

export type OnceResult = AgentRunResult & { inventory?: NodeInventory; next: ClusterState };

/** Writes the quarantine file atomically (a temporary file renamed over it): the plugin never reads half a file. */
async function writeQuarantine(path: string, q: QuarantineFile): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(q)}\n`, { mode: 0o644 });
}

export async function runOnce(input: AgentRunInput, now = new Date()): Promise<OnceResult> {
  const { outcome, inventory } = await check(input);
  const { cluster, settings } = input;
  let state = input.known ?? (cluster ? await readClusterState(cluster, input.node, settings.namespace) : FRESH);
  const failing = outcome.ok && !outcome.withinGrace && outcome.analysis.findings.some((f) => f.severity === "error");
  if (cluster && settings.taint !== null && failing && !state.tainted) {
    state = { ...state, ...(await readTaintCounts(cluster, settings.namespace)) };
  }
  const plan = planRun(input.node, outcome, state, settings, now);
  if (cluster) await applyPlan(cluster, plan, now);
  const quarantine =
    outcome.ok && inventory
      ? quarantineOf(
          input.node,
          outcome.analysis.findings,
          inventory.hcas.map((h) => h.name),
          now,
        )
      : null;
  if (quarantine && input.quarantineFile && cluster) await writeQuarantine(input.quarantineFile, quarantine);
  return {
    plan,
    quarantine,
    dryRun: cluster === null,
    source: input.source,
    next: stateAfter(plan, state, outcome.ok),
    ...(inventory ? { inventory } : {}),
  };
}

export type LoopInput = AgentRunInput & {
  cluster: AgentCluster;
  intervalSeconds: number;
  log: (line: string) => void;
  signal?: AbortSignal;
  /** Set after every run (the /metrics endpoint serves its registry). */
  metrics?: AgentMetrics;
  /** For tests: a shorter wait than `intervalSeconds`. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
};

const sleepFor = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });

/** Up to 10 % jitter: a fleet of agents started together spreads its writes over the interval. */
export function jittered(seconds: number, random = Math.random): number {
  return Math.round(seconds * 1000 * (1 - 0.1 * random()));
}

/**
 * Runs until SIGTERM/SIGINT (or `signal`): every interval, one run with counter deltas against the previous one.
 * A run that fails to reach the API is logged and retried at the next interval; nothing is lost, since the
 * cluster's copy (condition, report) is what the next run compares with.
 */
export async function runLoop(input: LoopInput): Promise<number> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  input.signal?.addEventListener("abort", stop);
  const external = input.signal === undefined;
  if (external) {
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  }
  let earlier: AgentRunInput["earlier"];
  let known: ClusterState | undefined;
  let last = Date.now();
  try {
    while (!controller.signal.aborted) {
      try {
        const t0 = performance.now();
        const r = await runOnce({ ...input, earlier, known });
        input.metrics?.record(r.plan, r.inventory, (performance.now() - t0) / 1000);
        known = r.next;
        const c = r.plan.condition;
        input.log(
          `kube-rdma agent: ${input.node} ${c.type}=${c.status} (${c.reason}); ${r.plan.events.length} event(s)\n`,
        );
        if (r.inventory) earlier = { inventory: r.inventory, seconds: (Date.now() - last) / 1000 };
      } catch (err) {
        known = undefined; // read the cluster's copy again: a failed write may have left it behind ours
        input.log(
          `kube-rdma agent: this run failed, retrying at the next interval: ${err instanceof Error ? err.message : String(err)}\n`,
        );
      }
      last = Date.now();
      await (input.sleep ?? sleepFor)(jittered(input.intervalSeconds), controller.signal);
    }
  } finally {
    if (external) {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
    }
    input.signal?.removeEventListener("abort", stop);
  }
  return 0;
}

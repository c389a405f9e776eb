/** The agent's runs: read the node, check it, decide (plan.ts), write (cluster-io.ts) or print. */
import { readFile } from "node:fs/promises";
import type { CheckOptions } from "../checks/index.js";
import type { OptionValues } from "../cli/spec.js";
import { str } from "../cli/spec.js";
import {
  QUARANTINE_SCHEMA_VERSION,
  type QuarantineFile,
  quarantineOf,
  readQuarantine,
} from "../device-plugin/quarantine.js";
import { writeFileAtomic } from "../host/atomic-write.js";
import type { NodeInventory } from "../inventory/types.js";
import { analyseInventory } from "../kube/fleet/node-analyser.js";
import { type AgentCluster, applyPlan, readClusterState, readSelectedNodes, TAINTED_LABEL } from "./cluster-io.js";
import { heldEvent } from "./events.js";
import type { AgentMetrics } from "./metrics.js";
import { type AgentPlan, type AgentSettings, type ClusterState, planRun, type RunOutcome, stateAfter } from "./plan.js";
import { decideQuarantine, type QuarantineStep } from "./quarantine-step.js";
import type { AgentRunResult } from "./render.js";
import { taintBudget } from "./taint.js";
import { claimTaintSlot, releaseTaintSlot } from "./taint-slots-io.js";

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
  /** What the previous run of this process quarantined; undefined: read the file an earlier process left. */
  quarantined?: QuarantineFile | null | undefined;
  /** The previous run's node model: counter deltas (link downs, flaps) are judged against it. */
  earlier?: { inventory: NodeInventory; seconds: number } | undefined;
  /** What the node's operator said that no host shows (`--vm-host`). */
  checkOptions?: Pick<CheckOptions, "vmHost"> | undefined;
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
    const analysis = analyseInventory(inventory, {
      ...input.checkOptions,
      ...(input.earlier ? { earlier: input.earlier, countersSinceEarlier: true } : {}),
    });
    return { outcome: { ok: true, analysis, withinGrace: input.withinGrace() }, inventory };
  } catch (err) {
    return { outcome: { ok: false, reason: err instanceof Error ? err.message : String(err) } };
  }
}

export type OnceResult = AgentRunResult & {
  inventory?: NodeInventory;
  next: ClusterState;
  /** This run's quarantine decision (what was written to --quarantine-file, what changed). */
  quarantineStep: QuarantineStep;
  /** The quarantine as it stands after this run (the next run compares with it). */
  quarantined: QuarantineFile | null;
  /** Why the taint was held back this run, if it was. */
  heldWhy?: string;
};

/** Writes the quarantine file atomically (a temporary file renamed over it): the plugin never reads half a file. */
async function writeQuarantine(path: string, q: QuarantineFile): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(q)}\n`, { mode: 0o644 });
}

/** The quarantine file as an earlier process left it (whatever its age), or null. */
async function readQuarantineFile(path: string | undefined): Promise<QuarantineFile | null> {
  if (path === undefined) return null;
  const text = await readFile(path, "utf8").catch(() => null);
  if (text === null) return null;
  const read = readQuarantine(text, new Date(), Number.POSITIVE_INFINITY);
  if (!read.ok) return null;
  const hcas = [...read.byHca].map(([hca, codes]) => ({ hca, codes }));
  return { schemaVersion: QUARANTINE_SCHEMA_VERSION, node: "", generatedAt: new Date(0).toISOString(), hcas };
}

/**
 * A taint this run decided is applied only once a slot is claimed in the breaker's Lease (taint-slots.ts); a node
 * without an RDMA HCA never takes one (the taint is for RDMA GPU nodes).
 */
async function gateTaint(
  input: AgentRunInput,
  plan: AgentPlan,
  inventory: NodeInventory | undefined,
  heldBefore: boolean,
  now: Date,
) {
  const { cluster, settings } = input;
  if (!cluster || settings.taint === null || plan.taint?.action !== "taint") return plan;
  let why: string | null = null;
  if (inventory !== undefined && inventory.hcas.length === 0) {
    why = "this node has no RDMA HCA: the taint is for RDMA GPU nodes only, and this one does not count against them";
  } else {
    const selected = await readSelectedNodes(cluster, settings.namespace);
    const budget = taintBudget(selected, settings.taint.maxShare);
    const claim = await claimTaintSlot(cluster, input.node, settings.namespace, budget, TAINTED_LABEL, now);
    if (!claim.ok) why = `${claim.why} (${selected} agent node(s), --max-tainted-share ${settings.taint.maxShare})`;
  }
  if (why === null) return plan;
  // One Event when the hold starts (a held node is held every run until a slot frees); the log line and the
  // metric count every run.
  const events = heldBefore ? plan.events : [...plan.events, heldEvent(why)];
  return { ...plan, taint: { action: "held" as const, why }, events };
}

/** A run whose API reads or writes failed; the quarantine was decided (and written) before, and is carried. */
export class AgentApiError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly quarantineStep: QuarantineStep,
    readonly quarantined: QuarantineFile | null,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = "AgentApiError";
  }
}

export async function runOnce(input: AgentRunInput, now = new Date()): Promise<OnceResult> {
  const { outcome, inventory } = await check(input);
  const { cluster, settings } = input;
  // The quarantine first, before any API call: it must hold whatever the API server answers.
  const previous = input.quarantined !== undefined ? input.quarantined : await readQuarantineFile(input.quarantineFile);
  const decided = decideQuarantine(input.node, outcome, inventory, previous, now);
  // Without --quarantine-file nothing is quarantined: the decision is only shown (dry run, --once output).
  const step = input.quarantineFile ? decided : { ...decided, quarantined: [], released: [], events: [] };
  if (step.write && input.quarantineFile && cluster) await writeQuarantine(input.quarantineFile, step.write);
  const quarantined = step.write ?? previous;
  let state: ClusterState;
  let plan: AgentPlan;
  try {
    state = input.known ?? (cluster ? await readClusterState(cluster, input.node, settings.namespace) : FRESH);
    plan = planRun(input.node, outcome, state, settings, now);
    plan = { ...plan, events: [...plan.events, ...step.events] };
    plan = await gateTaint(input, plan, inventory, state.taintHeld === true, now);
    if (cluster) {
      await applyPlan(cluster, plan, now);
      if (plan.taint?.action === "untaint") await releaseTaintSlot(cluster, input.node, settings.namespace);
    }
  } catch (err) {
    throw new AgentApiError(err, step, quarantined);
  }
  const heldWhy = plan.taint?.action === "held" ? plan.taint.why : undefined;
  return {
    plan,
    quarantine: outcome.ok && inventory ? (step.write ?? quarantineOf(input.node, [], [], now)) : null,
    quarantineStep: step,
    quarantined,
    dryRun: cluster === null,
    source: input.source,
    next: stateAfter(plan, state, outcome.ok),
    ...(heldWhy !== undefined ? { heldWhy } : {}),
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
  let quarantined: QuarantineFile | null | undefined;
  let last = Date.now();
  try {
    while (!controller.signal.aborted) {
      const t0 = performance.now();
      try {
        const r = await runOnce({ ...input, earlier, known, quarantined });
        input.metrics?.record(r, (performance.now() - t0) / 1000);
        known = r.next;
        quarantined = r.quarantined;
        const c = r.plan.condition;
        input.log(
          `kube-rdma agent: ${input.node} ${c.type}=${c.status} (${c.reason}); ${r.plan.events.length} event(s)\n`,
        );
        for (const hca of r.quarantineStep.quarantined) input.log(`kube-rdma agent: ${hca} quarantined\n`);
        for (const hca of r.quarantineStep.released) input.log(`kube-rdma agent: ${hca} released from quarantine\n`);
        if (r.heldWhy !== undefined) input.log(`kube-rdma agent: taint held back: ${r.heldWhy}\n`);
        if (r.inventory) earlier = { inventory: r.inventory, seconds: (Date.now() - last) / 1000 };
      } catch (err) {
        known = undefined; // read the cluster's copy again: a failed write may have left it behind ours
        if (err instanceof AgentApiError) {
          quarantined = err.quarantined;
          for (const hca of err.quarantineStep.quarantined) input.log(`kube-rdma agent: ${hca} quarantined\n`);
          for (const hca of err.quarantineStep.released)
            input.log(`kube-rdma agent: ${hca} released from quarantine\n`);
        }
        input.metrics?.failed(
          err instanceof AgentApiError ? err.quarantineStep : null,
          (performance.now() - t0) / 1000,
        );
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

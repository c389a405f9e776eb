/** `fleet bench` through the cluster: select nodes, learn the leaves, plan, run MPIJobs round by round, report. */

import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { V1Node } from "@kubernetes/client-node";
import { exitCodeFor } from "../../core/finding.js";
import {
  type BenchJob,
  buildBenchReport,
  createPlanner,
  DEFAULT_PAIR_SWEEP,
  DEFAULT_RAIL_SWEEP,
  discoverTopology,
  type FabricView,
  type HyperNodeObject,
  type JobResult,
  renderBudget,
  runFleetBench,
} from "../../fabric/index.js";
import { writeFileAtomic } from "../../host/atomic-write.js";
import { makeClients } from "../../kube/api/client.js";
import { loadKubeConfig } from "../../kube/api/config.js";
import { kubeOptionsFrom } from "../../kube/api/options.js";
import {
  BENCH_NAMESPACE,
  BENCH_ROLE,
  benchJobManifest,
  type CreatedJobs,
  deleteBenchJob,
  runBenchRound,
} from "../../kube/bench/index.js";
import { selectFleetNodes } from "../../kube/fleet/select.js";
import { DEFAULT_NCCL_TESTS_IMAGE } from "../../kube/job/images.js";
import { renderManifests } from "../../kube/job/render.js";
import { FLEET_BENCH_REPORT, firstRoundPairs } from "../../report/kinds/fleet-bench.js";
import { renderReport } from "../../report/registry.js";
import { outputDir } from "../output-dir.js";
import { pollIntervalMs } from "../poll-interval.js";
import { bool, type CommandContext, num, str, strs, UsageError } from "../spec.js";
import { benchSettings, budgetFor } from "./fleet-bench.js";

export const DEFAULT_BENCH_TIMEOUT_S = 900;

async function readHyperNodes(clients: ReturnType<typeof makeClients>): Promise<HyperNodeObject[]> {
  try {
    const list = await clients.objects.list("topology.volcano.sh/v1alpha1", "HyperNode");
    return list.items as HyperNodeObject[];
  } catch {
    return []; // Volcano's network topology is optional: labels or one leaf then
  }
}

const fileSafe = (s: string) => s.replace(/[^A-Za-z0-9._+-]/g, "_");

export async function runClusterBench({ values, io }: CommandContext): Promise<number> {
  const s = benchSettings(values);
  const timeout = num(values, "timeout") ?? DEFAULT_BENCH_TIMEOUT_S;
  if (!(timeout > 0)) throw new UsageError(`--timeout expects seconds above 0; got ${timeout}.`);
  const namespace = str(values, "namespace") ?? BENCH_NAMESPACE;
  const image = str(values, "image") ?? DEFAULT_NCCL_TESTS_IMAGE;
  // A node named twice is one node: a bench pair of a node with itself measures nothing between nodes.
  const names = [...new Set(strs(values, "node"))];
  const selector = str(values, "selector");
  if (names.length && selector) throw new UsageError("give --node or -l, not both.");
  const pollMs = pollIntervalMs(values);
  const dryRun = bool(values, "dry-run");
  const format = str(values, "output") ?? "text";
  const save = str(values, "save");
  const saveDir = save === undefined ? undefined : outputDir("--save", save, io.cwd);

  let clients: ReturnType<typeof makeClients> | undefined;
  const connect = () => {
    clients ??= makeClients(loadKubeConfig(kubeOptionsFrom(values, io.env)), BENCH_ROLE);
    return clients;
  };
  let nodes: V1Node[];
  let hyperNodes: HyperNodeObject[] = [];
  if (dryRun && names.length) nodes = names.map((name) => ({ metadata: { name } }));
  else {
    const c = connect();
    const list = await c.call({ verb: "list", resource: "nodes" }, () =>
      c.core.listNode(selector ? { labelSelector: selector } : {}),
    );
    const sel = selectFleetNodes(list.items, names, selector !== undefined);
    if (sel.missing.length)
      throw new UsageError(`no such node(s): ${sel.missing.join(", ")}.`, "List them with kubectl get nodes.");
    const picked = new Set(sel.nodes);
    nodes = list.items.filter((n) => picked.has(n.metadata?.name ?? ""));
    hyperNodes = await readHyperNodes(c);
  }
  if (nodes.length < 2) {
    throw new UsageError(
      `fleet bench needs at least 2 nodes; ${nodes.length} selected.`,
      "Select GPU + RDMA nodes with -l SELECTOR or --node NAME (twice or more); see them with kube-rdma cluster.",
    );
  }
  const facts = nodes.map((n) => ({ name: n.metadata?.name ?? "", labels: n.metadata?.labels ?? {} }));
  const leafLabel = str(values, "leaf-label");
  const topology = discoverTopology(facts, { hyperNodes, ...(leafLabel ? { leafLabel } : {}) });
  const view: FabricView = {
    nodes: facts.map((f) => f.name),
    leafOf: topology.leafOf,
    hcas: s.hcas,
    lineRateGBps: s.lineRateGBps,
  };
  const budget = budgetFor(view, s);
  const runId = randomBytes(3).toString("hex");
  const manifestOptions = {
    runId,
    namespace,
    image,
    gpusPerNode: s.gpusPerNode,
    hcas: s.hcas,
    gpuResource: "nvidia.com/gpu",
    rdmaResource: "rdma/hca",
    schedulerName: "volcano",
    pairSweep: DEFAULT_PAIR_SWEEP,
    railSweep: DEFAULT_RAIL_SWEEP,
  };
  const manifest = (job: BenchJob) => benchJobManifest(job, manifestOptions);
  const planner = createPlanner(s.plan, view);
  const budgetText = `${renderBudget(budget, view.nodes.length, s.plan)}  leaves from ${topology.source}\n`;

  if (dryRun) {
    const first = planner.next(1, () => {
      throw new Error("round 1 needs no diagnosis");
    });
    io.stdout(
      renderManifests(first.map(manifest), [
        `kube-rdma fleet bench --dry-run: round 1 of plan ${s.plan}, ${first.length} MPIJob(s) in namespace ${namespace}; later rounds depend on the results`,
        ...budgetText.trimEnd().split("\n"),
      ]),
    );
    return 0;
  }

  (format === "text" ? io.stdout : io.stderr)(`${budgetText}\n`);
  const progressWhen = str(values, "progress") ?? "auto";
  const showProgress = progressWhen === "always" || (progressWhen === "auto" && process.stderr.isTTY === true);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const created: CreatedJobs = new Map();
  const c = connect();
  const keepLog = saveDir
    ? async (job: BenchJob, log: string) => {
        const dir = join(saveDir, `round-${job.round}`);
        await mkdir(dir, { recursive: true });
        const [a, b] = job.nodes.map(fileSafe);
        await writeFileAtomic(join(dir, job.kind === "pair" ? `${a}+${b}.txt` : `${a}+${b}.rails.log`), log);
      }
    : undefined;
  let round = 0;
  const measure = async (jobs: readonly BenchJob[]): Promise<JobResult[]> => {
    round = jobs[0]?.round ?? round + 1;
    let done = 0;
    let failed = 0;
    return runBenchRound(
      c,
      jobs,
      {
        namespace,
        manifest,
        timeoutMs: timeout * 1000,
        pollMs,
        concurrency: s.concurrency,
        signal: controller.signal,
        ...(keepLog ? { keepLog } : {}),
        onJobDone: (r) => {
          done++;
          if (!r.ok) failed++;
          if (showProgress) {
            io.stderr(
              `\rround ${round}: ${done}/${jobs.length} job(s), ${failed} failed${done === jobs.length ? "\n" : ""}`,
            );
          }
        },
      },
      created,
    );
  };
  let run: Awaited<ReturnType<typeof runFleetBench>>;
  const leftBehind: string[] = [];
  try {
    run = await runFleetBench(view, planner, measure, {
      maxRounds: s.maxRounds,
      concurrency: s.concurrency,
      tolerance: s.tolerance,
      signal: controller.signal,
    });
  } finally {
    for (const [name, job] of created) {
      if (await deleteBenchJob(c, namespace, job)) created.delete(name);
      else leftBehind.push(name);
    }
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const report = buildBenchReport(view, run, s.plan, budget);
  if (leftBehind.length) {
    io.stderr(
      `kube-rdma fleet bench: could not delete ${leftBehind.length} MPIJob(s): ${leftBehind.join(", ")}; ` +
        `delete them with kubectl -n ${namespace} delete mpijobs -l kube-rdma.io/bench-run=${runId}\n`,
    );
  }
  const result = {
    report,
    firstRound: firstRoundPairs(run.results),
    run: {
      id: runId,
      namespace,
      image,
      leaves: topology.source,
      interrupted: controller.signal.aborted,
      left: leftBehind,
    },
  };
  if (saveDir) {
    await mkdir(saveDir, { recursive: true });
    await writeFileAtomic(join(saveDir, "report.json"), await renderReport(FLEET_BENCH_REPORT, result, "json"));
  }
  io.stdout(await renderReport(FLEET_BENCH_REPORT, result, format));
  if (controller.signal.aborted) {
    io.stderr("kube-rdma fleet bench: interrupted; the report above is partial (every job it created was deleted).\n");
    return 2;
  }
  return exitCodeFor(report.findings, bool(values, "strict"));
}

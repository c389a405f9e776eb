/**
 * `fleet bench` through the cluster: select nodes, read what they can give (GPUs, RDMA resource, driver), learn the
 * leaves, plan (flat, or rail-aware with --topology rail-optimised|FILE), run MPIJobs round by round and wave by
 * wave, report. SIGINT/SIGTERM abort the request in flight, delete every MPIJob the run created and exit 130/143.
 */

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { V1Node } from "@kubernetes/client-node";
import { exitCodeFor } from "../../core/finding.js";
import { lineRateMismatch } from "../../fabric/bench/line-rate.js";
import {
  type BenchJob,
  buildBenchReport,
  type FabricView,
  type HyperNodeObject,
  type JobResult,
  type Measure,
  runFleetBench,
} from "../../fabric/index.js";
import { buildRailReport } from "../../fabric/plan/report.js";
import { runRailBench } from "../../fabric/plan/run.js";
import { writeFileAtomic } from "../../host/atomic-write.js";
import { type KubeClients, makeClients } from "../../kube/api/client.js";
import { loadKubeConfig } from "../../kube/api/config.js";
import { kubeOptionsFrom } from "../../kube/api/options.js";
import { abortable } from "../../kube/api/retry.js";
import { benchApi, callSignal } from "../../kube/bench/api.js";
import {
  BENCH_NAMESPACE,
  BENCH_ROLE,
  type CreatedJobs,
  deleteBenchJob,
  runBenchRound,
} from "../../kube/bench/index.js";
import { selectFleetNodes } from "../../kube/fleet/select.js";
import { renderManifests } from "../../kube/job/render.js";
import { FLEET_BENCH_REPORT, firstRoundPairs } from "../../report/kinds/fleet-bench.js";
import { renderReport } from "../../report/registry.js";
import { outputDir } from "../output-dir.js";
import { pollIntervalMs } from "../poll-interval.js";
import { bool, type CommandContext, num, str, strs, UsageError } from "../spec.js";
import { benchSettings } from "./fleet-bench.js";
import { readTopology } from "./fleet-bench-fabric.js";
import { clusterPlan, type PathSource } from "./fleet-bench-plan.js";

export const DEFAULT_BENCH_TIMEOUT_S = 900;
/** Each clean-up request's own deadline (after an interrupt the run's signal has already fired). */
const CLEANUP_TIMEOUT_MS = 10_000;
/** Exit codes of a run ended by a signal, as shells report them: 128 + the signal's number. */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

const fileSafe = (s: string) => s.replace(/[^A-Za-z0-9._+-]/g, "_");

/**
 * Hops are judged against the line rate, which the nodes cannot show: after round 1, a line rate its pair tests
 * contradict stops the run (exit 2) before any hop test, rather than pass slow hops or blame healthy ones.
 */
function withLineRateCheck(view: FabricView, measure: Measure): Measure {
  return async (jobs) => {
    const got = await measure(jobs);
    const m = jobs[0]?.round === 1 ? lineRateMismatch(view, got) : null;
    if (m)
      throw new UsageError(
        `round 1's pair tests reached a median ${m.median.toFixed(1)} GB/s busbw where a line rate of ${view.lineRateGBps} GB/s per NIC leads to expect ${m.expected.toFixed(1)}: leaf uplinks and spine ports judged against it would be passed or blamed wrongly, so no hop test was run.`,
        `Give the NICs' line rate: --line-rate ${Math.round(m.impliedLineRate)} (GB/s; 25 = 200 Gb/s, 50 = 400 Gb/s), or lineRateGBps in the --topology file.`,
      );
    return got;
  };
}

/**
 * `paths`: what traces a flow's leaf uplink and spine port on this fabric, where something can; the rail-aware
 * planner then runs every round it runs against the simulator, with the cluster as its runner.
 */
export async function runClusterBench(ctx: CommandContext, paths?: PathSource): Promise<number> {
  const { values, io } = ctx;
  const s = benchSettings(values);
  const timeout = num(values, "timeout") ?? DEFAULT_BENCH_TIMEOUT_S;
  if (!(timeout > 0)) throw new UsageError(`--timeout expects seconds above 0; got ${timeout}.`);
  const namespace = str(values, "namespace") ?? BENCH_NAMESPACE;
  // A node named twice is one node: a bench pair of a node with itself measures nothing between nodes.
  const names = [...new Set(strs(values, "node"))];
  const selector = str(values, "selector");
  if (names.length && selector) throw new UsageError("give --node or -l, not both.");
  const pollMs = pollIntervalMs(values);
  const dryRun = bool(values, "dry-run");
  const format = str(values, "output") ?? "text";
  const save = str(values, "save");
  const saveDir = save === undefined ? undefined : outputDir("--save", save, io.cwd);
  const topologyArg = str(values, "topology") ?? "flat";
  const topologyFile = topologyArg === "flat" ? null : await readTopology(topologyArg, ctx);
  const railAware = topologyFile?.layout === "rail-optimised";
  if (railAware && (num(values, "rails") ?? topologyFile?.rails ?? s.hcas.length) !== s.hcas.length)
    throw new UsageError(
      `the topology says ${num(values, "rails") ?? topologyFile?.rails} rails but the rail tests use ${s.hcas.length} HCAs (--hcas / --node-model): one HCA per rail.`,
    );
  const oversubscription = num(values, "oversubscription") ?? topologyFile?.oversubscription;
  if (railAware && oversubscription === undefined)
    throw new UsageError(
      "a rail-optimised fabric needs its leaves' oversubscription, which the nodes cannot show: give --oversubscription X (2 for 2:1) or oversubscription in the --topology file.",
      "kube-rdma fleet bench -l SELECTOR --topology rail-optimised --oversubscription 2",
    );

  // Signals first: an interrupt while any request stalls (the node list included) ends the run.
  const controller = new AbortController();
  let stoppedBy: keyof typeof SIGNAL_EXIT | undefined;
  const handlers = (Object.keys(SIGNAL_EXIT) as (keyof typeof SIGNAL_EXIT)[]).map((sig) => {
    const h = () => {
      stoppedBy ??= sig;
      controller.abort();
    };
    process.once(sig, h);
    return [sig, h] as const;
  });
  const signal = controller.signal;
  const created: CreatedJobs = new Map();
  let clients: KubeClients | undefined;
  const connect = () => {
    clients ??= makeClients(loadKubeConfig(kubeOptionsFrom(values, io.env)), BENCH_ROLE);
    return clients;
  };
  const leftBehind: string[] = [];
  const cleanUp = async () => {
    if (!clients) return;
    const api = benchApi(clients, namespace);
    for (const name of [...created.keys()]) {
      if (await deleteBenchJob(api, name, AbortSignal.timeout(CLEANUP_TIMEOUT_MS))) created.delete(name);
      else leftBehind.push(name);
    }
  };
  const interrupted = () => {
    io.stderr(
      `kube-rdma fleet bench: ${stoppedBy ?? "interrupted"}: stopped; ${leftBehind.length ? `could not delete ${leftBehind.join(", ")}` : "every MPIJob it created was deleted"}.\n`,
    );
    return SIGNAL_EXIT[stoppedBy ?? "SIGINT"];
  };
  try {
    let nodes: V1Node[];
    let hyperNodes: HyperNodeObject[] = [];
    if (dryRun && names.length) nodes = names.map((name) => ({ metadata: { name } }));
    else {
      const c = connect();
      const list = await c.call({ verb: "list", resource: "nodes" }, () =>
        c.core.listNode(selector ? { labelSelector: selector } : {}, abortable(callSignal(signal))),
      );
      const sel = selectFleetNodes(list.items, names, selector !== undefined);
      if (sel.missing.length)
        throw new UsageError(`no such node(s): ${sel.missing.join(", ")}.`, "List them with kubectl get nodes.");
      const picked = new Set(sel.nodes);
      nodes = list.items.filter((n) => picked.has(n.metadata?.name ?? ""));
      hyperNodes = (await benchApi(c, namespace)
        .listHyperNodes(signal)
        .catch(() => [])) as HyperNodeObject[]; // Volcano's network topology is optional: labels or one leaf then
    }
    if (signal.aborted) return interrupted();
    if (nodes.length < 2) {
      throw new UsageError(
        `fleet bench needs at least 2 nodes; ${nodes.length} selected.`,
        "Select GPU + RDMA nodes with -l SELECTOR or --node NAME (twice or more); see them with kube-rdma cluster.",
      );
    }
    const {
      view,
      topology,
      image,
      manifest,
      planName,
      railPlanner,
      flatPlanner,
      cluster,
      budget,
      budgetText,
      maxRounds,
      runId,
    } = clusterPlan(nodes, hyperNodes, { values, s, topologyFile, oversubscription, namespace, pollMs, paths });

    if (dryRun) {
      const first = railPlanner
        ? railPlanner.next(1, [])
        : flatPlanner!.next(1, () => {
            throw new Error("round 1 needs no diagnosis");
          });
      io.stdout(
        renderManifests(first.map(manifest), [
          `kube-rdma fleet bench --dry-run: round 1 of plan ${planName}, ${first.length} MPIJob(s) in namespace ${namespace}; later rounds depend on the results`,
          ...budgetText.trimEnd().split("\n"),
        ]),
      );
      return 0;
    }

    (format === "text" ? io.stdout : io.stderr)(`${budgetText}\n`);
    const progressWhen = str(values, "progress") ?? "auto";
    const showProgress = progressWhen === "always" || (progressWhen === "auto" && process.stderr.isTTY === true);
    const c = connect();
    const api = benchApi(c, namespace);
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
        api,
        jobs,
        {
          namespace,
          runId,
          manifest,
          timeoutMs: timeout * 1000,
          pollMs,
          concurrency: s.concurrency,
          signal,
          ...(keepLog ? { keepLog } : {}),
          onWatchFallback: (why) =>
            io.stderr(`kube-rdma fleet bench: ${why}; polling the jobs every ${pollMs} ms instead.\n`),
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
    let report: ReturnType<typeof buildBenchReport>;
    let results: readonly JobResult[];
    try {
      if (railPlanner && cluster) {
        const run = await runRailBench(railPlanner, paths ? withLineRateCheck(view, measure) : measure, { maxRounds });
        report = buildRailReport(view, cluster.fabric, run, budget);
        results = run.results;
      } else {
        const run = await runFleetBench(view, flatPlanner!, measure, {
          maxRounds: s.maxRounds,
          concurrency: s.concurrency,
          tolerance: s.tolerance,
          signal,
        });
        report = buildBenchReport(view, run, s.plan, budget);
        results = run.results;
      }
    } finally {
      await cleanUp();
    }
    if (leftBehind.length) {
      io.stderr(
        `kube-rdma fleet bench: could not delete ${leftBehind.length} MPIJob(s): ${leftBehind.join(", ")}; ` +
          `delete them with kubectl -n ${namespace} delete mpijobs -l kube-rdma.io/bench-run=${runId}\n`,
      );
    }
    const result = {
      report,
      firstRound: firstRoundPairs(results),
      run: {
        id: runId,
        namespace,
        image,
        leaves: topology.source,
        interrupted: signal.aborted,
        left: leftBehind,
      },
    };
    if (saveDir) {
      await mkdir(saveDir, { recursive: true });
      await writeFileAtomic(join(saveDir, "report.json"), await renderReport(FLEET_BENCH_REPORT, result, "json"));
    }
    io.stdout(await renderReport(FLEET_BENCH_REPORT, result, format));
    if (signal.aborted) {
      io.stderr("kube-rdma fleet bench: interrupted; the report above is partial.\n");
      return interrupted();
    }
    return exitCodeFor(report.findings, bool(values, "strict"));
  } catch (err) {
    if (!signal.aborted) {
      await cleanUp();
      throw err;
    }
    await cleanUp();
    return interrupted();
  } finally {
    for (const [sig, h] of handlers) process.off(sig, h);
  }
}

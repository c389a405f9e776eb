/**
 * `fleet verify` on a cluster: every selected node checked by a short-lived collector pod (or read from the agent's
 * recent report), each snapshot analysed as it arrives, one fleet report.
 */
import { randomBytes } from "node:crypto";
import { markReportSources, nodesFromReports } from "../../agent/fleet-sources.js";
import { exitCodeFor } from "../../core/finding.js";
import { makeClients } from "../../kube/api/client.js";
import { loadKubeConfig } from "../../kube/api/config.js";
import { kubeOptionsFrom } from "../../kube/api/options.js";
import {
  analyseInThreadWith,
  buildFleetReport,
  type CollectOutcome,
  collectFleet,
  collectorPod,
  createAnalysisPool,
  defaultAnalysisThreads,
  FLEET_ROLE,
  progressLine,
  selectFleetNodes,
} from "../../kube/fleet/index.js";
import type { NodeAnalysis } from "../../kube/fleet/node-analyser.js";
import { listNodeSummaries, type NodeSummary, notCollectable } from "../../kube/fleet/node-list.js";
import type { LogHandler } from "../../kube/fleet/run.js";
import { KUBE_RDMA_IMAGE_ENV, kubeRdmaImage, readInstalledImage } from "../../kube/image.js";
import { renderManifests } from "../../kube/job/render.js";
import { FLEET_VERIFY_REPORT } from "../../report/kinds/fleet-verify.js";
import { renderReport } from "../../report/registry.js";
import { pollIntervalMs } from "../poll-interval.js";
import { vmHostOf } from "../shared-options.js";
import { bool, type CommandContext, num, str, strs, UsageError } from "../spec.js";
import { fleetFromSnapshots } from "./fleet-offline.js";

/**
 * `--save-snapshots DIR`: writes each collector's snapshot JSON to DIR/NODE.json as it arrives, before it is
 * analysed, so a node can be replayed later with `kube-rdma verify --snapshot DIR/NODE.json`.
 */
async function snapshotSaver(dir: string, cwd: string) {
  const { mkdir } = await import("node:fs/promises");
  const { writeFileAtomic } = await import("../../host/atomic-write.js");
  const { join } = await import("node:path");
  const { outputDir } = await import("../output-dir.js");
  const path = outputDir("--save-snapshots", dir, cwd);
  await mkdir(path, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(
      `--save-snapshots ${dir}: cannot create the directory (${err.code ?? err.message}).`,
      "Pick a writable directory.",
    );
  });
  const saved: string[] = [];
  const failed: string[] = [];
  return {
    wrap<R>(handle: LogHandler<R>): LogHandler<R> {
      return async (log, node) => {
        const start = log.indexOf("{");
        const end = log.lastIndexOf("}");
        if (start >= 0 && end > start) {
          const name = `${node.replace(/[^A-Za-z0-9._-]/g, "_")}.json`;
          await writeFileAtomic(join(path, name), `${log.slice(start, end + 1)}\n`).then(
            () => saved.push(name),
            () => failed.push(node),
          );
        }
        return handle(log, node);
      };
    },
    report(): string {
      const first = saved[0];
      const lines = [
        `kube-rdma fleet: saved ${saved.length} snapshot(s) in ${dir}` +
          (first ? `; replay one with: kube-rdma verify --snapshot ${join(dir, first)}` : ""),
      ];
      if (failed.length) lines.push(`kube-rdma fleet: could not write the snapshot of ${failed.join(", ")}`);
      return `${lines.join("\n")}\n`;
    },
  };
}

/** More worker threads than this only add start-up time: each builds whole node models, CPU-bound. */
const MAX_ANALYSIS_THREADS = 64;

function validateThreads(threadsGiven: number | undefined): void {
  if (
    threadsGiven !== undefined &&
    !(Number.isInteger(threadsGiven) && threadsGiven >= 0 && threadsGiven <= MAX_ANALYSIS_THREADS)
  ) {
    // 1e6 started a million worker threads; -1 or 2.5 quietly meant something else.
    throw new UsageError(
      `--analysis-threads expects a whole number from 0 (analyse in this thread) to ${MAX_ANALYSIS_THREADS}; got ${threadsGiven}.`,
    );
  }
}

export async function fleetVerify({ values, io }: CommandContext): Promise<number> {
  if (str(values, "from-snapshots") !== undefined) {
    validateThreads(num(values, "analysis-threads"));
    return fleetFromSnapshots({ values, io });
  }
  const timeout = num(values, "timeout") ?? 120;
  const concurrencyGiven = num(values, "concurrency");
  const concurrency = concurrencyGiven ?? 20;
  const pollMs = pollIntervalMs(values);
  const threadsGiven = num(values, "analysis-threads");
  validateThreads(threadsGiven);
  if (!(timeout > 0)) throw new UsageError(`--timeout expects seconds above 0; got ${timeout}.`);
  if (!(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 1000)) {
    // 2.5 quietly meant 2 collector pods at a time.
    throw new UsageError(`--concurrency expects a whole number of pods from 1 to 1000; got ${concurrency}.`);
  }
  const namespace = str(values, "namespace") ?? "kube-rdma";
  let image = str(values, "image") ?? kubeRdmaImage(io.env);
  const imageChosen = str(values, "image") !== undefined || io.env[KUBE_RDMA_IMAGE_ENV]?.trim();
  const serviceAccountName = str(values, "service-account") || undefined;
  const runId = randomBytes(3).toString("hex");
  // A node named twice (--node a --node a,a) is one node: two collector pods with one name collide (HTTP 409),
  // and a bench pair of a node with itself measures nothing between nodes.
  const names = [...new Set(strs(values, "node"))];
  const selector = str(values, "selector");
  if (names.length && selector) throw new UsageError("give --node or -l, not both.");

  // A dry run for named nodes needs no cluster: it only prints the pods it would create.
  let connected: { target: ReturnType<typeof loadKubeConfig>; clients: ReturnType<typeof makeClients> } | undefined;
  const connect = () => {
    if (!connected) {
      const target = loadKubeConfig(kubeOptionsFrom(values, io.env));
      connected = { target, clients: makeClients(target, FLEET_ROLE) };
    }
    return connected;
  };
  let nodes: string[];
  let summaries = new Map<string, NodeSummary>();
  if (bool(values, "dry-run") && names.length) nodes = names;
  else {
    const { clients } = connect();
    const listed = await listNodeSummaries(clients, selector);
    summaries = new Map(listed.map((n) => [n.name, n]));
    const sel = selectFleetNodes(listed, names, selector !== undefined);
    if (sel.missing.length)
      throw new UsageError(`no such node(s): ${sel.missing.join(", ")}.`, "List them with kubectl get nodes.");
    nodes = sel.nodes;
  }
  if (nodes.length === 0) {
    throw new UsageError(
      selector ? `no node matches the selector ${selector}.` : "no node has both a GPU and an RDMA resource.",
      "Run kube-rdma cluster to see the nodes' resources, or name nodes with --node.",
    );
  }
  // Neither --image nor KUBE_RDMA_IMAGE: the image the install runs (its mirror, when deploy/ was given one).
  if (!imageChosen && connected) image = (await readInstalledImage(connected.clients, namespace)) ?? image;
  if (bool(values, "dry-run")) {
    const pods = nodes.map((node) =>
      collectorPod({ node, namespace, image, runId, timeoutSeconds: timeout + 30, serviceAccountName }),
    );
    io.stdout(
      renderManifests(pods, [
        `kube-rdma fleet verify --dry-run: ${pods.length} collector pod(s) in namespace ${namespace}`,
      ]),
    );
    return 0;
  }

  const maxAge = num(values, "max-age") ?? 1800;
  if (!(maxAge >= 0 && maxAge <= 7 * 86400)) {
    throw new UsageError(`--max-age expects seconds from 0 (never read agent reports) to 604800; got ${maxAge}.`);
  }
  const fromReports = await nodesFromReports(connect().clients, namespace, nodes, maxAge);
  if (fromReports) io.stderr(fromReports.line);
  // Nodes the API server already says cannot run a collector (kubelet not Ready) are answered now.
  const unreachable: CollectOutcome<NodeAnalysis>[] = [];
  const toCollect: string[] = [];
  for (const node of fromReports ? fromReports.read.toCollect.map((c) => c.node) : nodes) {
    const s = summaries.get(node);
    const why = s ? notCollectable(s) : null;
    if (why === null) toCollect.push(node);
    else unreachable.push({ node, ok: false, reason: why, pod: null });
  }

  const progressWhen = str(values, "progress") ?? "auto";
  const showProgress = progressWhen === "always" || (progressWhen === "auto" && process.stderr.isTTY === true);
  let failed = 0;
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const threads = toCollect.length === 0 ? 0 : (threadsGiven ?? defaultAnalysisThreads(toCollect.length));
  const saveDir = str(values, "save-snapshots");
  const saver = saveDir !== undefined ? await snapshotSaver(saveDir, io.cwd) : null;
  const checkOptions = vmHostOf(values);
  const pool = threads > 0 ? createAnalysisPool(threads, undefined, checkOptions) : null;
  const inThread = analyseInThreadWith(checkOptions);
  let run: Awaited<ReturnType<typeof collectFleet<NodeAnalysis>>>;
  try {
    run = await collectFleet(connect().clients, {
      nodes: toCollect,
      namespace,
      image,
      runId,
      timeoutMs: timeout * 1000,
      pollMs,
      concurrency: concurrencyGiven ?? defaultCollectorConcurrency(toCollect.length),
      serviceAccountName,
      signal: controller.signal,
      handle: saver ? saver.wrap(pool?.handle ?? inThread) : (pool?.handle ?? inThread),
      onProgress: (done, total, o: CollectOutcome<NodeAnalysis>) => {
        if (!o.ok) failed++;
        if (showProgress) io.stderr(progressLine(done, total, failed) + (done === total ? "\n" : ""));
      },
    });
  } finally {
    await pool?.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  if (run.leftBehind.length) {
    io.stderr(
      `kube-rdma fleet: could not delete ${run.leftBehind.length} pod(s): ${run.leftBehind.join(", ")}; ` +
        `delete them with kubectl -n ${namespace} delete pod -l kube-rdma.io/fleet-run=${runId}\n`,
    );
  }
  if (saver) io.stderr(saver.report());
  const strict = bool(values, "strict");
  const addressing = str(values, "rail-addressing");
  const report = buildFleetReport(
    [...(fromReports?.read.outcomes ?? []), ...unreachable, ...run.outcomes],
    strict,
    addressing === "l2" || addressing === "routed" ? addressing : null,
  );
  if (fromReports) markReportSources(report, fromReports.read);
  const result = {
    report,
    strict,
    context: connect().target.context,
    run: {
      id: runId,
      namespace,
      image,
      podsDeleted: run.deleted.length,
      podsLeft: run.leftBehind,
      interrupted: run.interrupted,
      fromReports: fromReports?.read.outcomes.length ?? 0,
      collected: run.outcomes.length,
      notReady: unreachable.length,
    },
  };
  io.stdout(await renderReport(FLEET_VERIFY_REPORT, result, str(values, "output") ?? "text"));
  if (run.interrupted) {
    io.stderr(`kube-rdma fleet: interrupted; the report above is partial (${run.deleted.length} pod(s) deleted).\n`);
    return 2;
  }
  return exitCodeFor(report.findings, strict);
}

/**
 * Collector pods at a time when --concurrency is not given: 20, or a quarter of the nodes to collect up to 100. A
 * collector takes about 5 s from create to log, so 20 at a time collect 4 nodes a second: the 200 reports missing in a
 * 10,000-node fleet (2 %) would take 50 s on their own. The pods are short-lived and each polls its own status.
 */
export function defaultCollectorConcurrency(nodesToCollect: number): number {
  return Math.min(100, Math.max(20, Math.ceil(nodesToCollect / 4)));
}

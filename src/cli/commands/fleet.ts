import { randomBytes } from "node:crypto";
import { markReportSources, nodesFromReports } from "../../agent/fleet-sources.js";
import { exitCodeFor } from "../../core/finding.js";
import { makeClients } from "../../kube/api/client.js";
import { loadKubeConfig } from "../../kube/api/config.js";
import { KUBECONFIG_OPTIONS, kubeOptionsFrom } from "../../kube/api/options.js";
import {
  ANALYSIS_BUDGET_MS,
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
import { KUBE_RDMA_IMAGE, KUBE_RDMA_IMAGE_ENV, kubeRdmaImage, readInstalledImage } from "../../kube/image.js";
import { renderManifests } from "../../kube/job/render.js";
import { FLEET_VERIFY_REPORT } from "../../report/kinds/fleet-verify.js";
import { renderReport } from "../../report/registry.js";
import { pollIntervalMs } from "../poll-interval.js";
import { REPORT_OUTPUT_OPTION, STRICT_OPTION, VM_HOST_OPTION, vmHostOf } from "../shared-options.js";
import { bool, type CommandSpec, num, str, strs, UsageError } from "../spec.js";
import { FLEET_BENCH_OPTIONS, fleetBench } from "./fleet-bench.js";
import { BENCH_DESCRIPTION, VERIFY_DESCRIPTION } from "./fleet-help.js";
import { fleetFromSnapshots } from "./fleet-offline.js";
import { fleetTopology, TOPOLOGY_DESCRIPTION, TOPOLOGY_OPTIONS } from "./fleet-topology.js";

/** The collector pods' image: KUBE_RDMA_IMAGE (a mirror) or this release's image, the one deploy/ installs. */
export const DEFAULT_COLLECTOR_IMAGE = KUBE_RDMA_IMAGE;

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

const COMMON_OPTIONS = ["node", "selector", "image", "namespace", "timeout", "concurrency", "poll-interval", "dry-run"];
const CLUSTER_OPTIONS = ["kubeconfig", "context", "output", "strict"];
const VERIFY_OPTIONS = [
  ...COMMON_OPTIONS,
  "max-age",
  "service-account",
  "analysis-threads",
  "save-snapshots",
  "rail-addressing",
  "vm-host",
  "from-snapshots",
  "progress",
  ...CLUSTER_OPTIONS,
];
const BENCH_OPTIONS = [...COMMON_OPTIONS, ...FLEET_BENCH_OPTIONS.map((o) => o.name), "save", ...CLUSTER_OPTIONS];

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

export const command: CommandSpec = {
  name: "fleet",
  summary: "Verify every RDMA GPU node through the cluster (fleet verify); find slow nodes, rails, links (fleet bench)",
  usage:
    "kube-rdma fleet verify [--node NAME…|-l SELECTOR] [--image IMAGE] [-n NS] [--dry-run] [-o text|json|yaml|html]\n" +
    "       kube-rdma fleet bench [--node NAME…|-l SELECTOR] [--plan adaptive|pairs] [--dry-run] [--save DIR] [-o text|json|yaml|html]\n" +
    "       kube-rdma fleet bench --simulate N [--bad-nodes K] [--bad-links L] [--bad-rails R] [--noise F] [--seed S]\n" +
    "       kube-rdma fleet topology --from-lldp PATH… | --from-ibnetdiscover FILE [--nics NAME,…] [-o yaml|json]",
  description: `
Three subcommands, each with its own help:
  fleet verify   verify every RDMA GPU node (the agents' reports, or a collector pod per node) and compare them
  fleet bench    find the slow node, rail (node + HCA) or switch link in a few rounds of 2-node nccl-tests jobs
  fleet topology write fleet bench's topology file from LLDP neighbours (RoCE) or ibnetdiscover (InfiniBand)
Run \`kube-rdma fleet verify --help\`, \`kube-rdma fleet bench --help\` or \`kube-rdma fleet topology --help\`.`,
  subcommands: {
    verify: {
      usage:
        "kube-rdma fleet verify [--node NAME…|-l SELECTOR] [--max-age S] [--image IMAGE] [-n NS] [--dry-run] [-o text|json|yaml|html]",
      summary: "Verify every RDMA GPU node through the cluster and name the odd ones",
      description: `
${VERIFY_DESCRIPTION}`,
      options: VERIFY_OPTIONS,
      examples: [
        ["kube-rdma fleet verify", "verify every GPU + RDMA node and compare them"],
        ["kube-rdma fleet verify -l node.kubernetes.io/instance-type=gpu-a100 -o json", "one node pool, JSON report"],
        ["kube-rdma fleet verify --node gpu-a100-1 --node gpu-a100-2 --dry-run", "print the pods it would create"],
        ["kube-rdma fleet verify --max-age 0", "collect every node now, ignoring the agents' reports"],
        [
          "kube-rdma fleet verify --from-snapshots ./snaps",
          "the same report from snapshots saved with --save-snapshots ./snaps, without a cluster",
        ],
      ],
    },
    bench: {
      usage:
        "kube-rdma fleet bench [--node NAME…|-l SELECTOR] [--plan adaptive|pairs] [--dry-run] [--save DIR] [-o text|json|yaml|html]\n" +
        "       kube-rdma fleet bench --simulate N [--bad-nodes K] [--bad-links L] [--bad-rails R] [--noise F] [--seed S]\n" +
        "       kube-rdma fleet bench --simulate N --topology rail-optimised|FILE [--units U] [--rails R] [--oversubscription X]\n" +
        "                             [--bad-uplinks K] [--bad-spine-ports K] [--bad-nodes K] [--bad-rails R] [--noise F] [--seed S]",
      summary: "Find the slow node, rail or switch link with a few rounds of 2-node nccl-tests jobs",
      description: `
${BENCH_DESCRIPTION}`,
      options: BENCH_OPTIONS,
      examples: [
        ["kube-rdma fleet bench -l pool=a100", "find the slow node, rail or uplink among a pool's nodes"],
        ["kube-rdma fleet bench --dry-run --node gpu-1 --node gpu-2", "print round 1's MPIJobs and the budget"],
        [
          "kube-rdma fleet bench --simulate 1024 --bad-nodes 10 --bad-links 2 --bad-rails 1 -o json",
          "the planner and diagnosis against a simulated 1,024-node fabric",
        ],
        [
          "kube-rdma fleet bench --simulate 1024 --topology rail-optimised --units 4 --rails 8 --oversubscription 2 --bad-nodes 10 --bad-rails 2 --bad-uplinks 2 --bad-spine-ports 1 --noise 0.03 -o json",
          "a rail-optimised fabric of 4 units: nodes, NICs, leaf uplinks and spine ports found",
        ],
      ],
    },
    topology: {
      usage:
        "kube-rdma fleet topology --from-lldp PATH… | --from-ibnetdiscover FILE [--trace FILE…] [--nics NAME,…] [-o yaml|json]",
      summary: "Write fleet bench's topology file from the fabric's own discovery",
      description: `
${TOPOLOGY_DESCRIPTION}`,
      options: ["from-lldp", "from-ibnetdiscover", "trace", "nics", "output"],
      optionHelp: {
        output: {
          description: "yaml: the topology file itself (text is the same); json: units, rails, spines and notFound",
          choices: ["yaml", "json", "text"],
          default: "yaml",
        },
      },
      examples: [
        [
          "kube-rdma fleet topology --from-lldp ./lldp > topology.yaml",
          "RoCE: one lldpcli JSON file per node in ./lldp",
        ],
        [
          "kube-rdma fleet topology --from-ibnetdiscover fabric.txt -o json",
          "InfiniBand: units, rails, spines and what was not found",
        ],
        [
          "kube-rdma fleet topology --from-ibnetdiscover fabric.txt --trace trace.txt",
          "InfiniBand: the leaf uplink and spine port one traced flow crosses",
        ],
        ["kube-rdma fleet bench -l pool=h100 --topology topology.yaml", "then bench with the discovered topology"],
      ],
    },
  },
  options: [
    { name: "node", type: "strings", valueName: "NAME", description: "Node(s) to verify" },
    {
      name: "max-age",
      type: "number",
      valueName: "SECONDS",
      description:
        "verify: judge a node from its agent's report when it is at most this old (default 1800: the agent rewrites it every 1200 s at least; 0: always start a pod)",
    },
    { name: "selector", short: "l", type: "string", valueName: "SELECTOR", description: "Label selector for nodes" },
    {
      name: "image",
      type: "string",
      valueName: "IMAGE",
      description: `Image of the collector pods (verify, default $KUBE_RDMA_IMAGE or ${DEFAULT_COLLECTOR_IMAGE}: build it from the Dockerfile) or of the nccl-tests jobs (bench)`,
    },
    {
      name: "namespace",
      short: "n",
      type: "string",
      valueName: "NS",
      description:
        "Namespace of the collector pods (verify, default kube-rdma) or of the nccl-tests jobs (bench, default kube-rdma-bench)",
    },
    {
      name: "service-account",
      type: "string",
      valueName: "NAME",
      default: "kube-rdma-collector",
      description: "ServiceAccount of the collector pods (no API rights needed)",
    },
    {
      name: "timeout",
      type: "number",
      valueName: "SECONDS",
      description: "Per-node timeout (verify, default 120) or per-job timeout (bench, default 900)",
    },
    {
      name: "concurrency",
      type: "number",
      valueName: "N",
      description:
        "Collector pods (verify, default 20, or a quarter of the nodes to collect up to 100) or bench jobs (default 256) at a time",
    },
    {
      name: "poll-interval",
      type: "number",
      valueName: "MS",
      default: 1000,
      description:
        "Pod status polling interval (bench watches its jobs: how often their deadlines are checked, and the polling interval where the watch is refused)",
    },
    {
      name: "analysis-threads",
      type: "number",
      valueName: "N",
      description: `Worker threads analysing snapshots, each snapshot within ${ANALYSIS_BUDGET_MS / 1000} s (default: one per 32 nodes, 1 to 8; 0: in this thread, unbounded)`,
    },
    {
      name: "save-snapshots",
      type: "string",
      valueName: "DIR",
      description: "Also keep each node's snapshot as DIR/NODE.json (replay one with verify --snapshot)",
    },
    VM_HOST_OPTION,
    {
      name: "rail-addressing",
      type: "string",
      valueName: "HOW",
      choices: ["l2", "routed"],
      description:
        "verify: how the rails are addressed, which no host shows: l2 (one subnet per rail on every node: a node off it is an error) or routed (a subnet per NIC per node: subnets not compared). Unset: differing subnets are reported as not checked",
    },
    {
      name: "from-snapshots",
      type: "string",
      valueName: "DIR",
      description:
        "verify: analyse the snapshots saved in DIR (DIR/NODE.json, as --save-snapshots writes them) without a cluster; --node picks some",
    },
    { name: "dry-run", type: "boolean", description: "Print the collector pod manifests and exit" },
    {
      name: "progress",
      type: "string",
      valueName: "WHEN",
      choices: ["auto", "always", "never"],
      default: "auto",
      description: "Progress bar on stderr (auto: when stderr is a terminal)",
    },
    ...FLEET_BENCH_OPTIONS,
    ...TOPOLOGY_OPTIONS,
    { name: "save", type: "string", valueName: "DIR", description: "bench: keep every job's raw output under DIR" },
    ...KUBECONFIG_OPTIONS,
    REPORT_OUTPUT_OPTION,
    STRICT_OPTION,
  ],
  examples: [
    ["kube-rdma fleet verify", "verify every GPU + RDMA node and compare them"],
    ["kube-rdma fleet verify -l node.kubernetes.io/instance-type=bcc.lgn5 -o json", "one node pool, JSON report"],
    ["kube-rdma fleet verify --node gpu-a100-1 --node gpu-a100-2 --dry-run", "print the pods it would create"],
    ["kube-rdma fleet bench -l pool=a100", "find the slow node, rail or uplink among a pool's nodes"],
    ["kube-rdma fleet bench --dry-run --node gpu-1 --node gpu-2", "print round 1's MPIJobs and the budget"],
    [
      "kube-rdma fleet bench --simulate 1024 --bad-nodes 10 --bad-links 2 --bad-rails 1 -o json",
      "the planner and diagnosis against a simulated 1,024-node fabric",
    ],
  ],
  async run({ values, positionals, io }) {
    const [sub, ...extra] = positionals;
    if ((sub === "verify" || sub === "bench") && extra.length > 0) {
      // `fleet verify gpu-01` verified every node and said PASS: a node is named with --node.
      throw new UsageError(
        `fleet ${sub} takes options only; got ${extra.map((w) => JSON.stringify(w)).join(", ")}.`,
        `Name nodes with --node (kube-rdma fleet ${sub} --node ${extra.join(",")}) or select them with -l SELECTOR.`,
      );
    }
    if (sub === "bench") return fleetBench({ values, positionals, io });
    if (sub === "topology") return fleetTopology({ values, positionals, io });
    if (sub !== "verify") {
      throw new UsageError(
        `fleet needs a subcommand: verify, bench or topology${sub ? `; got "${sub}"` : ""}.`,
        "Example: kube-rdma fleet verify, or kube-rdma fleet bench --simulate 1024 --bad-nodes 10",
      );
    }
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
  },
};

/**
 * Collector pods at a time when --concurrency is not given: 20, or a quarter of the nodes to collect up to 100. A
 * collector takes about 5 s from create to log, so 20 at a time collect 4 nodes a second: the 200 reports missing in a
 * 10,000-node fleet (2 %) would take 50 s on their own. The pods are short-lived and each polls its own status.
 */
export function defaultCollectorConcurrency(nodesToCollect: number): number {
  return Math.min(100, Math.max(20, Math.ceil(nodesToCollect / 4)));
}

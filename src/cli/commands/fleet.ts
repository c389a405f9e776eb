import { randomBytes } from "node:crypto";
import { exitCodeFor, summarize } from "../../core/finding.js";
import { makeClients } from "../../kube/api/client.js";
import { loadKubeConfig } from "../../kube/api/config.js";
import { KUBECONFIG_OPTIONS, kubeOptionsFrom } from "../../kube/api/options.js";
import {
  analyseInThread,
  buildFleetReport,
  type CollectOutcome,
  collectFleet,
  collectorPod,
  createAnalysisPool,
  defaultAnalysisThreads,
  FLEET_ROLE,
  progressLine,
  renderFleetText,
  selectFleetNodes,
} from "../../kube/fleet/index.js";
import type { NodeAnalysis } from "../../kube/fleet/node-analyser.js";
import { renderManifests } from "../../kube/job/render.js";
import { renderStructured } from "../../report/structured.js";
import { OUTPUT_OPTION, STRICT_OPTION } from "../shared-options.js";
import { bool, type CommandSpec, num, str, strs, UsageError } from "../spec.js";
import { VERSION } from "../version.js";

export const DEFAULT_COLLECTOR_IMAGE = `kube-rdma:${VERSION}`;

export const command: CommandSpec = {
  name: "fleet",
  summary: "Verify every RDMA GPU node through the cluster and compare them (fleet verify)",
  usage: "kube-rdma fleet verify [--node NAME…|-l SELECTOR] [--image IMAGE] [-n NS] [--dry-run] [-o text|json|yaml]",
  description: `
fleet verify runs \`kube-rdma collect -o - --root /host\` on each selected node in a short-lived pod (pinned with
spec.nodeName, host /sys, /proc, /dev/infiniband and /usr/bin read-only under /host, hostNetwork, tolerating every
taint),
reads each snapshot from the pod's log, deletes every pod it created (also on errors and Ctrl-C), and analyses
centrally: the per-node verify result, and fleet consistency — OFED, NVIDIA driver, HCA firmware, HCA count, data
port rates and the RoCE v2 GID index layout compared with the majority, naming the odd nodes.
Nodes: --node (repeatable), -l SELECTOR, or by default every node with a GPU and an RDMA resource.
Nodes that time out or fail are listed (exit 1), never hidden. Needs deploy/fleet (namespace kube-rdma, RBAC:
nodes get/list; pods create/get/list/delete and pods/log get in that namespace) and the image from the Dockerfile.`,
  options: [
    { name: "node", type: "strings", valueName: "NAME", description: "Node(s) to verify" },
    { name: "selector", short: "l", type: "string", valueName: "SELECTOR", description: "Label selector for nodes" },
    {
      name: "image",
      type: "string",
      valueName: "IMAGE",
      default: DEFAULT_COLLECTOR_IMAGE,
      description: "kube-rdma image for the collector pods (build it from the Dockerfile)",
    },
    {
      name: "namespace",
      short: "n",
      type: "string",
      valueName: "NS",
      default: "kube-rdma",
      description: "Namespace of the collector pods",
    },
    {
      name: "service-account",
      type: "string",
      valueName: "NAME",
      default: "kube-rdma-collector",
      description: "ServiceAccount of the collector pods (no API rights needed)",
    },
    { name: "timeout", type: "number", valueName: "SECONDS", default: 120, description: "Per-node timeout" },
    { name: "concurrency", type: "number", valueName: "N", default: 20, description: "Collector pods at a time" },
    {
      name: "poll-interval",
      type: "number",
      valueName: "MS",
      default: 1000,
      description: "Pod status polling interval",
    },
    {
      name: "analysis-threads",
      type: "number",
      valueName: "N",
      description: "Worker threads analysing snapshots (default: 0 below 64 nodes, else one per core, ≤ 8)",
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
    ...KUBECONFIG_OPTIONS,
    OUTPUT_OPTION,
    STRICT_OPTION,
  ],
  examples: [
    ["kube-rdma fleet verify", "verify every GPU + RDMA node and compare them"],
    ["kube-rdma fleet verify -l node.kubernetes.io/instance-type=bcc.lgn5 -o json", "one node pool, JSON report"],
    ["kube-rdma fleet verify --node gpu-a100-1 --node gpu-a100-2 --dry-run", "print the pods it would create"],
  ],
  async run({ values, positionals, io }) {
    const [sub] = positionals;
    if (sub !== "verify") {
      throw new UsageError(
        `fleet needs a subcommand: verify${sub ? `; got "${sub}"` : ""}.`,
        "Example: kube-rdma fleet verify",
      );
    }
    const timeout = num(values, "timeout") ?? 120;
    const concurrency = num(values, "concurrency") ?? 20;
    if (!(timeout > 0) || !(concurrency >= 1)) throw new UsageError("--timeout and --concurrency must be positive.");
    const namespace = str(values, "namespace") ?? "kube-rdma";
    const image = str(values, "image") ?? DEFAULT_COLLECTOR_IMAGE;
    const serviceAccountName = str(values, "service-account") || undefined;
    const runId = randomBytes(3).toString("hex");
    const names = strs(values, "node");
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
    if (bool(values, "dry-run") && names.length) nodes = names;
    else {
      const { clients } = connect();
      const list = await clients.call({ verb: "list", resource: "nodes" }, () =>
        clients.core.listNode(selector ? { labelSelector: selector } : {}),
      );
      const sel = selectFleetNodes(list.items, names, selector !== undefined);
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

    const progressWhen = str(values, "progress") ?? "auto";
    const showProgress = progressWhen === "always" || (progressWhen === "auto" && process.stderr.isTTY === true);
    let failed = 0;
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    const threads = num(values, "analysis-threads") ?? defaultAnalysisThreads(nodes.length);
    const pool = threads > 0 ? createAnalysisPool(threads) : null;
    let run: Awaited<ReturnType<typeof collectFleet<NodeAnalysis>>>;
    try {
      run = await collectFleet(connect().clients, {
        nodes,
        namespace,
        image,
        runId,
        timeoutMs: timeout * 1000,
        pollMs: num(values, "poll-interval") ?? 1000,
        concurrency,
        serviceAccountName,
        signal: controller.signal,
        handle: pool?.handle ?? analyseInThread,
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
    const strict = bool(values, "strict");
    const report = buildFleetReport(run.outcomes, strict);
    const format = str(values, "output") ?? "text";
    if (format === "text") io.stdout(renderFleetText(report, strict));
    else {
      const { status, errors, warnings } = summarize(report.findings, strict);
      io.stdout(
        renderStructured(format, {
          schemaVersion: 1,
          context: connect().target.context,
          run: {
            id: runId,
            namespace,
            image,
            podsDeleted: run.deleted.length,
            podsLeft: run.leftBehind,
            interrupted: run.interrupted,
          },
          nodes: report.nodes.map((n) => ({ ...n, findings: n.findings.map(({ evidence: _e, ...f }) => f) })),
          consistency: report.consistency.attributes,
          rails: report.rails.rails,
          failedNodes: report.failedNodes,
          findings: report.findings.map(({ evidence: _e, ...f }) => f),
          summary: { status, errors, warnings },
        }),
      );
    }
    if (run.interrupted) {
      io.stderr(`kube-rdma fleet: interrupted; the report above is partial (${run.deleted.length} pod(s) deleted).\n`);
      return 2;
    }
    return exitCodeFor(report.findings, strict);
  },
};

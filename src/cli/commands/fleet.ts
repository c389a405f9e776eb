import { KUBECONFIG_OPTIONS } from "../../kube/api/options.js";
import { ANALYSIS_BUDGET_MS } from "../../kube/fleet/index.js";
import { KUBE_RDMA_IMAGE } from "../../kube/image.js";
import { REPORT_OUTPUT_OPTION, STRICT_OPTION, VM_HOST_OPTION } from "../shared-options.js";
import { type CommandSpec, UsageError } from "../spec.js";
import { FLEET_BENCH_OPTIONS, fleetBench } from "./fleet-bench.js";
import { BENCH_DESCRIPTION, VERIFY_DESCRIPTION } from "./fleet-help.js";
import { fleetTopology, TOPOLOGY_DESCRIPTION, TOPOLOGY_OPTIONS } from "./fleet-topology.js";
import { fleetVerify } from "./fleet-verify.js";

/** The collector pods' image: KUBE_RDMA_IMAGE (a mirror) or this release's image, the one deploy/ installs. */
export const DEFAULT_COLLECTOR_IMAGE = KUBE_RDMA_IMAGE;

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
    return fleetVerify({ values, positionals, io });
  },
};

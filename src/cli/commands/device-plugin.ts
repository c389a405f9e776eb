import { DEFAULT_PLUGIN_DIR } from "../../device-plugin/api.js";
import { DEFAULT_IMAGE } from "../../device-plugin/manifests.js";
import { NCCL_ENV_PROFILES, PROFILE_HELP } from "../../nccl/profiles.js";
import { NETWORK_OPTIONS } from "../network-options.js";
import { OUTPUT_OPTION, SOURCE_OPTIONS } from "../shared-options.js";
import { bool, type CommandSpec } from "../spec.js";
import { dryRun, pluginSettings, printManifests, serve } from "./device-plugin-run.js";

export const command: CommandSpec = {
  name: "device-plugin",
  noArguments: { hint: "Run `kube-rdma device-plugin --help` for the options (--dry-run to see what it would serve)." },
  summary: "Serve the kubelet RDMA device plugin (rdma/hca) with health, NUMA hints and NCCL variables",
  usage: "kube-rdma device-plugin [--mode shared|exclusive] [--resource rdma/hca] [--root /host] [options]",
  description:
    "Registers an extended resource (default rdma/hca) with the kubelet over the device-plugin API v1beta1 and " +
    "serves it on <plugin-dir>/kube-rdma-<resource>.sock. A pod asking for `rdma/hca: 1` gets the node's RDMA " +
    "char devices (/dev/infiniband/uverbsN of the data HCAs, rdma_cm, and umadN/issmN with --mad) and, unless " +
    "--inject-nccl-env=false, the NCCL variables `kube-rdma nccl-env` derives for this node (NCCL_IB_HCA in exact " +
    "form without the management NIC, the GID selection where needed; tuning only with --nccl-profile).\n\n" +
    "NCCL_SOCKET_IFNAME: Allocate does not see the pod spec, so the plugin cannot tell a pod with hostNetwork: " +
    "true from one on the pod network. A pod on the pod network has its own interfaces (the CNI's eth0, Multus " +
    "net1…), not the node's bond0 or ens1f0, and NCCL told to use an interface the pod lacks fails at bootstrap. " +
    "So by default (--network pod) no NCCL_SOCKET_IFNAME is injected and NCCL picks the pod's interface itself; " +
    "--pod-interface eth0 injects NCCL_SOCKET_IFNAME==eth0 where the CNI is known to name it so. On a cluster " +
    "whose RDMA jobs all run with hostNetwork: true, --network host injects the node's default-route interface.\n\n" +
    "A variable the job sets itself always wins: the kubelet puts device-plugin envs first and the container's " +
    "own env: entries after them, and the runtime keeps the last value of a name.\n\n" +
    "Modes: shared (default) advertises --shared-units units that each give every selected data HCA; " +
    "exclusive advertises one unit per data HCA (ID = HCA name) with its NUMA node for the topology manager, and " +
    "prefers HCAs on one NUMA node and PCIe switch when the kubelet asks. The management HCA (the one carrying " +
    "the default route) is never handed out unless a --config file says includeManagement: true. In exclusive " +
    "mode an Allocate of an HCA the plugin does not serve (or whose uverbs device vanished) fails, so the pod does " +
    "not start without it.\n\n" +
    "Health: every --health-interval the data ports' state/phys_state are read from the same host as the node " +
    "model (--root, --snapshot or --example); a port that is not ACTIVE/LinkUp, or an HCA whose " +
    "/dev/infiniband/uverbsN is missing (ib_uverbs not loaded, /dev/infiniband not mounted), " +
    "makes its unit Unhealthy (exclusive), or in shared mode all units when all data HCAs are down " +
    "(--shared-health all) or when any is (--shared-health any). HCAs that appear or vanish change the list. " +
    "After a kubelet restart (kubelet.sock recreated, our socket removed) the plugin serves and registers again " +
    "by itself; if the kubelet is absent or refuses, it retries with backoff up to 30 s. Logs are JSON lines on " +
    "stderr.\n\n" +
    "Config file (--config, YAML): names, excludeNames (globs or /regex/), linkLayers (Ethernet|InfiniBand), " +
    "vendors, deviceIds (PCI ids), netdevs (globs), includeManagement (bool). Selectors AND together; values in " +
    "one list OR. Unknown keys are an error.",
  options: [
    ...SOURCE_OPTIONS,
    {
      name: "plugin-dir",
      type: "string",
      valueName: "DIR",
      default: DEFAULT_PLUGIN_DIR,
      description: "The kubelet's device-plugins directory (holds kubelet.sock)",
    },
    { name: "resource", type: "string", valueName: "NAME", default: "rdma/hca", description: "Extended resource name" },
    {
      name: "mode",
      type: "string",
      valueName: "MODE",
      choices: ["shared", "exclusive"],
      default: "shared",
      description: "shared: N units each giving all data HCAs; exclusive: one unit per data HCA",
    },
    {
      name: "shared-units",
      type: "number",
      valueName: "N",
      default: 1000,
      description: "Units advertised in shared mode (pods per node that can hold the resource)",
    },
    {
      name: "shared-health",
      type: "string",
      valueName: "POLICY",
      choices: ["all", "any"],
      default: "all",
      description:
        "Shared units go Unhealthy when all data HCAs are down (all: jobs run on the other ports, fine where every NIC reaches every peer) or when any is (any: for rail-only fabrics with NCCL_CROSS_NIC=0, where a missing rail leaves peers unreachable)",
    },
    { name: "config", type: "string", valueName: "FILE", description: "YAML file selecting the HCAs (see above)" },
    {
      name: "mad",
      type: "boolean",
      description: "Also hand out umadN/issmN (for ibstat, perftest with MADs, SM tools)",
    },
    {
      name: "inject-nccl-env",
      type: "string",
      valueName: "BOOL",
      choices: ["true", "false"],
      default: "true",
      description: "Inject the node's NCCL variables in Allocate (--inject-nccl-env=false to turn off)",
    },
    {
      name: "nccl-version",
      type: "string",
      valueName: "X.Y",
      description: "NCCL release the jobs use (picks the GID variables); unknown = variables every release reads",
    },
    {
      name: "nccl-profile",
      type: "string",
      valueName: "NAME",
      choices: NCCL_ENV_PROFILES,
      description: `The tuning injected beside the derived variables: ${PROFILE_HELP}`,
    },
    ...NETWORK_OPTIONS,
    {
      name: "health-interval",
      type: "number",
      valueName: "SECONDS",
      default: 2,
      description: "How often the data ports' state is read",
    },
    {
      name: "quarantine-file",
      type: "string",
      valueName: "PATH",
      description:
        "The node agent's quarantine file (agent --quarantine-file, a volume shared with the agent): its HCAs are Unhealthy (exclusive mode) or left out of every Allocate and NCCL_IB_HCA (shared mode)",
    },
    {
      name: "quarantine-max-age",
      type: "number",
      valueName: "SECONDS",
      default: 1800,
      description: "Ignore a quarantine file older than this (an agent that stopped must not fence HCAs forever)",
    },
    {
      name: "refresh-interval",
      type: "number",
      valueName: "SECONDS",
      default: 60,
      description: "Re-read the whole node model (GIDs, netdevs) this often; 0 = only when devices change",
    },
    {
      name: "metrics-addr",
      type: "string",
      valueName: "ADDR",
      description:
        "Serve Prometheus metrics on ADDR at /metrics: :9465 or 9465 is 127.0.0.1 only; 0.0.0.0:9465 every interface",
    },
    {
      name: "dry-run",
      type: "boolean",
      description:
        "Print what would be advertised and allocated, then exit (1 when no HCA would be served, a char device of the answer is missing, or the NCCL variables come from a node with an error)",
    },
    OUTPUT_OPTION,
    {
      name: "print-manifests",
      type: "boolean",
      description:
        "Print the DaemonSet + ServiceAccount YAML and exit; serving flags on the same line (--mode, --mad, --metrics-addr, …) reach the DaemonSet, --config ships as a ConfigMap",
    },
    {
      name: "image",
      type: "string",
      valueName: "IMAGE",
      default: DEFAULT_IMAGE,
      description: "Image for --print-manifests",
    },
    {
      name: "namespace",
      type: "string",
      valueName: "NS",
      default: "kube-system",
      description: "Namespace for --print-manifests",
    },
  ],
  examples: [
    ["kube-rdma device-plugin --print-manifests | kubectl apply -f -", "deploy it as a DaemonSet"],
    [
      "kube-rdma device-plugin --example a100-8x-roce --dry-run",
      "see what the A100 RoCE example node would advertise and inject",
    ],
    ["kube-rdma device-plugin --root /host --metrics-addr 127.0.0.1:9465", "what the DaemonSet runs"],
    ["kube-rdma device-plugin --mode exclusive --resource rdma/hca_exclusive", "one unit per data HCA, NUMA-aware"],
    [
      "kube-rdma device-plugin --config /etc/kube-rdma/hcas.yaml --mad",
      "select HCAs by name/netdev, hand out umad/issm",
    ],
  ],
  async run({ values, io }) {
    if (bool(values, "print-manifests")) {
      return printManifests(values, io, new Map(command.options.map((o) => [o.name, o.default])));
    }
    const settings = await pluginSettings(values);
    if (bool(values, "dry-run")) return dryRun(values, settings, io);
    return serve(values, settings, io);
  },
};

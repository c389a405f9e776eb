import { existsSync } from "node:fs";
import type { NodeInventory } from "../../inventory/types.js";
import { KUBECONFIG_OPTIONS, kubeOptionsFrom } from "../../kube/api/options.js";
import { AGENT_REPORT } from "../../report/kinds/agent.js";
import { renderReport } from "../../report/registry.js";
import { OUTPUT_OPTION, SOURCE_OPTIONS, VM_HOST_OPTION, vmHostOf } from "../shared-options.js";
import { inventoryFromFlags } from "../source.js";
import { bool, type CommandSpec, num, type OptionValues, str, UsageError } from "../spec.js";
import { command as collect } from "./collect.js";

/** How a DaemonSet pod reads its host: the same two options as the collector's (`collect --help`). */
const HOST_READ_OPTIONS = collect.options.filter((o) => o.name === "host-commands" || o.name === "own-proc");

const DEFAULTS = { interval: 300, heartbeat: 1200, grace: 600, share: 0.1, namespace: "kube-rdma" } as const;

function bounded(values: OptionValues, name: string, fallback: number, lo: number, hi: number, what: string): number {
  const v = num(values, name) ?? fallback;
  if (!(v >= lo && v <= hi)) throw new UsageError(`--${name} expects ${what} between ${lo} and ${hi}; got ${v}.`);
  return v;
}

/** NVML's library, which nvidia-smi loads at start (the name the driver installs). */
const NVML_LIBRARY = "libnvidia-ml.so.1";

/**
 * A pod without the NVIDIA container runtime has no libnvidia-ml.so: the host's nvidia-smi then cannot start, and
 * every GPU check is skipped. Given the driver's library directory (mounted read-only from the host), nvidia-smi
 * finds it through LD_LIBRARY_PATH (its children inherit the agent's environment).
 */
function useNvidiaLibDir(dir: string | undefined, env: Record<string, string | undefined>): void {
  if (dir === undefined || dir === "") return;
  if (!existsSync(`${dir}/${NVML_LIBRARY}`)) {
    throw new UsageError(
      `--nvidia-lib-dir ${dir} has no ${NVML_LIBRARY}: expected the NVIDIA driver's library directory.`,
      "Mount the host's driver library directory read-only (where `ldconfig -p | grep libnvidia-ml` points on the node; under /run/nvidia/driver where the driver runs in a container) and give that path.",
    );
  }
  const existing = env.LD_LIBRARY_PATH ?? process.env.LD_LIBRARY_PATH;
  process.env.LD_LIBRARY_PATH = existing ? `${dir}:${existing}` : dir;
}

export const command: CommandSpec = {
  name: "agent",
  noArguments: {
    hint: "It watches this node; preview one run without a cluster with `kube-rdma agent --once --dry-run --example a100-8x-roce --node-name n1`.",
  },
  summary: "Watch this node's RDMA health all the time: a Node condition, Events, a report, an optional taint",
  usage:
    "kube-rdma agent [--root /host] [--node-name NAME] [--interval SECONDS] [--taint] [--once] [--dry-run] [-o FORMAT]",
  description: `
Runs the node checks of \`verify\` every --interval seconds (with up to 10 % jitter, so a fleet's agents do not
write at the same moment), with counter deltas since the previous run (link downs, symbol errors), and then:
  - sets the Node condition RDMAReady: True (no error; its reason names the worst warning if any), False (an error:
    the reason is the finding's code, the message names the device and the fix) or Unknown (the checks could not
    run, or an error seen within --startup-grace of the agent's start, while OFED and the links may still be coming
    up). Written only when it changes, plus a heartbeat every --heartbeat seconds;
  - emits an Event on the Node for each new error and each recovery;
  - keeps a report of the node (findings and the values fleet verify compares) in the ConfigMap
    kube-rdma-node-NODE in --namespace; \`kube-rdma fleet verify\` reads those reports instead of starting pods;
  - with --taint, taints the node ${"kube-rdma.io/rdma-not-ready:NoSchedule"} while it fails and removes the taint
    when it recovers, never tainting more than --max-tainted-share of the agent's nodes at once (a bad rule must not
    drain the fleet).
--once runs once and exits; --dry-run writes nothing and prints what it would write (the Node status patch, the
events, the report), which needs no cluster: \`--once --dry-run --example NAME --node-name n1 -o json\`.
In a DaemonSet it reads the host mounted read-only at /host (--root /host) and NODE_NAME from the downward API.

Exit codes: 0 the node passes (or the loop ended on a signal), 1 errors found (with --once), 2 could not run.`,
  options: [
    ...SOURCE_OPTIONS,
    ...HOST_READ_OPTIONS,
    OUTPUT_OPTION,
    ...KUBECONFIG_OPTIONS,
    {
      name: "node-name",
      type: "string",
      valueName: "NAME",
      description: "The Node this agent runs on (default: $NODE_NAME)",
    },
    { name: "once", type: "boolean", description: "Run the checks once, write (or print) the result and exit" },
    { name: "dry-run", type: "boolean", description: "Write nothing to the cluster: print what would be written" },
    {
      name: "interval",
      type: "number",
      valueName: "SECONDS",
      default: DEFAULTS.interval,
      description: "Seconds between runs (30..86400)",
    },
    {
      name: "heartbeat",
      type: "number",
      valueName: "SECONDS",
      default: DEFAULTS.heartbeat,
      description: "Rewrite an unchanged condition after this many seconds (60..86400)",
    },
    {
      name: "startup-grace",
      type: "number",
      valueName: "SECONDS",
      default: DEFAULTS.grace,
      description: "After the agent starts, errors set Unknown, not False, for this long (0..3600)",
    },
    {
      name: "namespace",
      short: "n",
      type: "string",
      valueName: "NS",
      default: DEFAULTS.namespace,
      description: "Namespace of the per-node reports",
    },
    { name: "taint", type: "boolean", description: "Taint a failing node NoSchedule (off by default)" },
    {
      name: "max-tainted-share",
      type: "number",
      valueName: "SHARE",
      default: DEFAULTS.share,
      description: "With --taint: the largest share of the agent's nodes tainted at once (0..1; at least one node)",
    },
    {
      name: "quarantine-file",
      type: "string",
      valueName: "PATH",
      description:
        "Write the HCAs in error here for the device plugin in the same pod (device-plugin --quarantine-file): those HCAs, not the node, stop being handed out",
    },
    {
      name: "nvidia-lib-dir",
      type: "string",
      valueName: "DIR",
      description:
        "The NVIDIA driver's library directory (the host's, mounted read-only, e.g. /host/usr/lib/x86_64-linux-gnu), put first on LD_LIBRARY_PATH for nvidia-smi; default $KUBE_RDMA_NVIDIA_LIB_DIR. Not needed with the NVIDIA container runtime and NVIDIA_VISIBLE_DEVICES=all",
    },
    {
      name: "metrics-addr",
      type: "string",
      valueName: "ADDR",
      description: "Serve Prometheus metrics on ADDR (host:port, :port = 127.0.0.1) at /metrics while the loop runs",
    },
    VM_HOST_OPTION,
    {
      name: "daemonset",
      type: "string",
      valueName: "NAME",
      default: "kube-rdma-agent",
      description: "The agent's DaemonSet in --namespace, whose desired count is the number of selected nodes",
    },
  ],
  examples: [
    [
      "kube-rdma agent --once --dry-run --example a100-8x-roce --node-name n1 -o json",
      "what the agent would write for the A100 RoCE example node",
    ],
    ["kube-rdma agent --once --dry-run --example port-down --node-name n1", "the same node with a port down"],
    ["kube-rdma agent --root /host", "in the DaemonSet: watch the host mounted at /host"],
  ],
  async run({ values, io }) {
    const node = str(values, "node-name") ?? io.env.NODE_NAME;
    if (node === undefined || node.trim() === "") {
      throw new UsageError(
        "the agent needs the name of its Node: --node-name NAME or $NODE_NAME.",
        "In a DaemonSet set NODE_NAME from the downward API (fieldRef spec.nodeName).",
      );
    }
    const settings = {
      namespace: str(values, "namespace") ?? DEFAULTS.namespace,
      heartbeatSeconds: bounded(values, "heartbeat", DEFAULTS.heartbeat, 60, 86400, "a number of seconds"),
      taint: bool(values, "taint")
        ? { maxShare: bounded(values, "max-tainted-share", DEFAULTS.share, 0, 1, "a share") }
        : null,
    };
    useNvidiaLibDir(str(values, "nvidia-lib-dir") ?? io.env.KUBE_RDMA_NVIDIA_LIB_DIR, io.env);
    const graceSeconds = bounded(values, "startup-grace", DEFAULTS.grace, 0, 3600, "a number of seconds");
    const intervalSeconds = bounded(values, "interval", DEFAULTS.interval, 30, 86400, "a number of seconds");
    const output = str(values, "output") ?? "text";
    const { agentSource, runOnce, runLoop } = await import("../../agent/run.js");
    const read = (): Promise<NodeInventory> => inventoryFromFlags(values);
    const checkOptions = vmHostOf(values);
    const source = agentSource(values);
    const started = Date.now();
    const withinGrace = () => Date.now() - started < graceSeconds * 1000;
    if (bool(values, "dry-run")) {
      if (!bool(values, "once")) {
        throw new UsageError("--dry-run previews one run: give --once with it.");
      }
      // A dry run previews the first run of a fresh agent: no grace (it would hide every error) and no cluster.
      const result = await runOnce({
        node,
        read,
        settings,
        withinGrace: () => false,
        cluster: null,
        source,
        checkOptions,
      });
      io.stdout(await renderReport(AGENT_REPORT, result, output));
      return result.plan.report.summary.errors > 0 ? 1 : 0;
    }
    const { loadKubeConfig } = await import("../../kube/api/config.js");
    const { makeClients } = await import("../../kube/api/client.js");
    const clients = makeClients(loadKubeConfig(kubeOptionsFrom(values, io.env)), "kube-rdma-agent");
    const cluster = { clients, daemonSet: str(values, "daemonset") ?? "kube-rdma-agent" };
    const quarantineFile = str(values, "quarantine-file");
    if (bool(values, "once")) {
      const result = await runOnce({
        node,
        read,
        settings,
        withinGrace,
        cluster,
        source,
        quarantineFile,
        checkOptions,
      });
      io.stdout(await renderReport(AGENT_REPORT, result, output));
      return result.plan.report.summary.errors > 0 ? 1 : 0;
    }
    const addr = str(values, "metrics-addr");
    let metrics: import("../../agent/metrics.js").AgentMetrics | undefined;
    let server: import("node:http").Server | undefined;
    if (addr !== undefined) {
      const { parseListenAddress, serveMetrics } = await import("../../device-plugin/metrics.js");
      const listen = parseListenAddress(addr);
      if (!listen)
        throw new UsageError(`--metrics-addr expects host:port, :port or port; got ${JSON.stringify(addr)}.`);
      const { createAgentMetrics } = await import("../../agent/metrics.js");
      metrics = createAgentMetrics();
      server = await serveMetrics(metrics.registry, listen);
    }
    try {
      return await runLoop({
        node,
        read,
        settings,
        withinGrace,
        cluster,
        source,
        quarantineFile,
        checkOptions,
        intervalSeconds,
        log: io.stderr,
        ...(metrics ? { metrics } : {}),
      });
    } finally {
      server?.close();
    }
  },
};

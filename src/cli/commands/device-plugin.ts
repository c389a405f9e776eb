import { readFile } from "node:fs/promises";
import { answerContainer, exclusiveRefusal, missingVerbsDevices, RDMA_CM } from "../../device-plugin/allocate.js";
import { DEFAULT_PLUGIN_DIR } from "../../device-plugin/api.js";
import { DEFAULT_SELECTION, parseSelectionConfig, type Selection } from "../../device-plugin/config.js";
import { deriveDeviceList, type Mode, type SharedHealthPolicy } from "../../device-plugin/devices.js";
import { lineLogger } from "../../device-plugin/log.js";
import { DEFAULT_IMAGE, renderDeviceManifests } from "../../device-plugin/manifests.js";
import { parseListenAddress } from "../../device-plugin/metrics.js";
import { buildNodeView, ncclEnvDeriver } from "../../device-plugin/node-view.js";
import { type PluginConfig, PluginStartError, RdmaDevicePlugin } from "../../device-plugin/plugin.js";
import { socketNameFor } from "../../device-plugin/registration.js";
import { HostFiles } from "../../device-plugin/sysfs.js";
import type { HostReader } from "../../host/types.js";
import { readInventory } from "../../inventory/index.js";
import type { NodeInventory } from "../../inventory/types.js";
import { deriveNcclEnv } from "../../nccl/env.js";
import { parseNcclVersion } from "../../nccl/version.js";
import { DEVICE_PLUGIN_REPORT, type DevicePluginPreview } from "../../report/kinds/device-plugin.js";
import { renderReport } from "../../report/registry.js";
import { NETWORK_OPTIONS, networkOption } from "../network-options.js";
import { OUTPUT_OPTION, SOURCE_OPTIONS } from "../shared-options.js";
import { readerFromFlags } from "../source.js";
import { bool, type CommandSpec, type Io, num, type OptionValues, str, UsageError } from "../spec.js";

/**
 * Opens the host once (a UsageError for a bad --root/--snapshot/--example) and returns it with a loader that
 * re-reads the node model from it on every call; the plugin reads port health from the same host.
 */
async function openHost(values: OptionValues): Promise<{ host: HostReader; load: () => Promise<NodeInventory> }> {
  const timeout = num(values, "command-timeout");
  // The same opening (and --command-timeout check) as every other command that reads a host.
  const host = await readerFromFlags(values);
  return { host, load: () => readInventory(host, timeout !== undefined ? { commandTimeoutMs: timeout * 1000 } : {}) };
}

function positive(values: OptionValues, name: string, what: string): number {
  const v = num(values, name);
  if (v === undefined || !(v > 0)) throw new UsageError(`--${name} expects ${what} greater than 0; got ${String(v)}.`);
  return v;
}

async function readSelection(path: string | undefined): Promise<Selection> {
  if (path === undefined) return DEFAULT_SELECTION;
  const text = await readFile(path, "utf8").catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(
      `cannot read the config file ${path}: ${err.code ?? err.message}.`,
      "Pass --config FILE with a readable YAML file.",
    );
  });
  const parsed = parseSelectionConfig(text, path);
  if (!parsed.ok) {
    throw new UsageError(parsed.problems.map((p) => p.message).join("\n"), parsed.problems[0]?.hint);
  }
  return parsed.value;
}

/**
 * Options that the chosen mode would drop in silence: --shared-units/--shared-health in exclusive mode (one unit per
 * HCA, each with its own health), and the NCCL options with --inject-nccl-env=false.
 */
function refuseIgnoredOptions(values: OptionValues): void {
  if (values.mode === "exclusive") {
    const shared = [
      ...(values["shared-units"] !== undefined && values["shared-units"] !== 1000 ? ["--shared-units"] : []),
      ...(values["shared-health"] !== undefined && values["shared-health"] !== "all" ? ["--shared-health"] : []),
    ];
    if (shared.length > 0) {
      throw new UsageError(
        `${shared.join(" and ")} ${shared.length > 1 ? "shape" : "shapes"} shared mode; --mode exclusive advertises one unit per data HCA, each with its own health.`,
        "Drop them, or use --mode shared.",
      );
    }
  }
  if (values["inject-nccl-env"] === "false") {
    const nccl = ["nccl-version", "pod-interface"].filter((n) => values[n] !== undefined);
    if (values.network !== undefined && values.network !== "pod") nccl.push("network");
    if (nccl.length > 0) {
      throw new UsageError(
        `--${nccl[0]} shapes the NCCL variables the plugin injects, but --inject-nccl-env=false injects none.`,
        `Drop --${nccl[0]}, or leave --inject-nccl-env at true.`,
      );
    }
  }
}

/** The plugin's settings from the flags; every bad value is a usage error naming the flag. */
export async function pluginSettings(values: OptionValues): Promise<Omit<PluginConfig, "loadInventory" | "log">> {
  refuseIgnoredOptions(values);
  const units = positive(values, "shared-units", "a whole number of units");
  if (!Number.isInteger(units) || units > 100_000) {
    throw new UsageError(`--shared-units expects a whole number from 1 to 100000; got ${units}.`);
  }
  const resource = str(values, "resource") ?? "rdma/hca";
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(resource)) {
    throw new UsageError(
      `--resource expects an extended resource name DOMAIN/NAME such as rdma/hca; got "${resource}".`,
    );
  }
  const metrics = str(values, "metrics-addr");
  const metricsAddr = metrics === undefined ? undefined : parseListenAddress(metrics);
  if (metrics !== undefined && !metricsAddr) {
    throw new UsageError(`--metrics-addr expects HOST:PORT, :PORT or PORT (e.g. :9465); got "${metrics}".`);
  }
  // Node runs a timer longer than 2^31 ms (24.8 days) after 1 ms, so an interval of 1e9 s polled sysfs every
  // millisecond; one shorter than 0.1 s does the same on purpose.
  const refresh = num(values, "refresh-interval") ?? 60;
  if (!(refresh === 0 || (refresh >= 1 && refresh <= 86_400))) {
    throw new UsageError(
      `--refresh-interval expects seconds from 1 to 86400, or 0 (only when devices change); got ${refresh}.`,
    );
  }
  const healthInterval = positive(values, "health-interval", "seconds");
  if (healthInterval < 0.1 || healthInterval > 3600) {
    throw new UsageError(`--health-interval expects seconds from 0.1 to 3600; got ${healthInterval}.`);
  }
  const inject = str(values, "inject-nccl-env") ?? "true";
  const ncclVersion = str(values, "nccl-version");
  if (ncclVersion !== undefined && !parseNcclVersion(ncclVersion)) {
    throw new UsageError(`--nccl-version expects X.Y or X.Y.Z (e.g. 2.18 or 2.21.5); got "${ncclVersion}".`);
  }
  return {
    pluginDir: str(values, "plugin-dir") ?? DEFAULT_PLUGIN_DIR,
    resource,
    mode: (str(values, "mode") ?? "shared") as Mode,
    sharedUnits: units,
    sharedHealth: (str(values, "shared-health") ?? "all") as SharedHealthPolicy,
    selection: await readSelection(str(values, "config")),
    mad: bool(values, "mad"),
    root: str(values, "root") ?? "/",
    healthIntervalMs: healthInterval * 1000,
    refreshIntervalMs: refresh * 1000,
    watchPollMs: 1000,
    backoffInitialMs: 500,
    backoffMaxMs: 30_000,
    registerTimeoutMs: 5000,
    deriveEnv: inject === "false" ? null : ncclEnvDeriver(ncclVersion, networkOption(values)),
    ...(metricsAddr ? { metricsAddr } : {}),
  };
}

/** `--dry-run`: what the plugin would advertise and answer on this node, without serving. */
async function dryRun(values: OptionValues, settings: Omit<PluginConfig, "loadInventory" | "log">, io: Io) {
  const { host, load } = await openHost(values);
  const inv = await load();
  const files = new HostFiles(host);
  const view = buildNodeView(inv, {
    mode: settings.mode,
    selection: settings.selection,
    sharedUnits: settings.sharedUnits,
    mad: settings.mad,
    madDevices: settings.mad ? files.madDevices() : new Map(),
    deriveEnv: settings.deriveEnv,
  });
  // The node model was just read from the same host: its port states are what a health poll would read now.
  const health = new Map<string, boolean>();
  const why = new Map<string, string>();
  for (const h of view.hcas) {
    const ports = inv.hcas.find((x) => x.name === h.name)?.ports ?? [];
    const portsUp = ports.length > 0 && ports.every((p) => p.state === "ACTIVE" && p.physState === "LinkUp");
    const verbs = missingVerbsDevices(view.plan.specsByHca.get(h.name) ?? [], (p) => files.exists(p));
    health.set(h.name, portsUp && verbs.length === 0);
    if (!portsUp) why.set(h.name, "port down");
    else if (verbs.length > 0) why.set(h.name, `no ${verbs.join(", ")}`);
  }
  const devices = deriveDeviceList({ ...settings, hcas: view.hcas, health });
  const ids = settings.mode === "shared" ? devices.slice(0, 1).map((d) => d.ID) : view.hcas.map((h) => h.name);
  const hcaNames = settings.mode === "shared" ? view.hcas.map((h) => h.name) : ids;
  // The same answer the serving plugin builds: char devices missing on the host are left out (shared) or refuse
  // the Allocate (exclusive), so the preview must not list them as given.
  const answer = answerContainer(view.plan, ids, (p) => files.exists(p));
  const refusal = settings.mode === "exclusive" ? exclusiveRefusal(answer, hcaNames) : null;
  // What `kube-rdma nccl-env` says about the variables handed out (an HCA left out of NCCL_IB_HCA, no usable GID):
  // the plugin injects them silently, so the preview is where they must be seen.
  const ncclVersion = str(values, "nccl-version");
  const envFindings =
    settings.deriveEnv === null || refusal !== null
      ? []
      : deriveNcclEnv(inv, {
          hcas: hcaNames,
          network: networkOption(values),
          ...(ncclVersion !== undefined ? { ncclVersion } : {}),
        })
          .findings.filter((f) => f.severity !== "info")
          .map((f) => ({ code: f.code, severity: f.severity, subject: f.subject, message: f.message, fix: f.fix }));
  const report: DevicePluginPreview = {
    schemaVersion: 1,
    host: inv.hostname,
    source: inv.source,
    resource: settings.resource,
    socket: socketNameFor(settings.resource),
    mode: settings.mode,
    hcas: view.hcas.map((h) => ({
      name: h.name,
      numaNode: h.numaNode,
      healthy: health.get(h.name) === true,
      ...(why.has(h.name) ? { unhealthyBecause: why.get(h.name)! } : {}),
    })),
    skipped: view.skipped,
    devices: {
      count: devices.length,
      healthy: devices.filter((d) => d.health === "Healthy").length,
      first: devices.slice(0, 3),
    },
    allocate: {
      ids,
      devices: refusal === null ? answer.response.devices : [],
      envs: refusal === null ? answer.response.envs : {},
      missing: answer.missingDevices,
      refused: refusal,
      envFindings,
    },
  };
  io.stdout(await renderReport(DEVICE_PLUGIN_REPORT, report, str(values, "output") ?? "text"));
  if (view.hcas.length === 0) {
    // A plugin that advertises nothing is not a working plugin: pods asking for the resource never schedule here.
    const why = view.skipped.length
      ? `every HCA was left out (${view.skipped.map((x) => `${x.hca}: ${x.reason}`).join("; ")})`
      : "the node has no RDMA device (/sys/class/infiniband is empty or missing)";
    io.stderr(
      `kube-rdma device-plugin: no HCA would be served on ${inv.hostname}: ${why}. Pods requesting ` +
        `${settings.resource} would never be scheduled here. Check \`kube-rdma verify\` on the node and the HCA ` +
        "selection (--config); exit 1.\n",
    );
    return 1;
  }
  const envErrors = envFindings.filter((f) => f.severity === "error");
  if (envErrors.length > 0) {
    io.stderr(
      `kube-rdma device-plugin: the NCCL variables it would inject on ${inv.hostname} come from a node with ` +
        `${envErrors.length} error(s): ${envErrors.map((f) => `${f.code} (${f.subject})`).join(", ")}. Fix the node ` +
        "(`kube-rdma verify`, `kube-rdma nccl-env` for the details) or leave the HCA out with --config; exit 1.\n",
    );
    return 1;
  }
  if (answer.lostHcas.length > 0 || answer.missingDevices.includes(RDMA_CM)) {
    // The pod would start without the verbs devices it asked for (shared) or not start at all (exclusive).
    io.stderr(
      `kube-rdma device-plugin: ${answer.missingDevices.join(", ")} ${answer.missingDevices.length === 1 ? "does" : "do"} ` +
        `not exist on ${inv.hostname}; ` +
        (refusal !== null
          ? "Allocate would be refused and pods asking for the HCAs would not start. "
          : "pods would get no RDMA device for those HCAs and NCCL would fail or fall back to TCP. ") +
        "Load ib_uverbs (modprobe ib_uverbs) or mount /dev/infiniband into the plugin's container, then run " +
        "`kube-rdma verify` on the node; exit 1.\n",
    );
    return 1;
  }
  return 0;
}

/** Serves until SIGTERM/SIGINT, then removes the socket. */
async function serve(values: OptionValues, settings: Omit<PluginConfig, "loadInventory" | "log">, io: Io) {
  const log = lineLogger((line) => io.stderr(line));
  const { host, load } = await openHost(values);
  const plugin = new RdmaDevicePlugin({ ...settings, host, loadInventory: load, log });
  try {
    await plugin.start();
  } catch (err) {
    await plugin.stop();
    if (err instanceof PluginStartError) throw new UsageError(err.message, err.hint);
    throw err;
  }
  await new Promise<void>((resolve) => {
    const done = (signal: string) => {
      log.info("signal received; shutting down", { signal });
      resolve();
    };
    process.once("SIGTERM", () => done("SIGTERM"));
    process.once("SIGINT", () => done("SIGINT"));
  });
  await plugin.stop();
  return 0;
}

/** Serving flags a DaemonSet's plugin can run with as given; --print-manifests forwards those set on its line. */
const FORWARDED = [
  "mode",
  "shared-units",
  "shared-health",
  "mad",
  "inject-nccl-env",
  "nccl-version",
  "network",
  "pod-interface",
  "health-interval",
  "refresh-interval",
  "command-timeout",
] as const;

/**
 * `--print-manifests`: the DaemonSet runs the plugin with the serving flags given on this line (--mode exclusive,
 * --mad, --metrics-addr, --config as a ConfigMap…); they used to be dropped, so the deployed plugin served in shared
 * mode whatever was asked. Flags about a node to preview (--dry-run, --root, --snapshot, --example) are refused.
 */
async function printManifests(values: OptionValues, io: Io): Promise<number> {
  const preview = ["dry-run", "root", "snapshot", "example"].filter(
    (n) => values[n] !== undefined && values[n] !== false,
  );
  if (preview.length > 0) {
    throw new UsageError(
      `--print-manifests prints the DaemonSet, whose plugin reads its node at /host; --${preview[0]} is for looking at one node now.`,
      "Give one: `kube-rdma device-plugin --print-manifests [serving flags]` or `kube-rdma device-plugin --example NAME --dry-run`.",
    );
  }
  await pluginSettings(values); // every serving flag is checked as the plugin would check it
  const namespace = str(values, "namespace") ?? "kube-system";
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(namespace)) {
    throw new UsageError(
      `--namespace expects a Kubernetes namespace name (lower-case letters, digits and '-', at most 63); got "${namespace}".`,
    );
  }
  const image = str(values, "image") ?? DEFAULT_IMAGE;
  if (image.trim() === "" || /\s/.test(image)) {
    throw new UsageError(`--image expects an image reference such as ${DEFAULT_IMAGE}; got "${image}".`);
  }
  const defaults = new Map(command.options.map((o) => [o.name, o.default]));
  const pluginArgs = FORWARDED.flatMap((name) => {
    const v = values[name];
    if (v === undefined || v === false || v === defaults.get(name)) return [];
    return v === true ? [`--${name}`] : [`--${name}`, String(v)];
  });
  const configPath = str(values, "config");
  const config = configPath === undefined ? undefined : await readFile(configPath, "utf8");
  const resource = str(values, "resource");
  const metricsAddr = str(values, "metrics-addr");
  const pluginDir = str(values, "plugin-dir");
  io.stdout(
    renderDeviceManifests({
      image,
      namespace,
      ...(resource !== undefined ? { resource } : {}),
      ...(metricsAddr !== undefined ? { metricsAddr } : {}),
      ...(pluginDir !== undefined ? { pluginDir } : {}),
      ...(config !== undefined ? { config } : {}),
      pluginArgs,
    }),
  );
  return 0;
}

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
    "form without the management NIC, the GID selection, NCCL_IB_TIMEOUT=22, NCCL_IB_QPS_PER_CONNECTION=8).\n\n" +
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
      description: "Shared units go Unhealthy when all data HCAs are down (all) or when any is (any)",
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
    ...NETWORK_OPTIONS,
    {
      name: "health-interval",
      type: "number",
      valueName: "SECONDS",
      default: 2,
      description: "How often the data ports' state is read",
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
      "kube-rdma device-plugin --example a100-8x-roce-seed --dry-run",
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
    if (bool(values, "print-manifests")) return printManifests(values, io);
    const settings = await pluginSettings(values);
    if (bool(values, "dry-run")) return dryRun(values, settings, io);
    return serve(values, settings, io);
  },
};

/**
 * What `kube-rdma device-plugin` does with its flags: the plugin's settings (every bad or dropped value a usage
 * error), --dry-run's preview of one node, serving, and --print-manifests. The command's spec is in device-plugin.ts.
 */
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
import { networkOption, profileOption } from "../network-options.js";
import { readerFromFlags } from "../source.js";
import { bool, type Io, num, type OptionValues, str, UsageError } from "../spec.js";

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
    throw new UsageError(
      parsed.problems.map((p) => p.message),
      parsed.problems[0]?.hint,
    );
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
    const nccl = ["nccl-version", "nccl-profile", "pod-interface"].filter((n) => values[n] !== undefined);
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
    deriveEnv: inject === "false" ? null : ncclEnvDeriver(ncclVersion, networkOption(values), profileOption(values)),
    ...(metricsAddr ? { metricsAddr } : {}),
    ...quarantineOption(values),
  };
}

/** --quarantine-file PATH [--quarantine-max-age SECONDS]: the node agent's quarantined HCAs. */
function quarantineOption(values: OptionValues): { quarantine?: { path: string; maxAgeSeconds: number } } {
  const path = str(values, "quarantine-file");
  if (path === undefined) return {};
  const maxAge = num(values, "quarantine-max-age") ?? 1800;
  if (!(maxAge >= 10 && maxAge <= 86_400)) {
    throw new UsageError(`--quarantine-max-age expects seconds from 10 to 86400; got ${maxAge}.`);
  }
  return { quarantine: { path, maxAgeSeconds: maxAge } };
}

/** `--dry-run`: what the plugin would advertise and answer on this node, without serving. */
export async function dryRun(values: OptionValues, settings: Omit<PluginConfig, "loadInventory" | "log">, io: Io) {
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
          profile: profileOption(values),
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
export async function serve(values: OptionValues, settings: Omit<PluginConfig, "loadInventory" | "log">, io: Io) {
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
  // SIGHUP (a closed terminal, a supervisor's reload) would kill the process with its socket left behind: the plugin
  // re-reads its node model by itself, so a hang-up is logged and ignored.
  const onHangup = () =>
    log.info("SIGHUP ignored: the plugin re-reads the node by itself; restart the pod to change flags", {});
  process.on("SIGHUP", onHangup);
  await new Promise<void>((resolve) => {
    const done = (signal: string) => {
      log.info("signal received; shutting down", { signal });
      resolve();
    };
    process.once("SIGTERM", () => done("SIGTERM"));
    process.once("SIGINT", () => done("SIGINT"));
  });
  process.off("SIGHUP", onHangup);
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
  "nccl-profile",
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
export async function printManifests(
  values: OptionValues,
  io: Io,
  defaults: ReadonlyMap<string, unknown>,
): Promise<number> {
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

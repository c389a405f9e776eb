/**
 * The running device plugin: serves DevicePlugin on `<dir>/kube-rdma-<resource>.sock`, registers with the kubelet
 * (retrying with backoff), re-registers after a kubelet restart without losing its device list, polls port health
 * and re-reads the node model when HCAs appear or vanish.
 */
import { stat, unlink } from "node:fs/promises";
import type { Server as HttpServer } from "node:http";
import { join } from "node:path";
import type * as grpc from "@grpc/grpc-js";
import {
  AllocateInvalid,
  AllocateRefused,
  answerContainer,
  exclusiveRefusal,
  invalidAllocate,
  missingVerbsDevices,
} from "./allocate.js";
import type { AllocateRequest, AllocateResponse, Device, DevicePluginOptions } from "./api.js";
import { countHealth, deriveDeviceList } from "./devices.js";
import { judgeReadings } from "./health-round.js";
import { createMetrics, type PluginMetrics, serveMetrics } from "./metrics.js";
import { NodeModel } from "./node-model.js";
import { type PluginConfig, PluginStartError } from "./plugin-config.js";
import { QuarantineFile } from "./quarantine-file.js";
import { Registrar, registerRequest, registrationTarget, socketNameFor } from "./registration.js";
import { closeServer, listenDevicePlugin } from "./server.js";
import { devicePluginHandlers, type ListAndWatchStream } from "./service.js";
import { DeviceExistence, type HcaReading, HostFiles } from "./sysfs.js";
import { type DirWatch, fileIdentity, watchDir } from "./watcher.js";

export { type PluginConfig, PluginStartError } from "./plugin-config.js";

type Stream = ListAndWatchStream;

export class RdmaDevicePlugin {
  readonly socketName: string;
  readonly socketPath: string;
  readonly metrics: PluginMetrics;
  private readonly files: HostFiles;
  private readonly node: NodeModel;
  private existence: DeviceExistence | null = null;
  private health = new Map<string, boolean>();
  /** Shared mode: the quarantined HCAs, out of every Allocate answer until the agent releases them. */
  private withdrawn: ReadonlySet<string> = new Set();
  /** The last poll's readings, to see link flaps between polls. */
  private lastReadings = new Map<string, HcaReading>();
  private devices: Device[] = [];
  private readonly streams = new Set<Stream>();
  private server: grpc.Server | null = null;
  private socketIdentity: string | null = null;
  private readonly registrar: Registrar;
  private stopped = false;
  private healthTimer: NodeJS.Timeout | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;
  private dirWatch: DirWatch | null = null;
  private metricsServer: HttpServer | null = null;
  private reconciling: Promise<void> | null = null;
  private polling = false;
  private polls = 0;
  private changedAtPoll = 0;
  private readonly quarantine: QuarantineFile;

  constructor(private readonly cfg: PluginConfig) {
    this.socketName = socketNameFor(cfg.resource);
    this.socketPath = join(cfg.pluginDir, this.socketName);
    this.files = new HostFiles(cfg.host ?? cfg.root);
    this.node = new NodeModel(cfg, this.files);
    this.metrics = createMetrics(cfg.resource);
    this.quarantine = new QuarantineFile(cfg.quarantine, cfg.log);
    this.registrar = new Registrar({
      pluginDir: cfg.pluginDir,
      ownSocket: this.socketPath,
      request: () => registerRequest(this.socketName, cfg.resource, this.options),
      timeoutMs: cfg.registerTimeoutMs,
      backoffInitialMs: cfg.backoffInitialMs,
      backoffMaxMs: cfg.backoffMaxMs,
      log: cfg.log,
      metrics: this.metrics,
    });
  }

  /** `http://host:port/metrics` once serving metrics (the real port when --metrics-addr asked for port 0). */
  get metricsUrl(): string | null {
    const a = this.metricsServer?.address();
    if (!a || typeof a === "string") return null;
    const host = a.family === "IPv6" ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}/metrics`;
  }

  /** The current device list (what a new ListAndWatch stream receives first). */
  get deviceList(): readonly Device[] {
    return this.devices;
  }

  /** Health polls completed, and the poll whose reading last changed the device list (tests count intervals). */
  get pollStats(): { polls: number; changedAtPoll: number } {
    return { polls: this.polls, changedAtPoll: this.changedAtPoll };
  }

  get options(): DevicePluginOptions {
    return { pre_start_required: false, get_preferred_allocation_available: this.cfg.mode === "exclusive" };
  }

  async start(): Promise<void> {
    const dir = await stat(this.cfg.pluginDir).catch(() => null);
    if (!dir?.isDirectory()) {
      throw new PluginStartError(
        `the device-plugins directory ${this.cfg.pluginDir} does not exist (expected the kubelet's, with kubelet.sock in it)`,
        "Mount the host's /var/lib/kubelet/device-plugins into the pod (hostPath), or pass --plugin-dir DIR.",
      );
    }
    this.existence = new DeviceExistence(this.files);
    await this.node.refresh("start");
    await this.pollHealth();
    await this.serve();
    if (this.cfg.metricsAddr) {
      const addr = this.cfg.metricsAddr;
      this.metricsServer = await serveMetrics(this.metrics.registry, addr).catch((err: unknown) => {
        throw new PluginStartError(
          `cannot serve metrics on ${addr.host}:${addr.port}: ${err instanceof Error ? err.message : String(err)}`,
          "Pick a free port with --metrics-addr (the DaemonSet uses hostNetwork, so the port is the node's).",
        );
      });
      this.cfg.log.info("metrics listening", { addr: `${this.cfg.metricsAddr.host}:${this.cfg.metricsAddr.port}` });
    }
    this.healthTimer = setInterval(() => void this.pollHealth(), this.cfg.healthIntervalMs);
    if (this.cfg.refreshIntervalMs > 0) {
      this.refreshTimer = setInterval(() => void this.node.refresh("periodic"), this.cfg.refreshIntervalMs);
    }
    this.dirWatch = watchDir(this.cfg.pluginDir, this.cfg.watchPollMs, () => void this.reconcile());
    this.registrar.kick(null);
  }

  /** Stops serving, ends every stream and removes the socket. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.healthTimer) clearInterval(this.healthTimer);
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.dirWatch?.close();
    this.existence?.close();
    this.registrar.stop();
    for (const s of this.streams) s.end();
    this.streams.clear();
    await this.shutdownServer();
    await unlink(this.socketPath).catch(() => undefined);
    if (this.metricsServer) await new Promise((r) => this.metricsServer?.close(r));
    this.metrics.registered.set(0);
    this.cfg.log.info("stopped; socket removed", { socket: this.socketPath });
  }

  // --- node model and health -------------------------------------------------------------------------------

  private async pollHealth(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      if (!this.node.view) await this.node.refresh("retry");
      const view = this.node.view;
      if (!view) return;
      this.existence?.reset();
      const present = this.files.ibdevs();
      if (present.join(",") !== view.ibdevs.join(",")) {
        this.cfg.log.info("RDMA devices changed; re-reading the node model", { was: view.ibdevs, now: present });
        await this.node.refresh("devices changed");
      }
      const current = this.node.view ?? view;
      const exists = (path: string) => (this.existence ? this.existence.exists(path) : this.files.exists(path));
      const quarantined = this.quarantine.read();
      const readings = current.hcas.map((h) => {
        const reading = this.files.readHca(h.name);
        const missing = missingVerbsDevices(current.plan.specsByHca.get(h.name) ?? [], exists);
        const checked = missing.length > 0 ? { ...reading, healthy: false, missingDevices: missing } : reading;
        const codes = quarantined.get(h.name);
        return codes ? { ...checked, healthy: false, quarantined: codes } : checked;
      });
      const round = judgeReadings(
        readings,
        { readings: this.lastReadings, health: this.health },
        {
          intervalS: this.cfg.healthIntervalMs / 1000,
          log: this.cfg.log,
          metrics: this.metrics,
        },
      );
      this.lastReadings = new Map(readings.map((r) => [r.hca, r]));
      this.health = round.health;
      this.setWithdrawn(
        this.cfg.mode === "shared"
          ? new Set(current.hcas.map((h) => h.name).filter((h) => quarantined.has(h)))
          : new Set(),
      );
      this.publish(
        deriveDeviceList({
          mode: this.cfg.mode,
          hcas: current.hcas,
          health: round.health,
          sharedUnits: this.cfg.sharedUnits,
          sharedHealth: this.cfg.sharedHealth,
          withdrawn: this.withdrawn,
        }),
      );
      // The NCCL variables leave out ports that are down (nccl-env), so a port that changed state re-derives them.
      if (round.flipped && this.cfg.deriveEnv) void this.node.refresh("port state changed");
    } catch (err) {
      this.cfg.log.error("health poll failed", { error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.polls++;
      this.polling = false;
    }
  }

  /** Shared mode: a changed quarantine is logged once and counted per HCA (withdrawn 1 / served 0). */
  private setWithdrawn(next: ReadonlySet<string>): void {
    const was = this.withdrawn;
    this.withdrawn = next;
    for (const hca of next) {
      if (was.has(hca)) continue;
      this.metrics.withdrawn.set({ hca }, 1);
      this.cfg.log.warn("HCA withdrawn from shared units (quarantined by the node agent)", { hca });
    }
    for (const hca of was) {
      if (next.has(hca)) continue;
      this.metrics.withdrawn.set({ hca }, 0);
      this.cfg.log.info("HCA served again in shared units (quarantine released)", { hca });
    }
  }

  private publish(devices: Device[]): void {
    if (sameDevices(devices, this.devices)) return;
    this.devices = devices;
    this.changedAtPoll = this.polls + 1;
    const { healthy, unhealthy } = countHealth(devices);
    this.metrics.devices.set({ health: "Healthy" }, healthy);
    this.metrics.devices.set({ health: "Unhealthy" }, unhealthy);
    this.cfg.log.info("device list updated", {
      devices: devices.length,
      healthy,
      unhealthy,
      streams: this.streams.size,
    });
    for (const s of this.streams) s.write({ devices });
  }

  // --- gRPC server -----------------------------------------------------------------------------------------

  private async serve(): Promise<void> {
    const server = await listenDevicePlugin(this.socketPath, this.handlers()).catch((err: unknown) => {
      throw new PluginStartError(
        `cannot listen on ${this.socketPath}: ${err instanceof Error ? err.message : String(err)}`,
        "Check that the directory is writable by the plugin (hostPath mount, not read-only).",
      );
    });
    this.server = server;
    this.socketIdentity = await fileIdentity(this.socketPath);
    this.cfg.log.info("serving DevicePlugin", { socket: this.socketPath, resource: this.cfg.resource });
  }

  private async shutdownServer(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await closeServer(server);
  }

  private handlers(): grpc.UntypedServiceImplementation {
    return devicePluginHandlers({
      options: () => this.options,
      devices: () => this.devices,
      placed: () => this.node.view?.hcas ?? [],
      allocate: (req) => this.allocate(req),
      openStream: (stream) => {
        this.streams.add(stream);
        const drop = () => this.streams.delete(stream);
        stream.on("cancelled", drop);
        stream.on("close", drop);
        stream.on("error", drop);
        this.cfg.log.info("kubelet opened ListAndWatch", { devices: this.devices.length, streams: this.streams.size });
      },
      allocateFailed: (err) => {
        if (err instanceof AllocateRefused || err instanceof AllocateInvalid) return; // counted and logged where decided
        this.metrics.allocateErrors.inc({ reason: "internal" });
        this.cfg.log.error("Allocate failed", { error: err instanceof Error ? err.message : String(err) });
      },
    });
  }

  /**
   * Answers with what exists; a vanished char device is logged and counted. In exclusive mode a requested HCA that
   * is unknown or lost its verbs device fails the whole Allocate (AllocateRefused), so the pod does not start
   * without it.
   */
  allocate(request: AllocateRequest): AllocateResponse {
    const invalid = invalidAllocate(request);
    if (invalid !== null) {
      this.metrics.allocateErrors.inc({ reason: "invalid_request" });
      this.cfg.log.error("Allocate refused: not a request a kubelet sends", { reason: invalid });
      throw new AllocateInvalid(invalid);
    }
    const view = this.node.view;
    if (!view) throw new Error("node model not read yet");
    const existence = this.existence;
    const exists = existence ? (p: string) => existence.exists(p) : (p: string) => this.files.exists(p);
    return {
      container_responses: request.container_requests.map((req) => {
        const answer = answerContainer(view.plan, req.devices_ids, exists, this.withdrawn);
        this.metrics.allocations.inc();
        if (answer.unknownIds.length > 0) this.metrics.allocateErrors.inc({ reason: "unknown_id" });
        if (answer.missingDevices.length > 0) this.metrics.allocateErrors.inc({ reason: "missing_device" });
        const refusal =
          this.cfg.mode === "exclusive"
            ? exclusiveRefusal(
                answer,
                view.hcas.map((h) => h.name),
              )
            : null;
        if (refusal !== null) {
          this.cfg.log.error("Allocate refused: the pod would start without the HCA it asked for", {
            requested: req.devices_ids,
            reason: refusal,
          });
          throw new AllocateRefused(refusal);
        }
        if (answer.unknownIds.length > 0) {
          this.cfg.log.warn("Allocate asked for shared units this plugin does not serve now; giving every HCA", {
            unknown: answer.unknownIds,
          });
        }
        if (answer.missingDevices.length > 0) {
          this.cfg.log.warn("char devices vanished; answering with those that exist", {
            missing: answer.missingDevices,
          });
        }
        return answer.response;
      }),
    };
  }

  // --- registration and kubelet restarts --------------------------------------------------------------------

  private async reconcile(): Promise<void> {
    if (this.stopped) return;
    if (this.reconciling) return this.reconciling;
    // Never rejects: it runs from a watch and a timer, and a kubelet gone for a while (its directory removed) is
    // waited out, not a crash.
    this.reconciling = this.reconcileOnce()
      .catch((err: unknown) => {
        this.cfg.log.error("could not serve again; retrying", {
          error: err instanceof Error ? err.message : String(err),
        });
      })
      .finally(() => {
        this.reconciling = null;
      });
    return this.reconciling;
  }

  /** Set while the plugin directory is missing: logged once, then waited for. */
  private dirGone = false;

  private async reconcileOnce(): Promise<void> {
    const own = await fileIdentity(this.socketPath);
    if (this.server && own !== this.socketIdentity) {
      this.cfg.log.warn("our socket was removed (kubelet restart?); serving again", { socket: this.socketPath });
      this.registrar.forget();
      for (const s of this.streams) s.end();
      this.streams.clear();
      await this.shutdownServer();
    }
    if (!this.server && !this.stopped) {
      const dir = await stat(this.cfg.pluginDir).catch(() => null);
      if (!dir?.isDirectory()) {
        if (!this.dirGone) {
          this.cfg.log.warn("the device-plugins directory is gone; waiting for the kubelet to create it again", {
            dir: this.cfg.pluginDir,
          });
        }
        this.dirGone = true;
        return;
      }
      if (this.dirGone) this.cfg.log.info("the device-plugins directory is back", { dir: this.cfg.pluginDir });
      this.dirGone = false;
      await this.serve();
      // The old watch followed the removed directory: watch the new one.
      this.dirWatch?.close();
      this.dirWatch = watchDir(this.cfg.pluginDir, this.cfg.watchPollMs, () => void this.reconcile());
    }
    const target = await registrationTarget(this.cfg.pluginDir, this.socketPath);
    if (target !== this.registrar.registeredTo) {
      if (this.registrar.registeredTo !== null) {
        this.cfg.log.warn(
          "kubelet.sock or our socket changed since we registered (kubelet restart); registering again",
        );
        this.registrar.forget();
      }
      this.registrar.kick(target);
    }
  }
}

function sameDevices(a: readonly Device[], b: readonly Device[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.ID !== y.ID || x.health !== y.health) return false;
    if (JSON.stringify(x.topology) !== JSON.stringify(y.topology)) return false;
  }
  return true;
}

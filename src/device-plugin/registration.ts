/** Registering with the kubelet (`Registration.Register` on kubelet.sock): one attempt, and the retrying loop. */
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import {
  API_VERSION,
  type DevicePluginOptions,
  KUBELET_SOCKET,
  loadApi,
  type RegisterRequest,
  unixAddress,
} from "./api.js";
import type { Logger } from "./log.js";
import type { PluginMetrics } from "./metrics.js";
import { fileIdentity } from "./watcher.js";

/** Exponential backoff: initial, 2×, 4×, … capped at max. `attempt` counts from 0. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number): number {
  return Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
}

/** The socket file name for a resource: `rdma/hca` → `kube-rdma-rdma_hca.sock`. */
export function socketNameFor(resource: string): string {
  return `kube-rdma-${resource.replace(/[^A-Za-z0-9._-]/g, "_")}.sock`;
}

export function registerRequest(endpoint: string, resource: string, options: DevicePluginOptions): RegisterRequest {
  return { version: API_VERSION, endpoint, resource_name: resource, options };
}

export type RegisterOutcome = { ok: true } | { ok: false; code: string; message: string };

/** One Register call on `<pluginDir>/kubelet.sock`, bounded by `timeoutMs`. Never throws. */
export function registerOnce(pluginDir: string, request: RegisterRequest, timeoutMs: number): Promise<RegisterOutcome> {
  const api = loadApi();
  const client = new api.RegistrationClient(
    unixAddress(join(pluginDir, KUBELET_SOCKET)),
    grpc.credentials.createInsecure(),
  ) as unknown as grpc.Client & {
    Register(req: RegisterRequest, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null) => void): void;
  };
  return new Promise<RegisterOutcome>((resolve) => {
    client.Register(request, { deadline: Date.now() + timeoutMs }, (err) => {
      client.close();
      if (!err) resolve({ ok: true });
      else resolve({ ok: false, code: grpc.status[err.code] ?? String(err.code), message: err.details || err.message });
    });
  });
}

/**
 * What a registration points the kubelet at: kubelet.sock's identity and our socket's, or null while either is
 * absent. The kubelet dials our endpoint as it answers, so a registration made while our socket was being removed or
 * served again is valid for neither: it must be made again once both are there.
 */
export async function registrationTarget(pluginDir: string, ownSocket: string): Promise<string | null> {
  const [kubelet, own] = await Promise.all([fileIdentity(join(pluginDir, KUBELET_SOCKET)), fileIdentity(ownSocket)]);
  return kubelet === null || own === null ? null : `${kubelet}|${own}`;
}

export type RegistrarOptions = {
  pluginDir: string;
  /** Our own socket's path, part of what a registration is valid for. */
  ownSocket: string;
  request: () => RegisterRequest;
  timeoutMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
  log: Logger;
  metrics: PluginMetrics;
};

/**
 * Keeps the plugin registered: one loop at a time that retries with exponential backoff until the kubelet accepts,
 * a log line and a metric per attempt. A kubelet.sock different from the one last tried cuts the wait short.
 */
export class Registrar {
  private registered: string | null = null;
  private attempted: string | null = null;
  private running = false;
  private stopped = false;
  private wake: (() => void) | null = null;

  constructor(private readonly opts: RegistrarOptions) {}

  /** The `registrationTarget` we are registered with, or null. */
  get registeredTo(): string | null {
    return this.registered;
  }

  /** The registration is gone (kubelet restarted, our socket was removed). */
  forget(): void {
    this.registered = null;
    this.opts.metrics.registered.set(0);
  }

  /** Starts the loop, or wakes a waiting one when the target changed since its last attempt. */
  kick(target: string | null): void {
    if (this.stopped) return;
    if (!this.running) void this.loop();
    else if (target !== this.attempted) this.wake?.();
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  private async loop(): Promise<void> {
    this.running = true;
    const kubeletSock = join(this.opts.pluginDir, KUBELET_SOCKET);
    const { log, metrics } = this.opts;
    try {
      for (let attempt = 0; !this.stopped; attempt++) {
        const target = await registrationTarget(this.opts.pluginDir, this.opts.ownSocket);
        this.attempted = target;
        const request = this.opts.request();
        const result: RegisterOutcome =
          target === null
            ? {
                ok: false,
                code: "ENOENT",
                message: `${kubeletSock} or ${this.opts.ownSocket} does not exist (kubelet not running, or our socket being served again)`,
              }
            : await registerOnce(this.opts.pluginDir, request, this.opts.timeoutMs);
        if (this.stopped) return;
        if (result.ok) {
          this.registered = target;
          metrics.registrations.inc({ result: "ok" });
          metrics.registered.set(1);
          log.info("registered with kubelet", {
            resource: request.resource_name,
            endpoint: request.endpoint,
            attempt: attempt + 1,
          });
          return;
        }
        metrics.registrations.inc({ result: "error" });
        const delay = backoffDelay(attempt, this.opts.backoffInitialMs, this.opts.backoffMaxMs);
        log.warn("registration failed; retrying", {
          attempt: attempt + 1,
          code: result.code,
          error: result.message,
          retryInMs: delay,
        });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    } finally {
      this.running = false;
    }
  }
}

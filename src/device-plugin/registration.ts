/** Registering with the kubelet (`Registration.Register` on kubelet.sock), one attempt at a time. */
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

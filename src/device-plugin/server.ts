/** The DevicePlugin gRPC server's lifecycle on its unix socket: listen, and close with a grace period. */
import { unlink } from "node:fs/promises";
import * as grpc from "@grpc/grpc-js";
import { loadApi, unixAddress } from "./api.js";

/** Serves `handlers` as the DevicePlugin service on `socketPath`, replacing a stale socket left by a previous run. */
export async function listenDevicePlugin(
  socketPath: string,
  handlers: grpc.UntypedServiceImplementation,
): Promise<grpc.Server> {
  await unlink(socketPath).catch(() => undefined); // a stale socket from a previous run blocks bind
  // Channelz keeps per-call counters and traces for a debug service this plugin does not serve; without it the
  // kubelet's Allocate tail shrinks (bench/device-plugin.bench.ts).
  const server = new grpc.Server({ "grpc.enable_channelz": 0 });
  server.addService(loadApi().devicePluginService, handlers);
  await new Promise<void>((resolve, reject) => {
    server.bindAsync(unixAddress(socketPath), grpc.ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    );
  });
  return server;
}

/** Lets calls in flight finish for up to `graceMs`, then cuts the rest (ListAndWatch streams never end by themselves). */
export function closeServer(server: grpc.Server, graceMs = 1000): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

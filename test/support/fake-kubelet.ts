/**
 * A fake kubelet for device-plugin tests: a real gRPC Registration server on `<dir>/kubelet.sock` that, like the
 * kubelet, dials the plugin's socket after a successful Register, asks for its options and keeps a ListAndWatch
 * stream open. Tests drive it through real gRPC calls only.
 */
import { readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import {
  type AllocateRequest,
  type AllocateResponse,
  type Device,
  type DevicePluginOptions,
  loadApi,
  type PreferredAllocationRequest,
  type PreferredAllocationResponse,
  type RegisterRequest,
  unixAddress,
} from "../../src/device-plugin/api.js";

type Cb<T> = (err: grpc.ServiceError | null, value?: T) => void;
/** Plugin settings for tests: the defaults of the shipped command, with intervals short enough to watch happen. */
export const TEST_PLUGIN_TIMINGS = {
  resource: "rdma/hca",
  mode: "shared",
  mad: false,
  healthIntervalMs: 100,
  refreshIntervalMs: 0,
  watchPollMs: 100,
  backoffInitialMs: 20,
  backoffMaxMs: 200,
} as const;

export type PluginClient = grpc.Client & {
  GetDevicePluginOptions(req: object, cb: Cb<DevicePluginOptions>): void;
  ListAndWatch(req: object): grpc.ClientReadableStream<{ devices: Device[] }>;
  Allocate(req: AllocateRequest, cb: Cb<AllocateResponse>): void;
  GetPreferredAllocation(req: PreferredAllocationRequest, cb: Cb<PreferredAllocationResponse>): void;
};

export function pluginClient(socketPath: string): PluginClient {
  const api = loadApi();
  return new api.DevicePluginClient(
    unixAddress(socketPath),
    grpc.credentials.createInsecure(),
  ) as unknown as PluginClient;
}

export function call<T>(fn: (cb: Cb<T>) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, v) => (err ? reject(err) : resolve(v as T))));
}

/** Polls `check` every 10 ms until it returns a value (not undefined/null/false), or rejects after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export class FakeKubelet {
  readonly registrations: RegisterRequest[] = [];
  /** Every list received on every ListAndWatch stream, in order. */
  readonly lists: Device[][] = [];
  options: DevicePluginOptions | null = null;
  client: PluginClient | null = null;
  /** When set, Register answers with this error status instead of accepting. */
  refuseWith: { code: grpc.status; details: string } | null = null;
  refused = 0;
  /**
   * When set, the next Register runs this instead of dialling the plugin after it answers. The kubelet dials from a
   * goroutine started before it answers, so a test may dial (`connect`) and act while the registration is in flight.
   */
  interceptRegister: ((endpoint: string) => Promise<void>) | null = null;
  private server: grpc.Server | null = null;
  private stream: grpc.ClientReadableStream<{ devices: Device[] }> | null = null;

  constructor(readonly dir: string) {}

  get socketPath(): string {
    return join(this.dir, "kubelet.sock");
  }

  get latest(): Device[] | undefined {
    return this.lists[this.lists.length - 1];
  }

  async start(): Promise<void> {
    const server = new grpc.Server();
    server.addService(loadApi().registrationService, {
      Register: async (call: grpc.ServerUnaryCall<RegisterRequest, object>, cb: grpc.sendUnaryData<object>) => {
        const intercept = this.interceptRegister;
        this.interceptRegister = null;
        if (intercept) await intercept(call.request.endpoint);
        if (this.refuseWith) {
          this.refused++;
          cb(this.refuseWith);
          return;
        }
        this.registrations.push(call.request);
        cb(null, {});
        if (!intercept) this.connect(call.request.endpoint).catch(() => undefined); // the plugin may be gone by then
      },
    });
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(unixAddress(this.socketPath), grpc.ServerCredentials.createInsecure(), (e) =>
        e ? reject(e) : resolve(),
      ),
    );
    this.server = server;
  }

  /** What the kubelet does after a Register: dial the endpoint, read options, open ListAndWatch. */
  async connect(endpoint: string): Promise<void> {
    this.disconnect();
    const client = pluginClient(join(this.dir, endpoint));
    this.client = client;
    this.options = await call<DevicePluginOptions>((cb) => client.GetDevicePluginOptions({}, cb));
    const stream = client.ListAndWatch({});
    this.stream = stream;
    stream.on("data", (msg: { devices: Device[] }) => this.lists.push(msg.devices));
    stream.on("error", () => undefined); // cancelled on restart
  }

  private disconnect(): void {
    this.stream?.cancel();
    this.stream = null;
    this.client?.close();
    this.client = null;
  }

  /** Stops serving and removes kubelet.sock. */
  async stop(): Promise<void> {
    this.disconnect();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((r) => server.tryShutdown(() => r()));
    await unlink(this.socketPath).catch(() => undefined);
  }

  /** A kubelet restart: stop, remove every socket in the directory (as the kubelet does), start again. */
  async restart(): Promise<void> {
    await this.stop();
    for (const f of await readdir(this.dir))
      if (f.endsWith(".sock")) await unlink(join(this.dir, f)).catch(() => undefined);
    await this.start();
  }
}

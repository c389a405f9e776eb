/**
 * Allocate latency through real gRPC on a unix socket, plugin and "kubelet" in separate processes: p50/p99 over
 * 10,000 sequential calls (target p99 < 2 ms), then 1,000 concurrent Allocates, every answer checked (devices and
 * NCCL variables). The kubelet's client is compiled Go; our stand-in for it is a native HTTP/2 client
 * (bench/native/h2-unary-client.c on libnghttp2: one connection, one call at a time, no garbage collector), so the
 * figure is the plugin's side of the call plus the socket. Where it cannot be compiled, the bare HTTP/2 client in
 * JavaScript stands in. Both are printed, with grpc-js's own client and a trivial echo service for reference.
 */
import { fork } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import type { AllocateResponse } from "../src/device-plugin/api.js";
import { type AllocateRequest, loadApi } from "../src/device-plugin/api.js";
import { DEFAULT_SELECTION } from "../src/device-plugin/config.js";
import type { Logger } from "../src/device-plugin/log.js";
import { ncclEnvDeriver } from "../src/device-plugin/node-view.js";
import { RdmaDevicePlugin } from "../src/device-plugin/plugin.js";
import { findExample } from "../src/examples/index.js";
import { materializeSnapshot } from "../src/examples/materialize.js";
import { openReader } from "../src/host/index.js";
import { readInventory } from "../src/inventory/index.js";
import { call, FakeKubelet, pluginClient, waitFor } from "../test/support/fake-kubelet.js";
import { LeanGrpcClient } from "../test/support/lean-grpc.js";
import { buildNativeClient, type NativeRun, removeNativeClient, runNativeClient } from "./native/h2-client.js";

const SEQUENTIAL = 10_000;
const CONCURRENT = 1_000;
const TARGET_P99_MS = 2;

const quiet: Logger = { info() {}, warn() {}, error() {} };

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A gRPC method that answers its request bytes: the floor of a unary call through grpc-js on this machine. */
const ECHO: grpc.MethodDefinition<Buffer, Buffer> = {
  path: "/bench.Echo/Echo",
  requestStream: false,
  responseStream: false,
  requestSerialize: (b) => b,
  requestDeserialize: (b) => b,
  responseSerialize: (b) => b,
  responseDeserialize: (b) => b,
};

function serveEcho(socket: string): Promise<void> {
  const server = new grpc.Server({ "grpc.enable_channelz": 0 }); // as the plugin serves
  server.addService(
    { Echo: ECHO },
    { Echo: (c: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => cb(null, c.request) },
  );
  return new Promise((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
}

/** The plugin side, in its own process as on a node (the kubelet is another process). */
async function serve(base: string): Promise<void> {
  const root = join(base, "host");
  const pluginDir = join(base, "device-plugins");
  const reader = await openReader({ root });
  const plugin = new RdmaDevicePlugin({
    pluginDir,
    resource: "rdma/hca",
    mode: "shared",
    sharedUnits: 1000,
    sharedHealth: "all",
    selection: DEFAULT_SELECTION,
    mad: false,
    root,
    healthIntervalMs: 2000,
    refreshIntervalMs: 0,
    watchPollMs: 1000,
    backoffInitialMs: 100,
    backoffMaxMs: 30_000,
    registerTimeoutMs: 2000,
    loadInventory: () => readInventory(reader),
    deriveEnv: ncclEnvDeriver(),
    log: quiet,
  });
  await plugin.start();
  await serveEcho(join(base, "echo.sock"));
  // The plugin's own cost per Allocate (no gRPC): the same request answered directly.
  const handler: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t0 = process.hrtime.bigint();
    plugin.allocate({ container_requests: [{ devices_ids: [`rdma-shared-${i % 1000}`] }] });
    handler.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  handler.sort((a, b) => a - b);
  process.send?.({ handlerP50: percentile(handler, 50), handlerP99: percentile(handler, 99) });
  process.on("message", () => {
    void plugin.stop().then(() => process.exit(0));
  });
}

async function main(): Promise<number> {
  const base = await mkdtemp(join(tmpdir(), "kube-rdma-bench-"));
  const root = join(base, "host");
  const pluginDir = join(base, "device-plugins");
  await mkdir(pluginDir);
  materializeSnapshot(findExample("a100-8x-roce")!.snapshot(), root);
  const kubelet = new FakeKubelet(pluginDir);
  await kubelet.start();
  const child = fork(process.argv[1]!, ["serve", base], { execArgv: ["--import", "tsx"] });
  const handler = await new Promise<{ handlerP50: number; handlerP99: number }>((resolve, reject) => {
    child.once("message", (m) => resolve(m as { handlerP50: number; handlerP99: number }));
    child.once("exit", (code) => reject(new Error(`plugin process exited with ${code}`)));
  });
  await waitFor("registration", () => kubelet.registrations[0]);
  const socket = join(pluginDir, "kube-rdma-rdma_hca.sock");
  const client = pluginClient(socket);
  const lean = new LeanGrpcClient(socket);
  const method = loadApi().devicePluginService.Allocate as grpc.MethodDefinition<AllocateRequest, AllocateResponse>;
  const expectedHca = "=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8";
  const request = (id: string) => ({ container_requests: [{ devices_ids: [id] }] });
  const allocate = (id: string) => call<AllocateResponse>((cb) => client.Allocate(request(id), cb));
  const allocateLean = (id: string) => lean.unary(method, request(id));
  const correct = (r: AllocateResponse) => {
    const c = r.container_responses[0];
    return (
      c !== undefined &&
      c.devices.length === 8 + 1 &&
      c.envs.NCCL_IB_HCA === expectedHca &&
      // Pod network (the plugin's default): the bootstrap interface is the pod's own, never the node's eth0.
      c.envs.NCCL_SOCKET_IFNAME === undefined &&
      // The default profile sets only what the node proves: NCCL's own timeout stays.
      c.envs.NCCL_IB_TIMEOUT === undefined
    );
  };
  /** 10,000 sequential calls after 500 to warm up (JIT, HTTP/2 windows): sorted latencies and wrong answers. */
  const measure = async (one: (id: string) => Promise<AllocateResponse>) => {
    for (let i = 0; i < 500; i++) await one(`rdma-shared-${i % 1000}`);
    const times: number[] = [];
    let wrong = 0;
    for (let i = 0; i < SEQUENTIAL; i++) {
      const t0 = process.hrtime.bigint();
      const r = await one(`rdma-shared-${i % 1000}`);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (!correct(r)) wrong++;
    }
    return { times: times.sort((a, b) => a - b), wrong };
  };
  const summary = (m: { times: number[]; wrong: number }) => {
    const t = m.times;
    const over = t.filter((x) => x >= TARGET_P99_MS).length;
    return (
      `p50 ${percentile(t, 50).toFixed(3)} ms   p95 ${percentile(t, 95).toFixed(3)} ms   p99 ${percentile(t, 99).toFixed(3)} ms   ` +
      `max ${t[t.length - 1]!.toFixed(1)} ms   ≥ ${TARGET_P99_MS} ms: ${over}   wrong answers ${m.wrong}`
    );
  };
  const native = buildNativeClient();
  const echoPayload = Buffer.alloc(600, 7);
  let viaEcho: { times: number[]; wrong: number };
  let viaNative: { times: number[]; wrong: number } | null = null;
  if (native.ok) {
    const echoRun = await runNativeClient(
      native.path,
      join(base, "echo.sock"),
      ECHO.path,
      [echoPayload],
      SEQUENTIAL,
      500,
    );
    viaEcho = { times: echoRun.times, wrong: 0 };
    const requests = Array.from({ length: 1000 }, (_, i) => method.requestSerialize(request(`rdma-shared-${i}`)));
    const run: NativeRun = await runNativeClient(native.path, socket, method.path, requests, SEQUENTIAL, 500);
    // Every answer is checked: the client keeps each distinct response with its count.
    const wrongBodies = run.bodies.filter((b) => {
      try {
        return !correct(method.responseDeserialize(b.message));
      } catch {
        return true;
      }
    });
    viaNative = { times: run.times, wrong: wrongBodies.reduce((n, b) => n + b.count, 0) };
    removeNativeClient(native.path);
  } else {
    const echo = new LeanGrpcClient(join(base, "echo.sock"));
    viaEcho = await measure(async () => {
      await echo.unary(ECHO, echoPayload);
      return { container_responses: [] };
    });
    echo.close();
  }
  const viaLean = await measure(allocateLean);
  const viaGrpcJs = await measure(allocate);
  const headline = viaNative ?? viaLean;
  const p99 = percentile(headline.times, 99);
  const wrong = headline.wrong + viaLean.wrong + viaGrpcJs.wrong;

  const t0 = process.hrtime.bigint();
  const answers = await Promise.allSettled(Array.from({ length: CONCURRENT }, (_, i) => allocate(`rdma-shared-${i}`)));
  const concurrentMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const answered = answers.filter((a) => a.status === "fulfilled").length;
  const concurrentCorrect = answers.filter((a) => a.status === "fulfilled" && correct(a.value)).length;

  client.close();
  lean.close();
  const exited = new Promise((r) => child.once("exit", r));
  child.send("stop");
  await exited;
  await kubelet.stop();
  await rm(base, { recursive: true, force: true });

  const seqPass = p99 < TARGET_P99_MS && wrong === 0;
  const concPass = answered === CONCURRENT && concurrentCorrect === CONCURRENT;
  const lines = [
    `Allocate, ${SEQUENTIAL} sequential calls over gRPC/unix socket (A100 RoCE example node: 8 data HCAs, NCCL envs), two processes:`,
    viaNative
      ? `  native kubelet stand-in (C, nghttp2):    ${summary(viaNative)}`
      : `  native kubelet stand-in: not built here (${native.ok ? "" : native.reason}); the JavaScript client stands in`,
    `  bare HTTP/2 client in JavaScript:        ${summary(viaLean)}`,
    `  target p99 < ${TARGET_P99_MS} ms: ${seqPass ? "PASS" : "MISS"} (${p99.toFixed(3)} ms, ${viaNative ? "native" : "JavaScript"} client)`,
    `  grpc-js JavaScript client (reference):   ${summary(viaGrpcJs)}`,
    `  trivial echo service, same client:       ${summary({ ...viaEcho, wrong: 0 })}`,
    `  the plugin's own handler (no gRPC, ${SEQUENTIAL} calls): p50 ${handler.handlerP50.toFixed(3)} ms   p99 ${handler.handlerP99.toFixed(3)} ms`,
    `  machine: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} (tails grow with contention)`,
    `Allocate, ${CONCURRENT} concurrent calls: answered ${answered}/${CONCURRENT}, correct ${concurrentCorrect}/${CONCURRENT} in ${concurrentMs.toFixed(1)} ms`,
    `  target all answered and correct: ${concPass ? "PASS" : "MISS"}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

const run = process.argv[2] === "serve" ? serve(process.argv[3]!).then(() => -1) : main();
run.then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`device-plugin bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);

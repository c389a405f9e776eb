/**
 * SIGINT and SIGTERM sent to a real `kube-rdma fleet bench` process while an API call stalls: the request in flight
 * is aborted, every MPIJob the run created is deleted, and the process exits 130 / 143 (128 + the signal's number,
 * as shells report a command a signal ended: https://www.gnu.org/software/bash/manual/html_node/Exit-Status.html).
 * The API server is the local fake, in this process; the command runs in a child, as a user starts it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { node, seedCluster } from "./support/kube/cluster-fixtures.js";
import { type FakeApi, type InterceptedRequest, startFakeApi } from "./support/kube/fake-api.js";

let api: FakeApi | undefined;
const held: ServerResponse[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const res of held.splice(0)) res.destroy();
  await api?.close();
  api = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const nodes = ["gpu-s1", "gpu-s2", "gpu-s3", "gpu-s4"].map((name) => node({ name, gpus: 8, rdma: "1k" }));

/** Starts the CLI in a child process; resolves with its exit code (or the signal that ended it) and stderr. */
function startCli(args: string[]) {
  dir = mkdtempSync(join(tmpdir(), "kube-rdma-bench-signal-"));
  const runner = join(dir, "runner.mts");
  const main = new URL("../src/cli/main.ts", import.meta.url).pathname;
  writeFileSync(
    runner,
    `import { main } from ${JSON.stringify(main)};\nprocess.exitCode = await main(${JSON.stringify(args)});\n`,
  );
  const child = spawn(process.execPath, ["--import", "tsx", runner], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (d) => {
    err += String(d);
  });
  child.stdout.resume();
  const exited = new Promise<{ code: number | NodeJS.Signals | null; err: string; ms: number }>((resolve) => {
    let signalledAt = 0;
    const kill = child.kill.bind(child);
    child.kill = (s?: NodeJS.Signals | number) => {
      signalledAt = Date.now();
      return kill(s);
    };
    child.on("exit", (c, sig) => resolve({ code: sig ?? c, err, ms: Date.now() - signalledAt }));
  });
  return { child, exited };
}

async function until(what: () => boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** An API server that never answers the requests `stall` picks (nor closes them). */
function stalling(stall: (req: InterceptedRequest) => boolean) {
  return (req: InterceptedRequest, res: ServerResponse) => {
    if (!stall(req)) return false;
    held.push(res);
    return true;
  };
}

describe("fleet bench ends on SIGINT/SIGTERM while an API call stalls", () => {
  test("SIGTERM while the poll of the run's MPIJobs stalls: the request is aborted, the created MPIJobs deleted, exit 143", async () => {
    api = await startFakeApi(seedCluster({ nodes }), {
      intercept: stalling((r) => r.method === "GET" && r.plural === "mpijobs" && !r.name),
    });
    const fake = api;
    const { child, exited } = startCli([
      "fleet",
      "bench",
      "--timeout",
      "600",
      "--poll-interval",
      "10",
      "-o",
      "json",
      "--kubeconfig",
      fake.kubeconfig,
    ]);
    await until(() => held.length > 0 && (fake.store.get("mpijobs") ?? []).length === 2);
    child.kill("SIGTERM");
    const { code, err, ms } = await exited;
    expect(code, err).toBe(143);
    expect(ms).toBeLessThan(15_000);
    expect(err).toContain("SIGTERM");
    expect(fake.store.get("mpijobs")).toEqual([]);
    expect(fake.requests.filter((r) => r.startsWith("DELETE") && r.includes("/mpijobs/")).length).toBe(2);
  }, 60_000);

  test("SIGTERM, then a clean-up DELETE that stalls: that delete ends at its own deadline, the job is named as left behind, the other deleted, exit 143", async () => {
    let stalledDelete: string | undefined;
    api = await startFakeApi(seedCluster({ nodes }), {
      intercept: stalling((r) => {
        if (r.method === "GET" && r.plural === "mpijobs" && !r.name) return true;
        if (r.method !== "DELETE" || r.plural !== "mpijobs" || !r.name) return false;
        stalledDelete ??= r.name;
        return r.name === stalledDelete;
      }),
    });
    const fake = api;
    const { child, exited } = startCli([
      "fleet",
      "bench",
      "--timeout",
      "600",
      "--poll-interval",
      "10",
      "--kubeconfig",
      fake.kubeconfig,
    ]);
    await until(() => held.length > 0 && (fake.store.get("mpijobs") ?? []).length === 2);
    child.kill("SIGTERM");
    const { code, err, ms } = await exited;
    expect(code, err).toBe(143);
    // Each clean-up request has its own 10 s deadline (the run's signal has already fired): bounded, not hung.
    expect(ms).toBeGreaterThanOrEqual(9_000);
    expect(ms).toBeLessThan(25_000);
    expect(stalledDelete).toBeDefined();
    expect(err).toContain(`could not delete ${stalledDelete}`);
    const left = (fake.store.get("mpijobs") ?? []) as { metadata?: { name?: string } }[];
    expect(left.map((j) => j.metadata?.name)).toEqual([stalledDelete]);
  }, 60_000);

  test("SIGINT while the node list stalls: nothing was created, exit 130", async () => {
    api = await startFakeApi(seedCluster({ nodes }), {
      intercept: stalling((r) => r.method === "GET" && r.plural === "nodes"),
    });
    const fake = api;
    const { child, exited } = startCli(["fleet", "bench", "--kubeconfig", fake.kubeconfig]);
    await until(() => held.length > 0);
    child.kill("SIGINT");
    const { code, err } = await exited;
    expect(code, err).toBe(130);
    expect(fake.requests.some((r) => r.startsWith("POST"))).toBe(false);
  }, 60_000);
});

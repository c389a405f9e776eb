/**
 * A stalled API server (round 4 of the hostile-input probes: `cluster` hung on a stalled server, `agent --once` on a
 * stalled status PATCH, ConfigMap or Events call, and `preflight --timeout 8` printed its result and never exited
 * while its watch stayed open). Every request, the objects client's and watches included, has a deadline
 * (`--request-timeout SECONDS`, default the API server's own 60 s: kube-apiserver --request-timeout,
 * https://kubernetes.io/docs/reference/command-line-tools-reference/kube-apiserver/), and a watch is aborted when
 * the command is done with it.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../../test/support/examples.js";
import { captureIo } from "../../../test/support/io.js";
import { node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import type { InterceptedRequest, Obj } from "../../../test/support/kube/fake-api.js";
import { fakeApiPerTest } from "../../../test/support/kube/fake-api-per-test.js";
import { AGENT_ROLE } from "../../agent/cluster-io.js";
import type { AgentSettings } from "../../agent/plan.js";
import { runOnce } from "../../agent/run.js";
import { main } from "../../cli/main.js";
import { SnapshotHostReader } from "../../host/index.js";
import { readInventory } from "../../inventory/index.js";
import { preflightConfigMapName } from "../../preflight/gang.js";
import { makeClients } from "./client.js";
import { loadKubeConfig } from "./config.js";

const fake = fakeApiPerTest();
const stalled = fake.held;

/** Accepts the requests `match` picks and never answers them (no headers, no body). */
async function stallingApi(seed: Record<string, Obj[]>, match: (r: InterceptedRequest) => boolean) {
  return fake.start(seed, {
    intercept: (req, res) => {
      if (!match(req)) return false;
      stalled.push(res);
      return true;
    },
  });
}

describe("commands against a stalled API server end within --request-timeout", () => {
  test("cluster: exit 2 'did not answer list nodes within 1 s'", async () => {
    const fake = await stallingApi(seedCluster({ nodes: [node({ name: "gpu-1", gpus: 8, rdma: "1k" })] }), (r) => {
      return r.method === "GET" && r.plural === "nodes";
    });
    const io = captureIo();
    const started = Date.now();
    expect(await main(["cluster", "--kubeconfig", fake.kubeconfig, "--request-timeout", "1"], io)).toBe(2);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(io.err).toMatch(/did not answer list nodes within 1 s; the request was abandoned/);
  });

  test("job --apply (the objects client): exit 2 naming the create that did not answer", async () => {
    const fake = await stallingApi(seedCluster(), (r) => r.method === "POST" && r.plural === "pytorchjobs");
    const io = captureIo();
    const started = Date.now();
    const args = ["job", "pytorch", "--apply", "--kubeconfig", fake.kubeconfig, "-n", "team-a"];
    expect(await main([...args, "--request-timeout", "1"], io)).toBe(2);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(io.err).toMatch(
      /did not answer create pytorchjobs\.kubeflow\.org rdma-pytorch in namespace team-a within 1 s/,
    );
  });

  test("--request-timeout 0 or junk is a usage error saying what is expected", async () => {
    const io = captureIo();
    expect(await main(["cluster", "--kubeconfig", "/nonexistent", "--request-timeout", "0"], io)).toBe(2);
    expect(io.err).toMatch(/--request-timeout must be a number of seconds above 0/);
  });
});

describe("agent --once against a stalled API server", () => {
  const settings: AgentSettings = { namespace: "kube-rdma", heartbeatSeconds: 1200, taint: null };
  const calls: [string, (r: InterceptedRequest) => boolean][] = [
    ["the status PATCH", (r) => r.method === "PATCH" && r.plural === "nodes" && r.sub === "status"],
    ["the report ConfigMap", (r) => r.method === "PUT" && r.plural === "configmaps"],
    ["the Event", (r) => r.method === "POST" && r.plural === "events"],
  ];
  test.each(calls)("%s stalls → the run fails with 'did not answer' within its deadline", async (_what, match) => {
    const fake = await stallingApi(
      {
        nodes: [{ metadata: { name: "gpu-n1" }, spec: {}, status: { conditions: [] } }],
        namespaces: [{ metadata: { name: "kube-rdma" } }],
      },
      match,
    );
    const clients = makeClients(loadKubeConfig({ kubeconfig: fake.kubeconfig, env: {} }), AGENT_ROLE, {
      requestTimeoutMs: 500,
    });
    const read = () => readInventory(new SnapshotHostReader(exampleSnapshot("port-down"), "port-down"));
    const started = Date.now();
    await expect(
      runOnce(
        { node: "gpu-n1", read, settings, withinGrace: () => false, cluster: { clients, daemonSet: "d" }, source: "t" },
        new Date("2026-12-01T00:00:00Z"),
      ),
    ).rejects.toThrow(/did not answer .* within 0\.5 s/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("preflight --timeout with a watch the server never answers", () => {
  test("the process exits at its timeout (exit 1, the gang incomplete), no socket left holding it", async () => {
    const cm = preflightConfigMapName("llama-70b");
    const fake = await stallingApi(
      { configmaps: [{ metadata: { name: cm, namespace: "team-a" }, data: {} }] },
      // The watch is the one read of the collection (the reads of the ConfigMap name it).
      (r) => r.method === "GET" && r.plural === "configmaps" && r.name === undefined,
    );
    const started = Date.now();
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        join(import.meta.dirname, "../../../test/support/run-cli.ts"),
        ...["preflight", "--job", "llama-70b", "--members", "2", "--timeout", "2"],
        ...["--example", "training-pod", "--kubeconfig", fake.kubeconfig, "-o", "json"],
      ],
      { env: { ...process.env, POD_NAME: "w-0", POD_NAMESPACE: "team-a" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    clearTimeout(killer);
    expect(code, err).toBe(1);
    expect(JSON.parse(out).findings.map((f: { code: string }) => f.code)).toEqual(["PREFLIGHT_GANG_INCOMPLETE"]);
    // Node's start and tsx take a few seconds on a loaded machine; a hang is the 60 s kill.
    expect(Date.now() - started).toBeLessThan(45_000);
  }, 90_000);
});

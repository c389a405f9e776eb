/**
 * fleet verify against an API server that misbehaves (issue 27): a pod-log stream that stalls half way is cut off
 * by the node's deadline (that node is a per-node error, the others report), Ctrl-C or SIGTERM meanwhile prints the
 * partial report and deletes every pod, and 429 Too Many Requests is waited out as Retry-After says, within bounds.
 */
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, test, vi } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { type FakeApi, type InterceptedRequest, startFakeApi } from "../../../test/support/kube/fake-api.js";
import { main } from "../../cli/main.js";
import { collectSnapshot, openReader } from "../../host/index.js";
import { MAX_RETRIES, MAX_RETRY_WAIT_MS, retryWaitMs } from "../api/retry.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

type Report = {
  nodes: { node: string; status: string }[];
  failedNodes: { node: string; reason: string }[];
  run: { podsDeleted: number; podsLeft: string[]; interrupted: boolean };
};

const NODES = ["gpu-1", "gpu-2", "gpu-3"];
let healthy: Promise<string> | undefined;
const snapshotLog = () => {
  healthy ??= openReader({ example: "a100-8x-roce" })
    .then(collectSnapshot)
    .then((s) => JSON.stringify(s));
  return healthy;
};

/** Three GPU nodes whose collectors succeed; `intercept` misbehaves on the requests it picks. */
async function cluster(intercept: (req: InterceptedRequest, res: ServerResponse, nodeOf: () => string) => boolean) {
  const log = await snapshotLog();
  const fake = await startFakeApi(seedCluster({ nodes: NODES.map((name) => node({ name, gpus: 8, rdma: "1k" })) }), {
    onPodCreated: () => ({ phase: "Succeeded", log, afterMs: 5 }),
    intercept: (req, res) => {
      const nodeOf = () =>
        fake.store.get("pods")!.find((p) => p.metadata.name === req.name)?.spec?.nodeName ?? "(unknown)";
      return intercept(req, res, nodeOf);
    },
  });
  api = fake;
  return fake;
}

/** Answers 200 and half of the log, then never another byte: a stream that stalls mid-body. */
function stallHalfway(res: ServerResponse, log: string): true {
  res.writeHead(200, { "content-type": "text/plain" });
  res.write(log.slice(0, log.length >> 1));
  return true;
}

function tooMany(res: ServerResponse, retryAfter: string | null): true {
  res.writeHead(429, {
    "content-type": "application/json",
    ...(retryAfter !== null ? { "retry-after": retryAfter } : {}),
  });
  res.end(
    JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "TooManyRequests", code: 429 }),
  );
  return true;
}

const verify = (fake: FakeApi, ...extra: string[]) => [
  "fleet",
  "verify",
  "--kubeconfig",
  fake.kubeconfig,
  "--poll-interval",
  "10",
  "-o",
  "json",
  ...extra,
];

describe("a pod-log stream that stalls mid-body", () => {
  test("the node's deadline aborts it: that node is a per-node error, the others still report, no pod is left", async () => {
    const log = await snapshotLog();
    const fake = await cluster(
      (req, res, nodeOf) => req.sub === "log" && nodeOf() === "gpu-2" && stallHalfway(res, log),
    );
    const io = captureIo();
    const started = Date.now();
    const code = await main(verify(fake, "--timeout", "2"), io);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(code).toBe(1);
    const r = JSON.parse(io.out) as Report;
    expect(r.failedNodes).toEqual([
      { node: "gpu-2", reason: "no snapshot within 2 s (its log stream did not finish in time)" },
    ]);
    expect(r.nodes.filter((n) => n.status === "pass").map((n) => n.node)).toEqual(["gpu-1", "gpu-3"]);
    expect(r.run).toMatchObject({ podsDeleted: 3, podsLeft: [], interrupted: false });
    expect(fake.store.get("pods")!.filter((p) => p.metadata.namespace === "kube-rdma")).toEqual([]);
  }, 30_000);

  test.each(["SIGINT", "SIGTERM"] as const)(
    "%s while it stalls: the partial report is printed, exit 2, every pod deleted",
    async (signal) => {
      const log = await snapshotLog();
      let stalled = false;
      const fake = await cluster((req, res, nodeOf) => {
        if (req.sub !== "log" || nodeOf() !== "gpu-2") return false;
        stalled = true;
        return stallHalfway(res, log);
      });
      const io = captureIo();
      const running = main(verify(fake, "--timeout", "60"), io);
      await vi.waitFor(() => expect(stalled).toBe(true), { timeout: 10_000, interval: 10 });
      const started = Date.now();
      process.emit(signal);
      const code = await running;
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(code).toBe(2);
      expect(io.err).toContain("interrupted; the report above is partial");
      const r = JSON.parse(io.out) as Report;
      expect(r.run.interrupted).toBe(true);
      expect(r.failedNodes).toContainEqual({ node: "gpu-2", reason: "interrupted before the collector finished" });
      expect(r.nodes.map((n) => n.node)).toEqual(NODES);
      expect(fake.store.get("pods")!.filter((p) => p.metadata.namespace === "kube-rdma")).toEqual([]);
      expect(process.listenerCount(signal)).toBe(0);
    },
    30_000,
  );
});

describe("a log the client cannot read", () => {
  test("sent as JSON that is not (with a terminal escape): that node fails, the run goes on, nothing raw on stderr", async () => {
    const fake = await cluster((req, res, nodeOf) => {
      if (req.sub !== "log" || nodeOf() !== "gpu-1") return false;
      res.writeHead(200, { "content-type": "application/json" });
      res.end("\u001b[2J{not json");
      return true;
    });
    const io = captureIo();
    expect(await main(verify(fake, "--timeout", "10"), io)).toBe(1);
    expect(io.err).not.toMatch(/[\u001b]/);
    const r = JSON.parse(io.out) as Report;
    expect(r.failedNodes).toEqual([
      {
        node: "gpu-1",
        reason: expect.stringMatching(/^could not read the collector's log \(an answer that could not be read/),
      },
    ]);
    expect(r.nodes.filter((n) => n.status === "pass").map((n) => n.node)).toEqual(["gpu-2", "gpu-3"]);
  }, 30_000);
});

describe("HTTP 429 Too Many Requests", () => {
  test("Retry-After is honoured: the first three creates wait 1 s each, then every node is verified", async () => {
    let refused = 0;
    const fake = await cluster((req, res) => {
      if (req.method !== "POST" || req.plural !== "pods" || refused >= 3) return false;
      refused++;
      return tooMany(res, "1");
    });
    const io = captureIo();
    const started = Date.now();
    expect(await main(verify(fake, "--timeout", "30"), io)).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(refused).toBe(3);
    const r = JSON.parse(io.out) as Report;
    expect(r.nodes.map((n) => n.status)).toEqual(["pass", "pass", "pass"]);
    expect(fake.requests.filter((q) => q.startsWith("POST") && q.endsWith("/pods"))).toHaveLength(6);
  }, 30_000);

  test("a server that never stops answering 429 for one node: retried at most MAX_RETRIES times, then that node fails saying so", async () => {
    let refused = 0;
    const fake = await cluster((req, res, nodeOf) => {
      if (req.method !== "GET" || req.sub !== undefined || req.plural !== "pods" || nodeOf() !== "gpu-3") return false;
      refused++;
      return tooMany(res, "0");
    });
    const io = captureIo();
    expect(await main(verify(fake, "--timeout", "30"), io)).toBe(1);
    expect(refused).toBe(MAX_RETRIES + 1);
    const r = JSON.parse(io.out) as Report;
    expect(r.failedNodes).toEqual([
      {
        node: "gpu-3",
        reason: expect.stringMatching(
          /^HTTP 429: the API server kept answering 429 Too Many Requests \(retried 5 time/,
        ),
      },
    ]);
    expect(r.run.podsLeft).toEqual([]);
  }, 30_000);

  test("the wait is bounded: Retry-After in seconds or as a date, capped; exponential backoff without one", () => {
    const err = (retryAfter?: string) => ({
      code: 429,
      headers: retryAfter === undefined ? {} : { "retry-after": retryAfter },
    });
    expect(retryWaitMs(err("2"), 0)).toBe(2000);
    expect(retryWaitMs(err("3600"), 0)).toBe(MAX_RETRY_WAIT_MS);
    const now = Date.parse("2026-12-02T10:00:00Z");
    expect(retryWaitMs(err("Wed, 02 Dec 2026 10:00:07 GMT"), 0, now)).toBe(7000);
    expect([0, 1, 2, 3, 4].map((a) => retryWaitMs(err(), a))).toEqual([500, 1000, 2000, 4000, 8000]);
    expect(retryWaitMs(err("soon"), 1)).toBe(1000);
    expect(retryWaitMs(err("-5"), 0)).toBe(500);
    expect(retryWaitMs(err("1"), MAX_RETRIES)).toBeNull();
    expect(retryWaitMs({ code: 500, headers: { "retry-after": "1" } }, 0)).toBeNull();
  });
});

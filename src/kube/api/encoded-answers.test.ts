/**
 * Answers a proxy compressed without being asked. kube-rdma sends no Accept-Encoding, yet a proxy in front of an API
 * server may still gzip (or deflate, or brotli) its answers and say so in Content-Encoding
 * (https://www.rfc-editor.org/rfc/rfc9110#section-8.4). Before the HTTP layer read Content-Encoding, `cluster` refused
 * such a node list as "JSON that is not an object"; now it inflates them, counts the inflated bytes against the cap
 * (a small answer that inflates past it is cut like any other), and names an encoding it cannot read.
 */
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { fakeApiPerTest } from "../../../test/support/kube/fake-api-per-test.js";
import { main } from "../../cli/main.js";
import { loadKubeConfig } from "./config.js";
import { watchEvents } from "./http.js";
import { MAX_RESPONSE_BYTES } from "./limits.js";

const fake = fakeApiPerTest();
const held = fake.held;

const NODE_LIST = JSON.stringify({
  kind: "NodeList",
  apiVersion: "v1",
  metadata: {},
  items: [{ metadata: { name: "gpu-7", labels: {} }, status: { allocatable: { "nvidia.com/gpu": "8" } } }],
});

const ENCODERS: [string, (b: Buffer) => Buffer][] = [
  ["gzip", (b) => gzipSync(b)],
  ["deflate", (b) => deflateSync(b)],
  ["br", (b) => brotliCompressSync(b)],
];

/** A cluster whose node list comes back encoded with `coding` (the body made by `encode`). */
function encodedNodeList(coding: string, encoded: Buffer) {
  return fake.start(seedCluster({ nodes: [node({ name: "gpu-1", gpus: 8, rdma: "1k" })] }), {
    intercept: (req, res) => {
      if (req.method !== "GET" || req.plural !== "nodes" || req.name !== undefined) return false;
      res.writeHead(200, { "content-type": "application/json", "content-encoding": coding });
      res.end(encoded);
      return true;
    },
  });
}

describe("a node list compressed by a proxy", () => {
  test.each(ENCODERS)("%s: cluster reads the nodes in it", async (coding, encode) => {
    const api = await encodedNodeList(coding, encode(Buffer.from(NODE_LIST)));
    const io = captureIo();
    await main(["cluster", "--kubeconfig", api.kubeconfig, "-o", "json"], io);
    expect(io.err).not.toMatch(/not a Kubernetes object|JSON that is not an object/);
    expect(io.out).toContain("gpu-7");
    expect(io.out).not.toContain('"gpu-1"');
  });

  test("an encoding the client cannot read → exit 2 naming it", async () => {
    const api = await encodedNodeList("compress", Buffer.from(NODE_LIST));
    const io = captureIo();
    expect(await main(["cluster", "--kubeconfig", api.kubeconfig], io)).toBe(2);
    expect(io.err).toMatch(/an encoding this client cannot read \(compress\)/);
  });

  test("gzip that is not gzip → exit 2 saying it does not inflate", async () => {
    const api = await encodedNodeList("gzip", Buffer.from(NODE_LIST));
    const io = captureIo();
    expect(await main(["cluster", "--kubeconfig", api.kubeconfig], io)).toBe(2);
    expect(io.err).toMatch(/a compressed answer that does not inflate/);
  });

  test("a small gzip answer that inflates past the cap is cut at the cap", async () => {
    // ~65 MiB of spaces inside a JSON object compress to ~64 KiB.
    const bomb = gzipSync(
      Buffer.concat([
        Buffer.from('{"kind":"NodeList","items":[],"x":"'),
        Buffer.alloc(MAX_RESPONSE_BYTES + 1024, " "),
        Buffer.from('"}'),
      ]),
    );
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const api = await encodedNodeList("gzip", bomb);
    const io = captureIo();
    expect(await main(["cluster", "--kubeconfig", api.kubeconfig], io)).toBe(2);
    expect(io.err).toMatch(/answered list nodes with more than 64 MiB; the answer was cut there and not used/);
  }, 60_000);
});

describe("a watch compressed by a proxy", () => {
  test("gzip'd event lines arrive as events", async () => {
    const api = await fake.start(
      {},
      {
        intercept: (req, res) => {
          if (req.plural !== "configmaps") return false;
          held.push(res);
          res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
          res.end(
            gzipSync(
              '{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}\n' +
                '{"type":"DELETED","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}\n',
            ),
          );
          return true;
        },
      },
    );
    const kc = loadKubeConfig({ kubeconfig: api.kubeconfig, env: {} }).kc;
    const types: string[] = [];
    const stop = new AbortController();
    const guard = setTimeout(() => stop.abort(), 30_000);
    await watchEvents(kc, "/api/v1/namespaces/team-a/configmaps", {}, stop.signal, (e) => types.push(e.type));
    clearTimeout(guard);
    expect(stop.signal.aborted).toBe(false);
    expect(types).toEqual(["ADDED", "DELETED"]);
  });
});

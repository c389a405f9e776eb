/**
 * The HTTP layer checks every successful answer before any caller uses it: the API server answers with JSON objects
 * (`application/json`, each with its `kind`: https://kubernetes.io/docs/reference/using-api/api-concepts/) and pod
 * logs as text (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#read-log-of-the-specified-pod).
 * An HTML login page of a proxy, a bare JSON string or an answer without a content type is refused for every
 * command (before this layer only the agent's calls checked, and `cluster` read an HTML page as "cannot reach").
 * And a watch's event line is capped like any answer: a line without end closes the watch.
 */
import { describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { fakeApiPerTest } from "../../../test/support/kube/fake-api-per-test.js";

import { main } from "../../cli/main.js";
import { loadKubeConfig } from "./config.js";
import { answerDefect, capFor, isCollectionPath, listDefect, watchEvents } from "./http.js";
import { DEFAULT_CAPS, MAX_LOG_RESPONSE_BYTES, MAX_RESPONSE_BYTES, MAX_WATCH_EVENT_BYTES } from "./limits.js";

const fake = fakeApiPerTest();
const held = fake.held;

const NODES = new URL("https://api:6443/api/v1/nodes");
const LOG = new URL("https://api:6443/api/v1/namespaces/kube-rdma/pods/collect-gpu-1/log?container=collect");
const body = (s: string) => Buffer.from(s);

describe("answerDefect: what a successful answer must be", () => {
  test("a JSON object passes, with or without charset and leading whitespace", () => {
    expect(answerDefect(NODES, "application/json", body('{"kind":"NodeList","items":[]}'))).toBeNull();
    expect(answerDefect(NODES, "application/json; charset=utf-8", body('\n {"kind":"Node"}'))).toBeNull();
  });
  test("an HTML page, another type, no type, an empty body or a JSON non-object is refused, saying which", () => {
    expect(answerDefect(NODES, "text/html; charset=utf-8", body("<html>Sign in</html>"))).toBe(
      "an HTML page (text/html)",
    );
    expect(answerDefect(NODES, "text/plain", body("ok"))).toBe("text/plain content");
    expect(answerDefect(NODES, undefined, body("{}"))).toBe("an answer with no content type");
    expect(answerDefect(NODES, "application/json", body("  "))).toBe("an empty answer");
    expect(answerDefect(NODES, "application/json", body('"ok"'))).toBe('JSON that is not an object ("\\"ok\\"")');
    expect(answerDefect(NODES, "application/json", body("[1]"))).toMatch(/^JSON that is not an object/);
  });
  test("a pod log is text of any type, but not an HTML page", () => {
    expect(answerDefect(LOG, "text/plain", body("{ snapshot }"))).toBeNull();
    expect(answerDefect(LOG, undefined, body(""))).toBeNull();
    expect(answerDefect(LOG, "text/html", body("<html>"))).toBe("an HTML page (text/html)");
  });
});

describe("lists: a GET of a collection must answer with items", () => {
  test("collection paths, core and grouped, cluster-wide and namespaced; objects, subresources and discovery are not", () => {
    for (const p of [
      "/api/v1/nodes",
      "/api/v1/namespaces",
      "/api/v1/namespaces/team-a/pods",
      "/apis/apps/v1/daemonsets",
      "/apis/kubeflow.org/v2beta1/namespaces/team-a/mpijobs",
    ])
      expect(isCollectionPath(p), p).toBe(true);
    for (const p of [
      "/api/v1/nodes/gpu-1",
      "/api/v1/nodes/gpu-1/status",
      "/api/v1/namespaces/team-a",
      "/api/v1/namespaces/team-a/pods/p/log",
      "/apis/apps/v1",
      "/api/v1",
      "/version",
    ])
      expect(isCollectionPath(p), p).toBe(false);
  });
  test("a list with items passes; {}, a Status, items that are not an array of objects do not", () => {
    expect(listDefect(body('{"kind":"NodeList","items":[{"metadata":{}}]}'))).toBeNull();
    expect(listDefect(body('{"kind":"NodeList","items":[]}'))).toBeNull();
    expect(listDefect(body("{}"))).toBe("an object with no list of items");
    expect(listDefect(body('{"kind":"Status","status":"Success"}'))).toBe(
      'an object with no list of items (kind "Status")',
    );
    expect(listDefect(body('{"kind":"NodeList","items":"x"}'))).toMatch(/no list of items/);
    expect(listDefect(body('{"kind":"NodeList","items":[1,null]}'))).toMatch(/items are not all objects/);
  });
  // Before this check, `cluster` and `fleet verify` crashed with a TypeError on these answers.
  test.each(["{}", '{"kind":"Status","apiVersion":"v1","status":"Success"}', '{"kind":"NodeList","items":"x"}'])(
    "cluster and fleet verify on the node list %s → exit 2 naming the request, no crash",
    async (text) => {
      const api = await fake.start(seedCluster({ nodes: [node({ name: "gpu-1", gpus: 8, rdma: "1k" })] }), {
        intercept: (req, res) => {
          if (req.method !== "GET" || req.plural !== "nodes" || req.name !== undefined) return false;
          res.writeHead(200, { "content-type": "application/json" });
          res.end(text);
          return true;
        },
      });
      for (const cmd of [["cluster"], ["fleet", "verify"]]) {
        const io = captureIo();
        expect(await main([...cmd, "--kubeconfig", api.kubeconfig], io), cmd.join(" ")).toBe(2);
        expect(io.err).toMatch(/answered list nodes with an object with no list of items|items are not all objects/);
      }
    },
  );
});

describe("capFor: the cap on each answer", () => {
  test("objects and lists: the response cap; logs: limitBytes when the request sets it, else the log cap", () => {
    expect(capFor(NODES, DEFAULT_CAPS)).toBe(MAX_RESPONSE_BYTES);
    expect(capFor(LOG, DEFAULT_CAPS)).toBe(MAX_LOG_RESPONSE_BYTES);
    const limited = new URL(`${LOG.toString()}&limitBytes=1000`);
    expect(capFor(limited, DEFAULT_CAPS)).toBe(1000);
    expect(capFor(new URL(`${LOG.toString()}&limitBytes=junk`), DEFAULT_CAPS)).toBe(MAX_LOG_RESPONSE_BYTES);
  });
});

describe("cluster against answers that are not Kubernetes objects", () => {
  const answers: [string, string, string, RegExp][] = [
    ["an HTML login page", "text/html", "<!doctype html><title>Sign in</title>", /with an HTML page \(text\/html\)/],
    ["a bare JSON string", "application/json", '"ok"', /with JSON that is not an object/],
  ];
  test.each(answers)("%s for the node list → exit 2 naming the request and what came", async (_w, type, text, re) => {
    const api = await fake.start(seedCluster({ nodes: [node({ name: "gpu-1", gpus: 8, rdma: "1k" })] }), {
      intercept: (req, res) => {
        if (req.method !== "GET" || req.plural !== "nodes" || req.name !== undefined) return false;
        res.writeHead(200, { "content-type": type });
        res.end(text);
        return true;
      },
    });
    const io = captureIo();
    expect(await main(["cluster", "--kubeconfig", api.kubeconfig], io)).toBe(2);
    expect(io.err).toMatch(/answered list nodes /);
    expect(io.err).toMatch(re);
    expect(io.err).toMatch(/where a Kubernetes object was expected/);
    expect(io.err).not.toMatch(/cannot reach/);
  });
});

describe("a watch", () => {
  test("an event line without end is cut at MAX_WATCH_EVENT_BYTES: the watch ends, no event is made up", async () => {
    let sent = 0;
    const api = await fake.start(
      {},
      {
        intercept: (req, res) => {
          if (req.plural !== "configmaps") return false;
          held.push(res);
          res.writeHead(200, { "content-type": "application/json" });
          const chunk = Buffer.alloc(64 * 1024, "a");
          const pump = () => {
            while (!res.destroyed) {
              sent += chunk.length;
              if (!res.write(chunk)) return void res.once("drain", pump);
            }
          };
          res.write('{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"');
          pump();
          return true;
        },
      },
    );
    const kc = loadKubeConfig({ kubeconfig: api.kubeconfig, env: {} }).kc;
    const events: unknown[] = [];
    const stop = new AbortController();
    const guard = setTimeout(() => stop.abort(), 30_000);
    await watchEvents(kc, "/api/v1/namespaces/team-a/configmaps", {}, stop.signal, (e) => events.push(e));
    clearTimeout(guard);
    expect(stop.signal.aborted).toBe(false); // it ended at the cap, not at the guard
    expect(events).toEqual([]);
    expect(sent).toBeLessThan(MAX_WATCH_EVENT_BYTES + 16 * 2 ** 20);
  }, 60_000);

  test("events arrive one per line; an abort ends the watch at once", async () => {
    const api = await fake.start(
      {},
      {
        intercept: (req, res) => {
          if (req.plural !== "configmaps") return false;
          held.push(res);
          res.writeHead(200, { "content-type": "application/json" });
          res.write('{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}\n');
          res.write('not json\n{"type":"MODIFIED","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}\n');
          return true;
        },
      },
    );
    const kc = loadKubeConfig({ kubeconfig: api.kubeconfig, env: {} }).kc;
    const stop = new AbortController();
    const types: string[] = [];
    await watchEvents(kc, "/api/v1/namespaces/team-a/configmaps", {}, stop.signal, (e) => {
      types.push(e.type);
      if (types.length === 2) stop.abort();
    });
    expect(types).toEqual(["ADDED", "MODIFIED"]);
  });
});

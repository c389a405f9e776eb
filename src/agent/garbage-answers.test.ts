/**
 * `agent --once` against an API server (or a proxy in front of it) that answers with an HTML page or garbage: the
 * status PATCH, the ConfigMap and the Event must be Kubernetes objects of the kind asked for (the API server answers
 * `application/json` objects with `kind` and `apiVersion`:
 * https://kubernetes.io/docs/reference/using-api/api-concepts/), else the run fails (exit 2), never "wrote the
 * RDMAReady condition".
 */
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { type FakeApi, type InterceptedRequest, startFakeApi } from "../../test/support/kube/fake-api.js";
import { SnapshotHostReader } from "../host/index.js";
import { readInventory } from "../inventory/index.js";
import { makeClients } from "../kube/api/client.js";
import { loadKubeConfig } from "../kube/api/config.js";
import { AGENT_ROLE } from "./cluster-io.js";
import type { AgentSettings } from "./plan.js";
import { runOnce } from "./run.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const ANSWERS: [string, string, string][] = [
  ["an HTML login page", "text/html", "<!doctype html><html><body>Sign in</body></html>"],
  ["JSON of another kind", "application/json", JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Success" })],
  ["a bare JSON string", "application/json", JSON.stringify("ok")],
  ["an empty JSON object", "application/json", "{}"],
];

const settings: AgentSettings = { namespace: "kube-rdma", heartbeatSeconds: 1200, taint: null };

async function runAgainst(match: (r: InterceptedRequest) => boolean, type: string, body: string) {
  api = await startFakeApi(
    {
      nodes: [{ metadata: { name: "gpu-n1" }, spec: {}, status: { conditions: [] } }],
      namespaces: [{ metadata: { name: "kube-rdma" } }],
    },
    {
      intercept: (req: InterceptedRequest, res: ServerResponse) => {
        if (!match(req)) return false;
        res.writeHead(200, { "content-type": type });
        res.end(body);
        return true;
      },
    },
  );
  const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig, env: {} }), AGENT_ROLE);
  const read = () => readInventory(new SnapshotHostReader(exampleSnapshot("port-down"), "port-down"));
  return runOnce(
    { node: "gpu-n1", read, settings, withinGrace: () => false, cluster: { clients, daemonSet: "d" }, source: "t" },
    new Date("2026-12-01T00:00:00Z"),
  );
}

describe("agent --once on answers that are not the Kubernetes object asked for", () => {
  test.each(ANSWERS)("the status PATCH answered with %s → a clear error, not success", async (_what, type, body) => {
    await expect(
      runAgainst((r) => r.method === "PATCH" && r.plural === "nodes" && r.sub === "status", type, body),
    ).rejects.toThrow(/where a Kubernetes Node was expected/);
  });
  test.each(ANSWERS)("the report ConfigMap answered with %s → a clear error", async (_what, type, body) => {
    await expect(runAgainst((r) => r.method === "PUT" && r.plural === "configmaps", type, body)).rejects.toThrow(
      /where a Kubernetes ConfigMap was expected/,
    );
  });
  test.each(ANSWERS)("the Event answered with %s → a clear error", async (_what, type, body) => {
    await expect(runAgainst((r) => r.method === "POST" && r.plural === "events", type, body)).rejects.toThrow(
      /where a Kubernetes Event was expected/,
    );
  });
});

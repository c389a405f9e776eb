/**
 * Every request of the typed clients carries a deadline: an API server (or a proxy in front of it) that accepts the
 * connection and never answers ends in a clear exit-2 error naming the request, not a command that hangs for ever.
 * kube-apiserver itself bounds a request at 60 s (--request-timeout,
 * https://kubernetes.io/docs/reference/command-line-tools-reference/kube-apiserver/).
 */
import { describe, expect, test } from "vitest";
import { fakeApiPerTest } from "../../../test/support/kube/fake-api-per-test.js";

import { makeClients, REQUEST_TIMEOUT_MS } from "./client.js";
import { loadKubeConfig } from "./config.js";
import { readClusterObjects } from "./read-cluster.js";

const fake = fakeApiPerTest();
const stalled = fake.held;

describe("a stalled API server", () => {
  test("cluster's reads end with 'did not answer … within', well within the deadline's reach", async () => {
    const api = await fake.start(
      { nodes: [{ metadata: { name: "n1" } }] },
      {
        // Accepts every list of nodes and never answers (headers nor body).
        intercept: (req, res) => {
          if (req.plural !== "nodes") return false;
          stalled.push(res);
          return true;
        },
      },
    );
    const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig, env: {} }), "kube-rdma-cluster-reader", {
      requestTimeoutMs: 400,
    });
    const started = Date.now();
    await expect(readClusterObjects(clients)).rejects.toThrow(/did not answer list nodes within 0\.4 s/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test("the default deadline is the API server's own request timeout", () => {
    expect(REQUEST_TIMEOUT_MS).toBe(60_000);
  });
});

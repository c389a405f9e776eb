import { getEventListeners } from "node:events";
import { afterEach, describe, expect, test } from "vitest";
import { node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { type FakeApi, startFakeApi } from "../../../test/support/kube/fake-api.js";
import { makeClients } from "../api/client.js";
import { loadKubeConfig } from "../api/config.js";
import { collectFleet, FLEET_ROLE, pollSleep, snapshotFromLog } from "./run.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("fleet: a long run does not pile up abort listeners", () => {
  test("500 polls on one signal leave no abort listener behind", async () => {
    const signal = new AbortController().signal;
    for (let i = 0; i < 500; i++) await pollSleep(0, signal);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  test("an abort during a poll still wakes it at once", async () => {
    const c = new AbortController();
    const t0 = Date.now();
    setTimeout(() => c.abort(), 10);
    await pollSleep(60_000, c.signal);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(getEventListeners(c.signal, "abort")).toHaveLength(0);
  });

  test("a pod that stays Pending for many polls: no MaxListeners warning, the caller's signal is left clean", async () => {
    const nodes = [node({ name: "gpu-1", gpus: 8, rdma: "1k" }), node({ name: "gpu-2", gpus: 8, rdma: "1k" })];
    api = await startFakeApi({ ...seedCluster({ nodes }) }, { onPodCreated: () => undefined });
    const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig }), FLEET_ROLE);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    const caller = new AbortController();
    try {
      const run = await collectFleet(clients, {
        nodes: ["gpu-1", "gpu-2"],
        namespace: "kube-rdma",
        image: "kube-rdma:test",
        runId: "listeners",
        timeoutMs: 600,
        pollMs: 1,
        concurrency: 2,
        signal: caller.signal,
        handle: snapshotFromLog,
      });
      expect(run.outcomes.every((o) => !o.ok && /no snapshot within/.test(o.reason))).toBe(true);
    } finally {
      process.off("warning", onWarning);
    }
    const polls = api.requests.filter((r) => /^GET .*\/pods\/kr-collect[^/]*$/.test(r)).length;
    expect(polls).toBeGreaterThan(20);
    expect(warnings.filter((w) => /MaxListeners|memory leak/i.test(w))).toEqual([]);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });
});

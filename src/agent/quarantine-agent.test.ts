import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { type FakeApi, startFakeApi } from "../../test/support/kube/fake-api.js";
import { readQuarantine } from "../device-plugin/quarantine.js";
import { SnapshotHostReader } from "../host/index.js";
import { readInventory } from "../inventory/index.js";
import { makeClients } from "../kube/api/client.js";
import { loadKubeConfig } from "../kube/api/config.js";
import { AGENT_ROLE } from "./cluster-io.js";
import { createAgentMetrics } from "./metrics.js";
import type { AgentSettings } from "./plan.js";
import { QUARANTINED_REASON, RELEASED_REASON } from "./quarantine-step.js";
import { AgentApiError, runOnce } from "./run.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const settings: AgentSettings = { namespace: "kube-rdma", heartbeatSeconds: 1200, taint: null };
const at = (min: number) => new Date(Date.parse("2026-12-01T00:00:00Z") + min * 60_000);

/** An API server that can go away: while `down`, every resource request is answered 503, as by a dead apiserver's LB. */
async function cluster() {
  const outage = { down: false };
  const api: FakeApi = await startFakeApi(
    {
      nodes: [{ metadata: { name: "gpu-n1" }, spec: {}, status: { conditions: [] } }],
      namespaces: [{ metadata: { name: "kube-rdma" } }],
    },
    {
      intercept: (_req, res) => {
        if (!outage.down) return false;
        res.writeHead(503, { "content-type": "text/plain" });
        res.end("upstream connect error");
        return true;
      },
    },
  );
  cleanups.push(() => api.close());
  const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig, env: {} }), AGENT_ROLE);
  return { api, outage, c: { clients, daemonSet: "kube-rdma-agent" } };
}

function host(initial: string) {
  let current = initial;
  return {
    set: (name: string) => {
      current = name;
    },
    read: () => readInventory(new SnapshotHostReader(exampleSnapshot(current), current)),
  };
}

async function quarantineFile() {
  const dir = await mkdtemp(join(tmpdir(), "kube-rdma-agent-q-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, "quarantine.json");
}

describe("the agent's quarantine holds without the API server", () => {
  test("an API outage longer than --quarantine-max-age keeps the broken HCA quarantined; a healthy run releases it", async () => {
    const { api, outage, c } = await cluster();
    const file = await quarantineFile();
    const h = host("port-down");
    const metrics = createAgentMetrics();
    const input = { node: "gpu-n1", read: h.read, settings, withinGrace: () => false, cluster: c, source: "test" };
    const first = await runOnce({ ...input, quarantineFile: file }, at(0));
    metrics.record(first, 0.1);
    expect(first.quarantineStep.quarantined).toEqual(["mlx5_3"]);
    const events = () => api.store.get("events")!.map((e) => `${e.type} ${e.reason}`);
    expect(events()).toContain(`Warning ${QUARANTINED_REASON}`);

    // The plugin's max age is 1800 s; the outage lasts 70 minutes, with a run every 35.
    outage.down = true;
    let quarantined = first.quarantined;
    for (const minute of [35, 70]) {
      const err = await runOnce({ ...input, quarantineFile: file, quarantined }, at(minute)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AgentApiError);
      quarantined = (err as AgentApiError).quarantined;
      metrics.failed((err as AgentApiError).quarantineStep, 0.1);
    }
    const read = readQuarantine(await readFile(file, "utf8"), new Date(at(70).getTime() + 60_000), 1800);
    expect(read).toMatchObject({ ok: true });
    expect(read.ok && [...read.byHca.keys()]).toEqual(["mlx5_3"]);

    // Still down, the checks cannot run (the host read fails): the quarantine is kept, its time refreshed.
    const blind = await runOnce(
      { ...input, read: () => Promise.reject(new Error("EIO")), quarantineFile: file, quarantined },
      at(105),
    ).catch((e: unknown) => e as AgentApiError);
    quarantined = blind.quarantined;
    expect(readQuarantine(await readFile(file, "utf8"), at(106), 1800)).toMatchObject({ ok: true });

    outage.down = false;
    h.set("a100-8x-roce");
    const healed = await runOnce({ ...input, quarantineFile: file, quarantined }, at(140));
    metrics.record(healed, 0.1);
    expect(healed.quarantineStep.released).toEqual(["mlx5_3"]);
    const after = readQuarantine(await readFile(file, "utf8"), at(141), 1800);
    expect(after.ok && after.byHca.size).toBe(0);
    expect(events()).toContain(`Normal ${RELEASED_REASON}`);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^kube_rdma_hca_quarantines_total\{hca="mlx5_3"\} 1$/m);
    expect(text).toMatch(/^kube_rdma_hca_releases_total\{hca="mlx5_3"\} 1$/m);
    expect(text).toMatch(/^kube_rdma_hca_quarantined\{hca="mlx5_3"\} 0$/m);
    expect(text).toMatch(/^kube_rdma_agent_run_failures_total\{stage="api"\} 2$/m);
  });

  test("within the start-up grace the file is not written (the condition says Unknown, errors are not yet a verdict)", async () => {
    const { c } = await cluster();
    const file = await quarantineFile();
    const h = host("port-down");
    const r = await runOnce(
      {
        node: "gpu-n1",
        read: h.read,
        settings,
        withinGrace: () => true,
        cluster: c,
        source: "test",
        quarantineFile: file,
      },
      at(0),
    );
    expect(r.plan.condition.status).toBe("Unknown");
    await expect(stat(file)).rejects.toMatchObject({ code: "ENOENT" });
  });

  test("a restarted agent reads the file an earlier process left, and releases what is healthy now", async () => {
    const { c } = await cluster();
    const file = await quarantineFile();
    const input = {
      node: "gpu-n1",
      settings,
      withinGrace: () => false,
      cluster: c,
      source: "test",
      quarantineFile: file,
    };
    await runOnce({ ...input, read: host("port-down").read }, at(0));
    const fresh = await runOnce({ ...input, read: host("a100-8x-roce").read }, at(5));
    expect(fresh.quarantineStep.released).toEqual(["mlx5_3"]);
  });
});

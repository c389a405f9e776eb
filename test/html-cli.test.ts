import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { collectSnapshot, openReader } from "../src/host/index.js";
import { captureIo } from "./support/io.js";
import { node, seedCluster } from "./support/kube/cluster-fixtures.js";
import { startFakeApi } from "./support/kube/fake-api.js";

describe("-o html from the command line", () => {
  test("fleet verify -o html over 4 nodes, one at half rate: the node × check matrix and the odd node's finding", async () => {
    const seed = await collectSnapshot(await openReader({ example: "a100-8x-roce" }));
    const half = await collectSnapshot(await openReader({ example: "half-rate" }));
    const names = ["gpu-01", "gpu-02", "gpu-03", "gpu-13"];
    const api = await startFakeApi(seedCluster({ nodes: names.map((name) => node({ name, gpus: 8, rdma: "1k" })) }), {
      onPodCreated: (pod) => {
        const host = pod.spec.nodeName as string;
        return { phase: "Succeeded", log: JSON.stringify({ ...(host === "gpu-13" ? half : seed), host }) };
      },
    });
    try {
      const io = captureIo();
      const code = await main(
        ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5", "-o", "html"],
        io,
      );
      expect(code).toBe(1);
      expect(io.out).toMatch(/^<!doctype html>/);
      expect(io.out).toContain("<title>kube-rdma fleet verify: 4 nodes</title>");
      expect(io.out).toMatch(/<svg class="chart matrix fleet"[^>]* data-rows="4"/);
      expect(io.out).toContain('data-code="FLEET_PORT_RATES_DIFFER"');
      expect(io.out).toContain("gpu-13, data port rates: gpu-13: data port rates is 7×200 Gb/s, 1×100 Gb/s");
    } finally {
      await api.close();
    }
  }, 60_000);

  test("a report without a page says which formats it has (exit 2)", async () => {
    const io = captureIo();
    expect(await main(["bench", "job", "-o", "html"], io)).toBe(2);
    expect(io.err).toContain("kube-rdma bench: the bench job report has no html format.");
    expect(io.err).toContain("Use -o text, -o json, -o yaml.");
    expect(io.out).toBe("");
  });
});

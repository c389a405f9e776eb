import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { collectSnapshot, openReader } from "../src/host/index.js";
import { captureIo } from "./support/io.js";
import { node, seedCluster } from "./support/kube/cluster-fixtures.js";
import { startFakeApi } from "./support/kube/fake-api.js";

describe("naming the nodes of a fleet run", () => {
  test("fleet verify --node gpu-01 --node gpu-01,gpu-01: one collector pod, one node verified (it made three pods with one name: HTTP 409, 0/3 verified)", async () => {
    const seed = await collectSnapshot(await openReader({ example: "a100-8x-roce" }));
    const api = await startFakeApi(
      seedCluster({ nodes: ["gpu-01", "gpu-02"].map((name) => node({ name, gpus: 8, rdma: "1k" })) }),
      { onPodCreated: (pod) => ({ phase: "Succeeded", log: JSON.stringify({ ...seed, host: pod.spec.nodeName }) }) },
    );
    try {
      const io = captureIo();
      const argv = ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5", "-o", "json"];
      expect(await main([...argv, "--node", "gpu-01", "--node", "gpu-01,gpu-01"], io)).toBe(0);
      const report = JSON.parse(io.out) as { nodes: { node: string; status: string }[] };
      expect(report.nodes).toEqual([expect.objectContaining({ node: "gpu-01", status: "pass" })]);
      expect(api.requests.filter((r) => r.startsWith("POST") && r.includes("/pods"))).toHaveLength(1);
    } finally {
      await api.close();
    }
  }, 60_000);

  test("fleet bench --dry-run --node gpu-01,gpu-01 is one node, too few for a pair (it printed an MPIJob pairing gpu-01 with itself)", async () => {
    const io = captureIo();
    expect(await main(["fleet", "bench", "--dry-run", "--node", "gpu-01,gpu-01"], io)).toBe(2);
    expect(io.err).toContain("fleet bench needs at least 2 nodes; 1 selected.");
    expect(io.out).toBe("");
  });

  test('--node "$NODE" with NODE unset (an empty value) is refused, not read as "every GPU + RDMA node"', async () => {
    const io = captureIo();
    expect(await main(["fleet", "verify", "--node", ""], io)).toBe(2);
    expect(io.err).toContain("--node was given an empty value; expected NAME (repeatable or comma-separated).");
    const hcas = captureIo();
    expect(await main(["nccl-env", "--example", "a100-8x-roce", "--hcas", ","], hcas)).toBe(2);
    expect(hcas.err).toContain("--hcas was given an empty value");
  });
});

describe("how often a fleet run polls the API server", () => {
  test("--poll-interval 0, -5 or 1e10 (a timer that long fires after 1 ms) is refused before any pod exists: each polled the API server in a tight loop", async () => {
    for (const argv of [
      ["fleet", "verify", "--node", "gpu-01", "--poll-interval", "0"],
      ["fleet", "bench", "--node", "gpu-01,gpu-02", "--poll-interval", "-5"],
      ["job", "pytorch", "--env-from-node", "gpu-01", "--poll-interval", "1e10"],
    ]) {
      const io = captureIo();
      expect(await main(argv, io), argv.join(" ")).toBe(2);
      expect(io.err).toMatch(
        /--poll-interval expects milliseconds from 1 to 60000 \(default 1000\); got (0|-5|10000000000)\./,
      );
      expect(io.out).toBe("");
    }
  });
});

describe("how many threads analyse a fleet's snapshots", () => {
  test("--analysis-threads 1e6 (a million worker threads), -1 or 2.5 is refused before any pod exists", async () => {
    for (const n of ["1e6", "-1", "2.5"]) {
      const io = captureIo();
      expect(await main(["fleet", "verify", "--node", "gpu-01", "--analysis-threads", n], io), n).toBe(2);
      expect(io.err).toContain("--analysis-threads expects a whole number from 0 (analyse in this thread) to 64; got");
    }
  });
});

import { describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { type Obj, startFakeApi } from "../../../test/support/kube/fake-api.js";
import { main } from "../../cli/main.js";
import { collectSnapshot, openReader } from "../../host/index.js";

type Report = {
  run: { podsDeleted: number; podsLeft: string[] };
  nodes: { node: string; status: string; findings: { code: string; subject: string; message: string }[] }[];
  failedNodes: { node: string; reason: string }[];
  findings: { code: string; subject: string; severity: string; message: string; fix: string }[];
};

const names = Array.from({ length: 50 }, (_, i) => `gpu-${String(i + 1).padStart(2, "0")}`);

describe("fleet verify when some collectors write damaged snapshots", () => {
  test("50 nodes, 5 damaged (wrong types deep inside, a 2^31 range, not JSON) → 45 analysed, 5 SNAPSHOT_INVALID with the path, exit 1, no pod left", async () => {
    const healthy = await collectSnapshot(await openReader({ example: "a100-8x-roce" }));
    const json = (host: string, patch: (s: Obj) => void = () => {}) => {
      const s = structuredClone(healthy) as Obj;
      s.host = host;
      patch(s);
      return JSON.stringify(s);
    };
    const damaged: Record<string, { log: string; path: string }> = {
      "gpu-04": { log: json("gpu-04", (s) => (s.dirs["/sys/class/infiniband"] = 5)), path: "$.dirs" },
      "gpu-11": {
        log: json("gpu-11", (s) => (s.commands["ofed_info -s"].stdout = 5)),
        path: '$.commands["ofed_info -s"].stdout',
      },
      "gpu-19": { log: json("gpu-19", (s) => (s.errors["/sys/x"] = null)), path: '$.errors["/sys/x"]' },
      "gpu-27": {
        log: json("gpu-27", (s) => (s.dirRuns[Object.keys(s.dirRuns)[0]!].to = 2 ** 31)),
        path: "$.dirRuns",
      },
      "gpu-36": { log: json("gpu-36").slice(0, 5000), path: "$" },
    };
    const api = await startFakeApi(seedCluster({ nodes: names.map((name) => node({ name, gpus: 8, rdma: "1k" })) }), {
      onPodCreated: (pod) => ({
        phase: "Succeeded",
        log: damaged[pod.spec.nodeName]?.log ?? json(pod.spec.nodeName),
        afterMs: 5,
      }),
    });
    try {
      const io = captureIo();
      const args = ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--timeout", "20", "--poll-interval", "10"];
      const code = await main([...args, "-o", "json"], io);
      expect(io.err).not.toMatch(/internal error|at .*\.ts:\d+/);
      const r = JSON.parse(io.out) as Report;
      expect(code).toBe(1);

      const analysed = r.nodes.filter((n) => n.status !== "not-verified");
      expect(analysed).toHaveLength(45);
      expect(analysed.every((n) => n.status === "pass")).toBe(true);

      const invalid = r.findings.filter((f) => f.code === "SNAPSHOT_INVALID");
      expect(invalid.map((f) => f.subject).sort()).toEqual(Object.keys(damaged).sort());
      for (const f of invalid) {
        expect(f.severity).toBe("error");
        const path = damaged[f.subject]!.path;
        // A log cut short has no bad value to point at: the fix says the log is not one whole snapshot.
        expect(f.fix).toContain(path === "$" ? "The collector's log is not one whole snapshot" : path);
      }
      expect(invalid.find((f) => f.subject === "gpu-27")!.message).toMatch(/\.to: out of range \(at most 4095\)/);
      expect(invalid.find((f) => f.subject === "gpu-36")!.message).toMatch(
        /\$: the log ends mid-snapshot after 5000 bytes/,
      );
      expect(r.failedNodes.map((f) => f.node).sort()).toEqual(Object.keys(damaged).sort());

      expect(r.run).toMatchObject({ podsDeleted: 50, podsLeft: [] });
      expect(api.store.get("pods")!.filter((p) => p.metadata.namespace === "kube-rdma")).toEqual([]);
    } finally {
      await api.close();
    }
  }, 300_000);
});

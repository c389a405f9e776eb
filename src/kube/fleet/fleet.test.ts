import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { type Obj, startFakeApi } from "../../../test/support/kube/fake-api.js";
import { seedInventory } from "../../checks/testing/seed-inventory.js";
import { main } from "../../cli/main.js";
import { collectSnapshot, openReader } from "../../host/index.js";
import type { Snapshot } from "../../host/types.js";
import { attributeValues, evaluateFleetConsistency } from "./consistency.js";

/** 50 seed nodes; a few run an example with one difference, one never starts its collector. */
const ODD: Record<string, string> = {
  "gpu-07": "fw-mismatch",
  "gpu-13": "half-rate",
  "gpu-21": "gid-index-5",
  "gpu-34": "no-ofed",
  "gpu-42": "h100-18hca",
};
const STUCK = "gpu-48";
const names = Array.from({ length: 50 }, (_, i) => `gpu-${String(i + 1).padStart(2, "0")}`);

/** What `kube-rdma collect -o -` prints on an example host (recorded once per example). */
const collected = new Map<string, Promise<Snapshot>>();
async function snapshotFor(nodeName: string): Promise<Snapshot> {
  const example = ODD[nodeName] ?? "a100-8x-roce";
  if (!collected.has(example)) collected.set(example, openReader({ example }).then(collectSnapshot));
  return { ...(await collected.get(example)!), host: nodeName };
}

type Report = {
  schemaVersion: number;
  run: { podsDeleted: number; podsLeft: string[] };
  nodes: { node: string; status: string; findings: { code: string; subject: string }[]; reason?: string }[];
  consistency: { name: string; majority: string; majorityNodes: number; odd: { node: string; value: string }[] }[];
  failedNodes: { node: string; reason: string }[];
  findings: { code: string; subject: string; severity: string; message: string }[];
  summary: { status: string };
};

describe("fleet verify over 50 simulated nodes", () => {
  test.sequential("per-node results, fleet consistency naming the odd nodes, the stuck node listed, and no pod left behind", async () => {
    const logs = new Map<string, string>();
    for (const n of names.filter((x) => x !== STUCK)) logs.set(n, JSON.stringify(await snapshotFor(n)));
    const nodes: Obj[] = [node({ name: "cce-master-0" }), ...names.map((name) => node({ name, gpus: 8, rdma: "1k" }))];
    const api = await startFakeApi(seedCluster({ nodes }), {
      onPodCreated: (pod) => {
        const log = logs.get(pod.spec.nodeName);
        return log ? { phase: "Succeeded", log, afterMs: 5 } : undefined;
      },
    });
    try {
      const io = captureIo();
      const code = await main(
        ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--timeout", "2", "--poll-interval", "10", "-o", "json"],
        io,
      );
      const r = JSON.parse(io.out) as Report;
      expect(r.schemaVersion).toBe(1);
      expect(r.nodes).toHaveLength(50);
      expect(code).toBe(1);

      // Per node: the seed nodes pass; each odd node carries its own verify finding.
      const status = Object.fromEntries(r.nodes.map((n) => [n.node, n.status]));
      expect(status["gpu-01"]).toBe("pass");
      expect(r.nodes.find((n) => n.node === "gpu-13")!.findings.map((f) => f.code)).toContain("RATE_MISMATCH");
      expect(r.nodes.find((n) => n.node === "gpu-07")!.findings.map((f) => f.code)).toContain("FW_MISMATCH");
      expect(r.nodes.find((n) => n.node === "gpu-21")!.findings.map((f) => f.subject)).toContain("gpu-21/mlx5_5");

      // Fleet consistency: the majority is the seed; the odd nodes are named per attribute.
      const odd = Object.fromEntries(r.consistency.map((a) => [a.name, a.odd.map((o) => o.node)]));
      expect(odd).toEqual({
        OFED: ["gpu-34", "gpu-42"],
        "NVIDIA driver": ["gpu-42"],
        "HCA firmware": ["gpu-07", "gpu-42"],
        "HCA count": ["gpu-42"],
        "data port rates": ["gpu-13", "gpu-42"],
        "RoCE active MTU": [],
        "RoCE v2 GID index layout": ["gpu-21"],
      });
      expect(r.consistency.find((a) => a.name === "OFED")).toMatchObject({
        majority: "MLNX_OFED 5.8-1.1.2.1",
        majorityNodes: 47,
      });
      expect(r.findings.find((f) => f.code === "FLEET_PORT_RATES_DIFFER" && f.subject === "gpu-13")?.message).toMatch(
        /gpu-13: data port rates is 7×200 Gb\/s, 1×100 Gb\/s, while 4\d of 49 nodes have 8×200 Gb\/s/,
      );

      // The stuck node is listed, not hidden.
      expect(r.failedNodes).toEqual([{ node: STUCK, reason: expect.stringMatching(/no snapshot within 2 s/) }]);
      expect(r.nodes.find((n) => n.node === STUCK)?.status).toBe("not-verified");

      // Cleanup: all 50 pods deleted.
      expect(r.run).toMatchObject({ podsDeleted: 50, podsLeft: [] });
      expect(api.store.get("pods")!.filter((p) => p.metadata.namespace === "kube-rdma")).toEqual([]);
    } finally {
      await api.close();
    }
  }, 300_000);

  test("the text report names the odd nodes and the failed ones", async () => {
    const nodes = ["gpu-01", "gpu-02", "gpu-03", "gpu-13"];
    const logs = new Map<string, string>();
    for (const n of nodes) logs.set(n, JSON.stringify(await snapshotFor(n)));
    const api = await startFakeApi(seedCluster({ nodes: nodes.map((name) => node({ name, gpus: 8, rdma: "1k" })) }), {
      onPodCreated: (pod) => ({ phase: "Succeeded", log: logs.get(pod.spec.nodeName) ?? "" }),
    });
    try {
      const io = captureIo();
      await main(["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5"], io);
      expect(io.out).toMatch(/gpu-01\s+PASS/);
      expect(io.out).toMatch(/data port rates: 8×200 Gb\/s on 3 node\(s\)\n\s+odd: gpu-13: 7×200 Gb\/s, 1×100 Gb\/s/);
      expect(io.out).toMatch(/4\/4 node\(s\) verified, 1 odd node\(s\) \(gpu-13\)/);
    } finally {
      await api.close();
    }
  });
});

describe("fleet verify: the text report's findings", () => {
  test("two nodes at half rate: each finding prints once with both nodes' subjects, JSON keeps one per node", async () => {
    const nodes = ["gpu-01", "gpu-02", "gpu-03", "gpu-13", "gpu-14"];
    const logs = new Map<string, string>();
    const halfRate = await snapshotFor("gpu-13");
    for (const n of nodes)
      logs.set(n, JSON.stringify(n === "gpu-14" ? { ...halfRate, host: n } : await snapshotFor(n)));
    const api = await startFakeApi(seedCluster({ nodes: nodes.map((name) => node({ name, gpus: 8, rdma: "1k" })) }), {
      onPodCreated: (pod) => ({ phase: "Succeeded", log: logs.get(pod.spec.nodeName) ?? "" }),
    });
    try {
      const json = captureIo();
      await main(["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5", "-o", "json"], json);
      const rate = (JSON.parse(json.out) as Report).findings.filter((f) => f.code === "RATE_MISMATCH");
      expect(rate.map((f) => f.subject.split("/")[0])).toEqual(["gpu-13", "gpu-14"]);
      const io = captureIo();
      await main(["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5"], io);
      const findingsText = io.out.slice(io.out.indexOf("\nErrors (2)\n"));
      expect(findingsText).toMatch(/^\nErrors \(2\)\n {2}RATE_MISMATCH +gpu-13\/mlx5_6, gpu-14\/mlx5_6\n/);
      expect(findingsText.match(/RATE_MISMATCH/g)).toHaveLength(1);
      expect(findingsText).toMatch(/Warnings \(2\)\n {2}FLEET_PORT_RATES_DIFFER +gpu-13, gpu-14\n/);
      expect(findingsText.match(/FLEET_PORT_RATES_DIFFER/g)).toHaveLength(1);
    } finally {
      await api.close();
    }
  });
});

describe("fleet verify keeps what it collected and counts what it found", () => {
  test("--save-snapshots DIR keeps each node's snapshot; verify --snapshot DIR/gpu-13.json finds gpu-13's RATE_MISMATCH again", async () => {
    const nodes = ["gpu-01", "gpu-13", "gpu-21"];
    const logs = new Map<string, string>();
    for (const n of nodes) logs.set(n, JSON.stringify(await snapshotFor(n)));
    const api = await startFakeApi(seedCluster({ nodes: nodes.map((name) => node({ name, gpus: 8, rdma: "1k" })) }), {
      onPodCreated: (pod) => ({ phase: "Succeeded", log: logs.get(pod.spec.nodeName) ?? "" }),
    });
    const dir = join(mkdtempSync(join(tmpdir(), "kube-rdma-fleet-")), "snapshots");
    try {
      const io = captureIo();
      const args = ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5", "--save-snapshots", dir];
      expect(await main(args, io)).toBe(1);
      expect(readdirSync(dir).sort()).toEqual(["gpu-01.json", "gpu-13.json", "gpu-21.json"]);
      expect(io.err).toContain(`saved 3 snapshot(s) in ${dir}`);
      const replay = captureIo();
      expect(await main(["verify", "--snapshot", join(dir, "gpu-13.json"), "-o", "json"], replay)).toBe(1);
      expect(JSON.parse(replay.out).findings.map((f: { code: string }) => f.code)).toContain("RATE_MISMATCH");
    } finally {
      await api.close();
    }
  });

  test("the JSON summary counts exactly the error and warning findings it lists (node, consistency and failed nodes)", async () => {
    const nodes = ["gpu-01", "gpu-02", "gpu-07", "gpu-13", "gpu-21", STUCK];
    const logs = new Map<string, string>();
    for (const n of nodes.filter((x) => x !== STUCK)) logs.set(n, JSON.stringify(await snapshotFor(n)));
    const api = await startFakeApi(seedCluster({ nodes: nodes.map((name) => node({ name, gpus: 8, rdma: "1k" })) }), {
      onPodCreated: (pod) => {
        const log = logs.get(pod.spec.nodeName);
        return log ? { phase: "Succeeded", log } : undefined;
      },
    });
    try {
      for (const strict of [[], ["--strict"]]) {
        const io = captureIo();
        const args = ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5", "--timeout", "1"];
        expect(await main([...args, ...strict, "-o", "json"], io)).toBe(1);
        const r = JSON.parse(io.out) as Report & { summary: { errors: number; warnings: number } };
        const count = (sev: string) => r.findings.filter((f) => f.severity === sev).length;
        expect(r.summary.errors).toBe(count("error"));
        expect(r.summary.warnings).toBe(count("warning"));
        const nodeErrors = r.nodes.reduce((n, x) => n + (x as unknown as { errors: number }).errors, 0);
        const fleetErrors = r.findings.filter((f) => f.severity === "error" && !f.subject.includes("/")).length;
        expect(nodeErrors + fleetErrors - r.failedNodes.length).toBe(r.summary.errors);
      }
    } finally {
      await api.close();
    }
  }, 60_000);
});

describe("fleet analysis in worker threads", () => {
  test("--analysis-threads 2 gives the same report as analysing in the main thread", async () => {
    const nodes = ["gpu-01", "gpu-07", "gpu-13", "gpu-21", "gpu-34"];
    const logs = new Map<string, string>();
    for (const n of nodes) logs.set(n, JSON.stringify(await snapshotFor(n)));
    const api = await startFakeApi(seedCluster({ nodes: nodes.map((name) => node({ name, gpus: 8, rdma: "1k" })) }), {
      onPodCreated: (pod) => ({ phase: "Succeeded", log: logs.get(pod.spec.nodeName) ?? "" }),
    });
    try {
      const run = async (threads: string) => {
        const io = captureIo();
        const args = ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5", "-o", "json"];
        await main([...args, "--analysis-threads", threads], io);
        const { run: _run, ...rest } = JSON.parse(io.out) as Report;
        return rest;
      };
      const inThread = await run("0");
      expect(inThread.consistency.find((a) => a.name === "OFED")?.odd).toEqual([
        { node: "gpu-34", value: "OFED absent" },
      ]);
      expect(await run("2")).toEqual(inThread);
    } finally {
      await api.close();
    }
  }, 120_000);
});

describe("fleet consistency (pure)", () => {
  test("a tie-free majority names only the nodes that differ; a uniform fleet has no findings", () => {
    const values = (fw: string) => ({ "HCA firmware": fw });
    const r = evaluateFleetConsistency([
      { node: "a", values: values("20.35.1012") },
      { node: "b", values: values("20.35.1012") },
      { node: "c", values: values("20.33.1048") },
    ]);
    expect(r.findings.filter((f) => f.code === "FLEET_FIRMWARE_DIFFERS").map((f) => f.subject)).toEqual(["c"]);
    const uniform = evaluateFleetConsistency([
      { node: "a", values: values("x") },
      { node: "b", values: values("x") },
    ]);
    expect(uniform.findings.filter((f) => f.code === "FLEET_FIRMWARE_DIFFERS")).toEqual([]);
  });

  test("one node whose rails all run MTU 1500 in a 9000 fleet: uniform on its own (no MTU_MISMATCH), FLEET_MTU_DIFFERS here", () => {
    const nodeWithMtu = (mtu: number) => {
      const inv = seedInventory();
      for (const n of inv.netdevs) n.mtu = mtu;
      return attributeValues(inv);
    };
    const r = evaluateFleetConsistency([
      { node: "gpu-01", values: nodeWithMtu(9000) },
      { node: "gpu-02", values: nodeWithMtu(9000) },
      { node: "gpu-03", values: nodeWithMtu(1500) },
    ]);
    const f = r.findings.filter((x) => x.code === "FLEET_MTU_DIFFERS");
    expect(f.map((x) => x.subject)).toEqual(["gpu-03"]);
    expect(f[0]!.message).toBe("gpu-03: RoCE active MTU is MTU 1024, while 2 of 3 nodes have MTU 4096.");
    expect(f[0]!.fix).toMatch(/smaller active MTU of its two ends/);
  });
});

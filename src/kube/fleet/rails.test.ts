import { describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { startFakeApi } from "../../../test/support/kube/fake-api.js";
import { main } from "../../cli/main.js";
import { collectSnapshot, openReader } from "../../host/index.js";
import { evaluateRails, type NodeRail } from "./rails.js";

const seedRails = (): NodeRail[] =>
  [0, 32, 64, 96, 128, 160, 192, 224].map((n, i) => ({
    hca: `mlx5_${i + 1}`,
    netdev: `eth${i + 1}`,
    subnet: `25.11.128.${n}/27`,
  }));

describe("rails across the fleet (pure)", () => {
  test("a node whose rail 3 sits on rail 2's subnet is named, with both rails; the advice waits for the fix", () => {
    const odd = seedRails();
    odd[3] = { ...odd[3]!, subnet: "25.11.128.64/27" };
    const r = evaluateRails([
      { node: "a", rails: seedRails() },
      { node: "b", rails: seedRails() },
      { node: "c", rails: odd },
    ]);
    const mismatch = r.findings.filter((f) => f.code === "RAIL_SUBNET_MISMATCH");
    expect(mismatch.map((f) => [f.subject, f.evidence?.rail, f.evidence?.otherRail])).toEqual([["c", 3, 2]]);
    expect(mismatch[0]?.message).toContain("rail 2's subnet");
    expect(r.rails[3]).toMatchObject({ subnet: "25.11.128.96/27", nodes: 3, onSubnet: 2, hcas: "3×mlx5_4" });
    expect(r.findings.find((f) => f.code === "FLEET_RAIL_LAYOUT")?.fix).toMatch(/Fix or cordon c first/);
  });

  test("every rail on its own subnet on every node: no mismatch, NCCL_CROSS_NIC=0 advised", () => {
    const r = evaluateRails([
      { node: "a", rails: seedRails() },
      { node: "b", rails: seedRails() },
    ]);
    expect(r.findings.map((f) => f.code)).toEqual(["FLEET_RAIL_LAYOUT"]);
    expect(r.findings[0]?.fix).toContain("NCCL_CROSS_NIC=0");
  });

  test("a flat fabric (every NIC on one subnet) is told apart: NCCL may pair any NICs", () => {
    const flat = seedRails().map((r) => ({ ...r, subnet: "25.11.0.0/16" }));
    const r = evaluateRails([
      { node: "a", rails: flat },
      { node: "b", rails: flat },
    ]);
    expect(r.findings.map((f) => f.code)).toEqual(["FLEET_RAIL_LAYOUT"]);
    expect(r.findings[0]?.fix).toMatch(/flat fabric/);
  });
});

describe("fleet verify on the fake API: one node with rail 3 on another subnet", () => {
  test("RAIL_SUBNET_MISMATCH names that node and mlx5_4; the rails table shows rail 3's subnet", async () => {
    const seed = await collectSnapshot(await openReader({ example: "a100-8x-roce" }));
    const off = await collectSnapshot(await openReader({ example: "rail-3-other-subnet" }));
    const names = ["gpu-01", "gpu-02", "gpu-03", "gpu-04"];
    const logs = new Map(names.map((n) => [n, JSON.stringify({ ...(n === "gpu-03" ? off : seed), host: n })]));
    const api = await startFakeApi(seedCluster({ nodes: names.map((name) => node({ name, gpus: 8, rdma: "1k" })) }), {
      onPodCreated: (pod) => ({ phase: "Succeeded", log: logs.get(pod.spec.nodeName) ?? "" }),
    });
    try {
      const io = captureIo();
      const args = ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5", "-o", "json"];
      expect(await main(args, io)).toBe(1);
      const r = JSON.parse(io.out);
      const mismatch = r.findings.filter((f: { code: string }) => f.code === "RAIL_SUBNET_MISMATCH");
      expect(mismatch.map((f: { subject: string }) => f.subject)).toEqual(["gpu-03"]);
      expect(mismatch[0].message).toMatch(
        /rail 3 \(mlx5_4\) is on 25\.11\.129\.96\/27, while 3 of 4 nodes have rail 3 on 25\.11\.128\.96\/27/,
      );
      expect(r.rails[3]).toMatchObject({ subnet: "25.11.128.96/27", odd: [{ node: "gpu-03", hca: "mlx5_4" }] });

      const text = captureIo();
      await main(["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5"], text);
      expect(text.out).toMatch(
        /rail 3: 25\.11\.128\.96\/27 on 3\/4 node\(s\) \(4×mlx5_4\)\n\s+odd: gpu-03: mlx5_4 on 25\.11\.129\.96\/27/,
      );
    } finally {
      await api.close();
    }
  }, 120_000);
});

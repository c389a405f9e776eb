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
    const r = evaluateRails(
      [
        { node: "a", rails: seedRails() },
        { node: "b", rails: seedRails() },
        { node: "c", rails: odd },
      ],
      "l2",
    );
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

// Routed rails: every NIC gets its own per-node subnet. nvidia-k8s-ipam's CIDRPool "can be used to split a large
// network into multiple unique smaller subnets and allocate them for nodes ... useful for routed networks"
// (https://github.com/Mellanox/nvidia-k8s-ipam, README "CIDRPool"); its IPPool is the L2 ("flat network") case.
// NCCL picks each GPU's NIC by PCI locality (src/graph/search.cc, ncclTopoGetLocalNet) and connects to the GID the
// peer sends (src/transport/net_ib/connect.cc, remoteGid in the RTR attributes), whatever its subnet. Only the
// opt-in NCCL_IB_SUBNET_AWARE_ROUTING (default 0, connect.cc line 61, NCCL 2.30) looks at subnets at all
// (https://github.com/NVIDIA/nccl/blob/master/src/transport/net_ib/connect.cc).
const routedRails = (node: number): NodeRail[] =>
  [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({
    hca: `mlx5_${i}`,
    netdev: `ens${i + 1}np0`,
    subnet: `172.16.${i}.${node * 2}/31`,
  }));

describe("routed rails (a /31 per NIC per node)", () => {
  const fleet = [1, 2, 3, 4].map((n) => ({ node: `gpu-${n}`, rails: routedRails(n) }));

  // RFC 3021 (https://www.rfc-editor.org/rfc/rfc3021): a /31 holds the two ends of one point-to-point link, so
  // every NIC on a /31 is routed to its leaf: the nodes show the fact themselves.
  test("4 healthy nodes with every NIC on a /31, no flag: routed as the nodes show it, no error", () => {
    const r = evaluateRails(fleet);
    expect(r.findings.map((f) => [f.code, f.severity])).toEqual([["FLEET_RAIL_LAYOUT_ROUTED", "info"]]);
    expect(r).toMatchObject({ addressing: "routed", addressingFrom: "seen" });
    expect(r.findings[0]?.message).toContain("every data NIC is on a /31 or /30");
  });

  // A per-node CIDR from a pool per rail (nv-ipam CIDRPool perNodeBlockSize) is a routed design whose subnets look
  // like L2 ones: the nodes cannot show it, so the user is asked.
  test("per-node /28 blocks without the fact: one info that says subnets were not checked and how to say which", () => {
    const blocks = [1, 2, 3, 4].map((n) => ({
      node: `gpu-${n}`,
      rails: routedRails(n).map((r, i) => ({ ...r, subnet: `172.16.${i}.${n * 16}/28` })),
    }));
    const r = evaluateRails(blocks);
    expect(r.findings.filter((f) => f.severity !== "info")).toEqual([]);
    expect(r.findings.map((f) => f.code)).toEqual(["RAIL_ADDRESSING_NOT_CHECKED"]);
    expect(r.addressing).toBeNull();
    expect(r.findings[0]?.message).toContain("not checked");
    expect(r.findings[0]?.fix).toMatch(/--rail-addressing l2 .* --rail-addressing routed/s);
  });

  test("declared routed: subnets are not compared, no node is odd", () => {
    const r = evaluateRails(fleet, "routed");
    expect(r.findings.map((f) => [f.code, f.severity])).toEqual([["FLEET_RAIL_LAYOUT_ROUTED", "info"]]);
    expect(r.rails.every((rail) => rail.odd.length === 0)).toBe(true);
    expect(r).toMatchObject({ addressing: "routed", addressingFrom: "declared" });
  });

  test("declared l2 on the same nodes: each differing rail is an error (the user's fact, not a guess)", () => {
    const r = evaluateRails(fleet, "l2");
    expect(r.findings.filter((f) => f.code === "RAIL_SUBNET_MISMATCH").length).toBeGreaterThan(0);
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
      const base = ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5", "-o", "json"];
      // Without the rail addressing no host shows, a differing subnet is not judged: exit 0, one info.
      const unknown = captureIo();
      expect(await main(base, unknown)).toBe(0);
      expect(JSON.parse(unknown.out).findings.map((f: { code: string }) => f.code)).toContain(
        "RAIL_ADDRESSING_NOT_CHECKED",
      );
      const args = [...base, "--rail-addressing", "l2"];
      expect(await main(args, io)).toBe(1);
      const r = JSON.parse(io.out);
      const mismatch = r.findings.filter((f: { code: string }) => f.code === "RAIL_SUBNET_MISMATCH");
      expect(mismatch.map((f: { subject: string }) => f.subject)).toEqual(["gpu-03"]);
      expect(mismatch[0].message).toMatch(
        /rail 3 \(mlx5_4\) is on 25\.11\.129\.96\/27, while 3 of 4 nodes have rail 3 on 25\.11\.128\.96\/27/,
      );
      expect(r.rails[3]).toMatchObject({ subnet: "25.11.128.96/27", odd: [{ node: "gpu-03", hca: "mlx5_4" }] });

      const text = captureIo();
      await main(
        ["fleet", "verify", "--kubeconfig", api.kubeconfig, "--poll-interval", "5", "--rail-addressing", "l2"],
        text,
      );
      expect(text.out).toMatch(
        /rail 3: 25\.11\.128\.96\/27 on 3\/4 node\(s\) \(4×mlx5_4\)\n\s+odd: gpu-03: mlx5_4 on 25\.11\.129\.96\/27/,
      );
    } finally {
      await api.close();
    }
  }, 120_000);
});

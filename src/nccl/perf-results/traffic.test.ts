import { describe, expect, test } from "vitest";
import { seedInventory } from "../../checks/testing/seed-inventory.js";
import { analyzeNcclTests } from "./analyzer.js";
import { socketSuspected } from "./judge.js";
import { COLLECTIVE_TRAFFIC, expectedFabricBusBw } from "./traffic.js";

// The derivations and their sources are in traffic.ts: nccl-tests doc/PERFORMANCE.md for the busbw factors, nccl-tests
// issue #130 for alltoall's (N−1)/N inter-node share, NVIDIA's 192 GB/s on 8 × HDR for the ring collectives.
const HDR = 24; // GB/s per 200 Gb/s NIC, NVIDIA maintainers' figure (https://github.com/NVIDIA/nccl-tests/issues/252)
const fabric = (collective: string, nodes: number) =>
  expectedFabricBusBw(collective, { nodes, gpusPerNode: 8, nics: 8, nicGBps: HDR })?.GBps ?? null;

describe("each collective's expected busbw, from its traffic pattern (8 GPUs and 8 × HDR per node)", () => {
  const table: [string, number | null, number, number][] = [
    // collective,     1 node, 2 nodes, 16 nodes
    ["all_reduce", null, 192, 192],
    ["all_gather", null, 192, 192],
    ["reduce_scatter", null, 192, 192],
    ["broadcast", null, 192, 192],
    ["reduce", null, 192, 192],
    ["alltoall", null, 45, 25.4],
    ["sendrecv", null, 24, 24],
  ];
  test.each(table)("%s: 1 node → %s (no fabric), 2 nodes → %s GB/s, 16 nodes → %s GB/s", (c, one, two, sixteen) => {
    expect(fabric(c, 1)).toBe(one);
    expect(fabric(c, 2)).toBeCloseTo(two, 1);
    expect(fabric(c, 16)).toBeCloseTo(sixteen, 1);
  });
  test("the busbw factors nccl-tests prints with", () => {
    expect(COLLECTIVE_TRAFFIC.all_reduce!.busFactor(16)).toBeCloseTo(30 / 16);
    expect(COLLECTIVE_TRAFFIC.alltoall!.busFactor(16)).toBeCloseTo(15 / 16);
    expect(COLLECTIVE_TRAFFIC.sendrecv!.busFactor(16)).toBe(1);
  });
});

const REDOP: Record<string, [string, number]> = {
  all_reduce: ["sum", -1],
  alltoall: ["none", -1],
  sendrecv: ["sum", -1],
};

/** An nccl-tests table of `collective` on 2 nodes × 8 GPUs whose large-message busbw is `busbw` GB/s. */
function run(collective: string, busbw: number): string {
  const ranks = 16;
  const factor = COLLECTIVE_TRAFFIC[collective]!.busFactor(ranks);
  const [redop, root] = REDOP[collective]!;
  const lines = [
    "# nccl-tests version 2.14.1 nccl-headers=21805 nccl-library=21805",
    `# Collective test starting: ${collective}_perf`,
    "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
    "#",
    "# Using devices",
  ];
  for (let r = 0; r < ranks; r++) {
    const host = r < 8 ? "gpu-node-1" : "gpu-node-2";
    lines.push(
      `#  Rank ${String(r).padStart(2)} Group  0 Pid  ${41000 + r} on ${host} device  ${r % 8} [0000:07:00] NVIDIA A100-SXM4-80GB`,
    );
  }
  lines.push(
    "#",
    "#                                                              out-of-place                       in-place          ",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
  );
  for (let bytes = 2 ** 20; bytes <= 2 ** 33; bytes *= 2) {
    const bus = busbw * Math.min(1, bytes / 2 ** 28);
    const alg = bus / factor;
    const time = bytes / (alg * 1e3);
    const t = time >= 10000 ? time.toFixed(0) : time.toFixed(1);
    const row = `${String(bytes).padStart(12)}  ${String(bytes / 4).padStart(12)}     float  ${redop.padStart(6)}  ${String(root).padStart(6)}  ${t.padStart(8)}  ${alg.toFixed(2).padStart(6)}  ${bus.toFixed(2).padStart(6)}       0  ${t.padStart(8)}  ${alg.toFixed(2).padStart(6)}  ${bus.toFixed(2).padStart(6)}       0`;
    lines.push(row);
  }
  lines.push(
    "# Out of bounds values : 0 OK",
    `# Avg bus bandwidth    : ${busbw.toFixed(4)} `,
    "#",
    `# Collective test concluded: ${collective}_perf`,
    "",
  );
  return lines.join("\n");
}

const judged = (collective: string, busbw: number) =>
  analyzeNcclTests(run(collective, busbw), { inventory: seedInventory() })
    .findings.filter((f) => f.code.startsWith("NCCL_TESTS_BANDWIDTH"))
    .map((f) => `${f.severity} ${f.code}`);

describe("judged on the A100 RoCE example node (8 × 200 Gb/s)", () => {
  test("a healthy 2-node sendrecv at 23 GB/s passes: the inter-node pairs run on one NIC each", () => {
    expect(judged("sendrecv", 23)).toEqual(["info NCCL_TESTS_BANDWIDTH_OK"]);
  });
  test("a healthy 2-node alltoall at 43 GB/s passes; a collapsed one at half that is an error", () => {
    expect(judged("alltoall", 43)).toEqual(["info NCCL_TESTS_BANDWIDTH_OK"]);
    expect(judged("alltoall", 21.5)).toEqual(["error NCCL_TESTS_BANDWIDTH_LOW"]);
  });
});

describe("socket suspicion is judged against the node's own NICs, not a fixed 12.5 GB/s", () => {
  const rdma = (nics: number, gbps: number) => ({ GBps: nics * (gbps / 8) * 0.96, problemBelowGBps: 0, source: "" });
  test("11 GB/s on one 100 Gb/s NIC (a healthy single-rail RDMA run) is not called sockets", () => {
    expect(socketSuspected(11, rdma(1, 100), { rateGbps: 100 }, undefined)).toBe(false);
  });
  test("20 GB/s on 8 × 400 Gb/s (≈ 384 GB/s RDMA) is: under a quarter, and within one NIC's line rate", () => {
    expect(socketSuspected(20, rdma(8, 400), { rateGbps: 400 }, undefined)).toBe(true);
  });
  test("a number alone (no NICs) says nothing about the transport; the NCCL log decides when it is there", () => {
    expect(socketSuspected(5, null, null, undefined)).toBe(false);
    expect(socketSuspected(5, rdma(8, 200), { rateGbps: 200 }, "rdma_gdr")).toBe(false);
    expect(socketSuspected(150, rdma(8, 200), { rateGbps: 200 }, "socket")).toBe(true);
  });
  test("on the A100 RoCE example node, 9 GB/s across 2 nodes is suspected", () => {
    const found = analyzeNcclTests(run("all_reduce", 9), { inventory: seedInventory() }).findings;
    expect(found.map((f) => f.code)).toContain("NCCL_TESTS_SOCKET_SUSPECTED");
  });
});

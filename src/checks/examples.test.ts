/**
 * The example hosts of docs/CONTRACTS.md, read the way `verify --example NAME` reads them: the seed passes cleanly
 * and each variation yields its own finding on its own subject, with a fix.
 */
import { describe, expect, test } from "vitest";
import { listExamples } from "../examples/index.js";
import { openReader } from "../host/index.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import type { CheckOptions } from "./types.js";

async function findingsOf(example: string, opts: CheckOptions = {}) {
  return runChecks(await readInventory(await openReader({ example })), opts);
}

const notInfo = (fs: Awaited<ReturnType<typeof findingsOf>>) => fs.filter((f) => f.severity !== "info");

/** example → the findings (code, subject, severity) it must produce, and nothing else of severity error/warning. */
const VARIATIONS: [string, { code: string; subject: string; severity: string }[], CheckOptions?][] = [
  ["port-down", [{ code: "PORT_DOWN", subject: "mlx5_3", severity: "error" }]],
  ["half-rate", [{ code: "RATE_MISMATCH", subject: "mlx5_6", severity: "error" }]],
  ["gid-index-5", [{ code: "GID_INDEX_DIFFERS", subject: "mlx5_5", severity: "warning" }]],
  ["no-rocev2-gid", [{ code: "NO_ROCEV2_GID", subject: "mlx5_5", severity: "error" }]],
  [
    "sparse-gids",
    [1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ code: "GID_TABLE_SPARSE", subject: `mlx5_${i}`, severity: "warning" })),
  ],
  ["no-peermem", [{ code: "NO_GPUDIRECT", subject: "node", severity: "error" }]],
  ["gpu-no-near-nic", [{ code: "GPU_NO_NEAR_NIC", subject: "GPU7", severity: "warning" }]],
  [
    "nvidia-smi-timeout",
    [{ code: "DRIVER_NOT_RESPONDING", subject: "nvidia-smi", severity: "error" }],
    { expectGpus: 8, expectGpuModel: "A100" },
  ],
  ["gpu-row-remap", [{ code: "GPU_ROW_REMAP", subject: "GPU2", severity: "error" }]],
  ["gpu-pcie-x8", [{ code: "GPU_PCIE_DEGRADED", subject: "GPU3", severity: "error" }]],
  ["port-errors", [{ code: "PORT_ERROR_COUNTERS", subject: "mlx5_4", severity: "warning" }]],
  ["fw-mismatch", [{ code: "FW_MISMATCH", subject: "mlx5_8", severity: "warning" }]],
  [
    "ofed-not-loaded",
    [
      { code: "OFED_NOT_RUNNING", subject: "mlx5_core", severity: "warning" },
      { code: "NO_GPUDIRECT", subject: "node", severity: "error" },
    ],
  ],
  [
    "pod-restricted",
    [
      { code: "MEMLOCK_LIMITED", subject: "memlock", severity: "error" },
      { code: "NO_IPC_LOCK", subject: "CapEff", severity: "error" },
      { code: "SHM_SMALL", subject: "/dev/shm", severity: "warning" },
    ],
    { pod: true },
  ],
  ["no-uverbs", [{ code: "NO_UVERBS", subject: "/dev/infiniband", severity: "error" }]],
  // Training-pod examples (for `preflight`): what a node check sees of them. An EPERM device or another NCCL in
  // the image is invisible to verify; only preflight, which opens the devices and reads the image, names those.
  ["training-pod", [], { pod: true }],
  ["training-pod-nccl-2.12", [], { pod: true }],
  ["training-pod-uverbs-eperm", [], { pod: true }],
  ["training-pod-7-hcas", [{ code: "NO_UVERBS", subject: "mlx5_8", severity: "error" }]],
  ["training-pod-gid-index-5", [{ code: "GID_INDEX_DIFFERS", subject: "mlx5_5", severity: "warning" }]],
  ["acs-redirect", [{ code: "PCIE_ACS_REDIRECT", subject: "0000:6a:01.0", severity: "error" }]],
  ["nic-pcie-x8", [{ code: "HCA_PCIE_DEGRADED", subject: "mlx5_3", severity: "error" }]],
  ["iommu-translated", [{ code: "IOMMU_TRANSLATED", subject: "node", severity: "warning" }]],
  ["roce-no-ecn", [{ code: "ROCE_NOT_LOSSLESS", subject: "mlx5_3", severity: "warning" }]],
  // The example fabric's PFC is on priority 0 (dcb pfc show): mlx5_4's class 106 moves its traffic to a lossy 3.
  [
    "roce-tc-differs",
    [
      { code: "ROCE_NOT_LOSSLESS", subject: "mlx5_4", severity: "warning" },
      { code: "ROCE_QOS_DIFFERS", subject: "mlx5_4", severity: "warning" },
    ],
  ],
  // One reading shows only the counters' totals; the flaps themselves need two (see the --watch story below).
  ["port-flapping", [{ code: "PORT_ERROR_COUNTERS", subject: "mlx5_6", severity: "warning" }]],
];

describe("the seed node (a100-8x-roce)", () => {
  test("passes with no finding at all, even with the GPU expectations and --pod", async () => {
    expect(await findingsOf("a100-8x-roce", { expectGpus: 8, expectGpuModel: "A100-SXM4-80GB", pod: true })).toEqual(
      [],
    );
  });
});

describe("each variation of the seed yields its finding, on its subject, with a fix", () => {
  test.each(VARIATIONS)("%s", async (example, expected, opts) => {
    const findings = await findingsOf(example, opts ?? {});
    const got = notInfo(findings).map((f) => ({ code: f.code, subject: f.subject, severity: f.severity }));
    expect(got).toEqual(expected);
    for (const f of notInfo(findings)) {
      if (/^(mlx5|GPU)/.test(f.subject)) expect(f.message).toContain(f.subject);
      expect(f.fix).toMatch(/`[^`]+`|NCCL_|securityContext|emptyDir/);
    }
  });

  test("pod-restricted is a clean host when not judged as a pod", async () => {
    expect(notInfo(await findingsOf("pod-restricted"))).toEqual([]);
  });
});

describe("other layouts pass", () => {
  test("ib-8x-hdr: eight InfiniBand HCAs without netdevs, no GID findings", async () => {
    expect(await findingsOf("ib-8x-hdr")).toEqual([]);
  });

  test("h100-18hca: 17 data NICs up to mlx5_17, no finding", async () => {
    expect(await findingsOf("h100-18hca", { expectGpus: 8, expectGpuModel: "H100" })).toEqual([]);
  });

  test("bond-management: the bonded management NIC is noted (BOND_PRESENT, info) and the node passes", async () => {
    const findings = await findingsOf("bond-management");
    expect(findings.map((f) => [f.code, f.subject, f.severity])).toEqual([["BOND_PRESENT", "mlx5_bond_0", "info"]]);
  });

  test("ipv6-only: data NICs with global IPv6 RoCE v2 GIDs and no IPv4 address pass, no finding", async () => {
    expect(await findingsOf("ipv6-only")).toEqual([]);
  });

  test("rail-3-other-subnet: a node whose rail 3 is on another subnet passes alone (only fleet verify can tell)", async () => {
    expect(await findingsOf("rail-3-other-subnet")).toEqual([]);
  });

  // Without OFED the kernel's ib_core has no peer-memory API, so nvidia_peermem cannot load; DMA-BUF needs the open
  // GPU kernel module with driver ≥ 515 (https://docs.nvidia.com/cuda/gpudirect-rdma/#using-dma-buf): the example's
  // driver 470 has neither path, and the node says so instead of reporting OFED's absence as harmless.
  test("no-ofed: inbox rdma-core, no peermem and no DMA-BUF on driver 470 → OFED_ABSENT (info) and NO_GPUDIRECT", async () => {
    const findings = await findingsOf("no-ofed");
    expect(findings.map((f) => [f.code, f.severity])).toEqual([
      ["OFED_ABSENT", "info"],
      ["NO_GPUDIRECT", "error"],
    ]);
    expect(findings.find((f) => f.code === "OFED_ABSENT")?.message).toMatch(/lacks the peer-memory API/);
  });

  test("ofed-driver-container: OFED's drivers from the Network Operator, no ofed_info on the host → OFED_TOOLS_ABSENT as info only", async () => {
    const findings = await findingsOf("ofed-driver-container");
    expect(findings.map((f) => [f.code, f.severity])).toEqual([["OFED_TOOLS_ABSENT", "info"]]);
  });
});

test("every example host is covered by a story above", () => {
  const covered = new Set([
    "a100-8x-roce",
    "ib-8x-hdr",
    "h100-18hca",
    "bond-management",
    "ipv6-only",
    "no-ofed",
    "ofed-driver-container",
    "rail-3-other-subnet",
    ...VARIATIONS.map(([name]) => name),
  ]);
  expect(
    listExamples()
      .map((e) => e.name)
      .filter((n) => !covered.has(n)),
  ).toEqual([]);
});

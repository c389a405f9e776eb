import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { capture, captureVariants } from "../../test/support/captures.js";
import { hostileLines } from "../../test/support/property.js";
import { runChecks } from "../checks/index.js";
import { renderNvidiaSmiXml, type XmlGpuSpec } from "../examples/nvidia-smi-xml.js";
import { openReader } from "../host/index.js";
import { readInventory } from "../inventory/index.js";
import type { NodeInventory } from "../inventory/types.js";
import { detectKind } from "./detect.js";
import { ANALYZERS, analyzeText } from "./index.js";
import { renderAnalyzeText } from "./render.js";

const codes = (text: string, ctx = {}) =>
  analyzeText("x", text, ctx).findings.map((f) => ({ code: f.code, severity: f.severity, subject: f.subject }));

const FIXTURES: [kind: string, name: string, command: string][] = [
  ["show_gids", "a100-roce-sample", "show_gids"],
  ["show_gids", "a100-roce-tabs", "show_gids"],
  ["ibv_devinfo", "a100-roce", "ibv_devinfo"],
  ["ibv_devinfo", "a100-roce-verbose", "ibv_devinfo -v"],
  ["ibstat", "a100-roce", "ibstat"],
  ["ibstat", "a100-roce-ibstatus", "ibstatus"],
  ["ibdev2netdev", "a100-roce", "ibdev2netdev"],
  ["ibdev2netdev", "a100-roce-verbose", "ibdev2netdev -v"],
  ["nvidia_smi_topo", "a100-roce-470", "nvidia-smi topo -m"],
  ["nvidia_smi_topo", "a100-roce-nic-legend", "nvidia-smi topo -m"],
  ["nvidia_smi", "a100-roce-sample", "nvidia-smi"],
  ["nvidia_smi", "a100-470", "nvidia-smi"],
  ["nvidia_smi", "h100-535", "nvidia-smi"],
  ["nvidia_smi", "h100-550", "nvidia-smi"],
  ["nvidia_smi", "v100-418", "nvidia-smi"],
  // Shapes of https://community.mellanox.com/docs/DOC-2792 (mlnx_qos -i) and the mlx5 driver's ethtool -S
  // counters (rx_prioN_pause…); hosts and numbers our own.
  ["mlnx_qos", "a100-eth3-dscp-pfc3", "mlnx_qos -i eth3"],
  ["mlnx_qos", "a100-eth5-pcp-no-pfc", "mlnx_qos -i eth5"],
  ["ethtool_stats", "a100-eth3-mlx5", "ethtool -S eth3"],
  ["ethtool_stats", "h100-eth6-discards", "ethtool -S eth6"],
];

describe("detection", () => {
  for (const [kind, name, command] of FIXTURES) {
    for (const [variant, text] of Object.entries(captureVariants(capture(kind, name), command))) {
      test(`${kind}/${name} (${variant}) is recognised as ${kind}`, () => {
        expect(detectKind(text, ANALYZERS).kind).toBe(kind);
      });
    }
  }

  test("NCCL logs and nccl-tests outputs go to H4's analysers, not to a host-tool kind", () => {
    const root = join(import.meta.dirname, "..", "..", "fixtures");
    for (const [dir, kind] of [
      ["nccl-logs", "nccl_log"],
      ["nccl-tests", "nccl_tests"],
    ] as const) {
      for (const name of readdirSync(join(root, dir)).filter((n) => n.endsWith(".txt"))) {
        const text = readFileSync(join(root, dir, name), "utf8");
        expect([name, detectKind(text, ANALYZERS).kind]).toEqual([name, kind]);
      }
    }
  });

  test("hostile 200k-character lines are classified (unknown or not) without hanging", () => {
    for (const line of hostileLines()) {
      const entry = analyzeText("x", `${line}\n${line}\n`);
      expect(entry.kind === "unknown" || entry.data !== null || (entry.problems?.length ?? 0) > 0).toBe(true);
    }
  });

  test("a topo matrix without a legend behind `mpirun --tag-output` is still a topo matrix", () => {
    // Open MPI's tag sits flush against the line, so the header's leading tab may be the only separator left
    // (https://docs.open-mpi.org/en/v5.0.x/man-openmpi/man1/mpirun.1.html); 4 GPUs on NVLink, no NIC legend.
    const matrix = [
      "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity",
      "GPU0\t X \tNV18\tNV18\tNV18\t0-71\t0",
      "GPU1\tNV18\t X \tNV18\tNV18\t0-71\t0",
      "GPU2\tNV18\tNV18\t X \tNV18\t72-143\t1",
      "GPU3\tNV18\tNV18\tNV18\t X \t72-143\t1",
    ];
    const tagged = matrix.map((l, i) => `[1,${i % 2}]<stdout>:${l}`).join("\n");
    expect(detectKind(`${matrix.join("\n")}\n`, ANALYZERS).kind).toBe("nvidia_smi_topo");
    expect(analyzeText("topo.txt", `${tagged}\n`).kind).toBe("nvidia_smi_topo");
  });

  test("ethtool -S after an `ethtool -i` preamble is still found when every line is double-spaced", () => {
    // A paste whose carriage returns came out as extra line breaks; counter names as the mlx5/be2net drivers print them.
    const lines = [
      "$ ethtool -i eth2",
      "driver: be2net",
      "version: 11.4.0.0",
      "bus-info: 0000:04:00.0",
      "$ ethtool -S eth2",
    ];
    const stats = ["NIC statistics:", "     rx_crc_errors: 0", "     rx_roce_frames: 61220", "     rx_drops_mtu: 0"];
    expect(detectKind(`${[...lines, ...stats].join("\n\n")}\n`, ANALYZERS).kind).toBe("ethtool_stats");
  });

  // Shape seen at https://github.com/isc-projects/ethq/issues/21: `ethtool -S` counters pasted without the
  // `NIC statistics:` line, with trailing blanks and an elision. Counter values here are our own.
  test("ethtool -S counters without the `NIC statistics:` header are read when rx/tx totals are among them", () => {
    const counters = [
      "     rx_packets: 9120331   ",
      "     tx_packets: 8811042 ",
      "     rx_bytes: 71022338110",
      "     tx_bytes: 69001234567   ",
      "     rx_prio3_pause: 12",
      "     <snip>",
    ];
    const entry = analyzeText("stats.txt", `${counters.join("\n")}\n`);
    expect(entry.kind).toBe("ethtool_stats");
    expect(entry.data).toMatchObject({ rx_packets: 9120331, tx_packets: 8811042, rx_prio3_pause: 12 });
    // Indented `name: integer` lines without both directions' totals are not claimed as ethtool -S.
    expect(detectKind("    retries: 3\n    timeouts: 0\n    rx_packets: 10\n", ANALYZERS).kind).not.toBe(
      "ethtool_stats",
    );
  });

  test("prose, an empty file and binary noise are unknown", () => {
    for (const text of ["", "hello\nworld\n", "\u0000\u0001\u0002garbage", "Traceback (most recent call last):\n  x"]) {
      expect(detectKind(text, ANALYZERS).kind).toBe("unknown");
    }
  });

  test("unknown input names the formats known, on one line, and where to see how to capture each", async () => {
    const entry = analyzeText("notes.txt", "just some notes\n");
    expect(entry.kind).toBe("unknown");
    for (const kind of ["show_gids", "ofed_info", "ibv_devinfo", "ibstat", "ibdev2netdev", "nvidia_smi_xml"]) {
      expect(entry.problems?.[0]?.message).toContain(kind);
    }
    // Text reports keep each value on one line: a hint of several lines would print as `\n` escapes.
    expect(entry.problems?.[0]?.hint).not.toMatch(/\n/);
    expect(entry.problems?.[0]?.hint).toContain("kube-rdma analyze --help");
    const { main } = await import("../cli/main.js");
    const { captureIo } = await import("../../test/support/io.js");
    const io = captureIo();
    await main(["analyze", "--help"], io);
    expect(io.out).toMatch(/^ {2}nvidia_smi_topo +nvidia-smi topo -m > topo.txt$/m);
  });

  test("property: detection and analysis never throw on random or spliced input", () => {
    const corpus = FIXTURES.map(([k, n]) => capture(k, n));
    const spliced = fc
      .tuple(fc.constantFrom(...corpus), fc.constantFrom(...corpus), fc.nat(4000), fc.nat(4000))
      .map(([a, b, i, j]) => a.slice(0, i) + b.slice(j));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), spliced), (text) => {
        const entry = analyzeText("x", text);
        expect(entry.kind === "unknown" || entry.data !== null || (entry.problems?.length ?? 0) > 0).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe("show_gids findings", () => {
  test("the seed's table: RoCE v2 IPv4 at index 3 everywhere — nothing wrong, the index noted", () => {
    const entry = analyzeText("gids.txt", capture("show_gids", "a100-roce-sample"));
    expect(entry.summary).toBe("9 devices, 36 GIDs; RoCE v2 IPv4 at index 3 on all");
    expect(codes(capture("show_gids", "a100-roce-sample"))).toEqual([
      { code: "GID_INDEX_UNIFORM", severity: "info", subject: "node" },
    ]);
  });

  test("mlx5_5 with an IPv6 address ahead of its IPv4: GID_INDEX_DIFFERS names mlx5_5, eth5 and the fix", () => {
    const entry = analyzeText("gids.txt", capture("show_gids", "a100-roce-gid-index-5"));
    const f = entry.findings.find((x) => x.code === "GID_INDEX_DIFFERS");
    expect(f).toMatchObject({
      severity: "warning",
      subject: "mlx5_5",
      evidence: { index: 5, usual: 3, netdev: "eth5" },
    });
    expect(f?.message).toMatch(/one NCCL_IB_GID_INDEX cannot fit every HCA/);
    expect(f?.fix).toMatch(/eth5/);
    expect(entry.findings).toHaveLength(1);
  });

  test("mlx5_5 that lost its IPv4 address (link-local only): NO_ROCEV2_GID on mlx5_5", () => {
    expect(codes(capture("show_gids", "a100-roce-no-rocev2-gid"))).toContainEqual({
      code: "NO_ROCEV2_GID",
      severity: "error",
      subject: "mlx5_5",
    });
  });

  test("a paste cut mid-table (in mlx5_7's third row, no footer) does not invent NO_ROCEV2_GID: mlx5_7 is a low-confidence warning", () => {
    const entry = analyzeText("gids.txt", capture("show_gids", "a100-roce-indented-truncated"));
    const f = entry.findings.find((x) => x.subject === "mlx5_7");
    expect(f).toMatchObject({ code: "NO_ROCEV2_GID", severity: "warning", confidence: { level: "low" } });
    expect(f?.message).toContain("without the n_gids_found=N footer");
    expect(entry.findings.filter((x) => x.severity === "error")).toEqual([]);
  });

  test("a cut paste still reports a missing RoCE v2 GID on a device before the cut as a certain error", () => {
    const text = capture("show_gids", "a100-roce-no-rocev2-gid").split("\n").slice(0, -8).join("\n");
    const mlx5_5 = analyzeText("gids.txt", text).findings.find((x) => x.subject === "mlx5_5");
    expect(mlx5_5).toMatchObject({ code: "NO_ROCEV2_GID", severity: "error" });
    expect(mlx5_5?.confidence).toBeUndefined();
  });

  test("a complete table whose last device really lacks a RoCE v2 GID (footer counts every row) stays an error", () => {
    const rows = capture("show_gids", "a100-roce-tabs")
      .split("\n")
      .filter((l) => !(l.startsWith("mlx5_8") && l.includes("ffff")) && !l.startsWith("n_gids_found"));
    const n = rows.filter((l) => l.startsWith("mlx5_")).length;
    const f = analyzeText("gids.txt", [...rows, `n_gids_found=${n}`].join("\n")).findings.find(
      (x) => x.subject === "mlx5_8",
    );
    expect(f).toMatchObject({ code: "NO_ROCEV2_GID", severity: "error" });
  });

  test("every table with holes at 2/3: GID_TABLE_SPARSE on each HCA (as verify says), printed once with the 9 names", () => {
    const entry = analyzeText("gids.txt", capture("show_gids", "a100-roce-sparse-gids"));
    const sparse = entry.findings.filter((f) => f.code === "GID_TABLE_SPARSE");
    expect(sparse.map((f) => f.subject)).toEqual(Array.from({ length: 9 }, (_, i) => `mlx5_${i}`));
    expect(sparse.every((f) => f.severity === "warning")).toBe(true);
    const text = renderAnalyzeText([entry]);
    expect(text.match(/GID_TABLE_SPARSE/g)).toHaveLength(1);
    expect(text).toContain("GID_TABLE_SPARSE mlx5_0..mlx5_8:");
  });

  test("a management NIC with link-local GIDs only is expected (info) when the node model names it", () => {
    const text = capture("show_gids", "a100-roce-tabs")
      .split("\n")
      .filter((l) => !(l.startsWith("mlx5_0") && l.includes("ffff")))
      .join("\n");
    expect(codes(text)).toContainEqual({ code: "NO_ROCEV2_GID", severity: "error", subject: "mlx5_0" });
    const inventory = { roles: { managementHca: "mlx5_0", dataHcas: [], defaultRouteInterface: "eth0" } };
    const withModel = codes(text, { inventory: inventory as unknown as NodeInventory });
    expect(withModel).toContainEqual({ code: "GID_LINK_LOCAL_ONLY", severity: "info", subject: "mlx5_0" });
    expect(withModel.map((c) => c.code)).not.toContain("NO_ROCEV2_GID");
  });

  test("a node model that names the management HCA leaves it out of the index comparison", () => {
    const text = capture("show_gids", "a100-roce-tabs").replace(/mlx5_0\t1\t3\t/, "mlx5_0\t1\t7\t");
    const indexCodes = (ctx = {}) => codes(text, ctx).filter((c) => c.code.startsWith("GID_INDEX"));
    expect(indexCodes()).toEqual([{ code: "GID_INDEX_DIFFERS", severity: "warning", subject: "mlx5_0" }]);
    const inventory = { roles: { managementHca: "mlx5_0", dataHcas: [], defaultRouteInterface: "eth0" } };
    expect(indexCodes({ inventory: inventory as unknown as NodeInventory })).toEqual([
      { code: "GID_INDEX_UNIFORM", severity: "info", subject: "node" },
    ]);
  });
});

describe("port findings (ibv_devinfo, ibstat, ibdev2netdev)", () => {
  test("mlx5_3 down in ibstat: PORT_DOWN on mlx5_3; the slower mlx5_0 is taken for the management NIC (info)", () => {
    expect(codes(capture("ibstat", "a100-roce-port-down"))).toEqual([
      { code: "PORT_DOWN", severity: "error", subject: "mlx5_3" },
      { code: "RATE_MISMATCH", severity: "info", subject: "mlx5_0" },
    ]);
  });

  test("mlx5_6 at 100 of 200 Gb/s: RATE_MISMATCH error on mlx5_6", () => {
    expect(codes(capture("ibstat", "a100-roce-half-rate"))).toContainEqual({
      code: "RATE_MISMATCH",
      severity: "error",
      subject: "mlx5_6",
    });
  });

  test("a DGX H100 whose NDR rail mlx5_1 trained at 200 Gb/s beside a 200 Gb/s BlueField-3 Ethernet port: RATE_MISMATCH on mlx5_1 only", () => {
    // InfiniBand and Ethernet ports are separate fabrics: the Ethernet port is not held to the NDR rails' 400 Gb/s.
    const found = codes(capture("ibstat", "cx7-ndr-bf3-eth-prompt")).filter((c) => c.code === "RATE_MISMATCH");
    expect(found).toEqual([{ code: "RATE_MISMATCH", severity: "error", subject: "mlx5_1" }]);
  });

  test("ibv_devinfo -v with mlx5_5's GID at index 5 gets the same GID finding as show_gids", () => {
    expect(codes(capture("ibv_devinfo", "a100-roce-gid-index-5-verbose"))).toContainEqual({
      code: "GID_INDEX_DIFFERS",
      severity: "warning",
      subject: "mlx5_5",
    });
  });

  test("one HCA on older firmware than its identical siblings: FW_MISMATCH warning", () => {
    const text = capture("ibstat", "a100-roce").replace(
      /(CA 'mlx5_8'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tFirmware version: )\S+/,
      "$120.28.1002",
    );
    expect(codes(text)).toContainEqual({ code: "FW_MISMATCH", severity: "warning", subject: "mlx5_8" });
  });

  test("mlx5_4's netdev left at MTU 1500 (active_mtu 1024): MTU_MISMATCH warning; the management NIC's 1024 is fine", () => {
    const lowMtu = (text: string) => text.replace(/(hca_id:\tmlx5_4[\s\S]*?active_mtu:\t\t)4096 \(5\)/, "$11024 (3)");
    // Plain output has no rates: the management NIC is recognised as the other HCA model (MT4117 among MT4123s).
    expect(codes(lowMtu(capture("ibv_devinfo", "a100-roce")))).toEqual([
      { code: "MTU_MISMATCH", severity: "warning", subject: "mlx5_4" },
    ]);
    expect(codes(lowMtu(capture("ibv_devinfo", "a100-roce-verbose"))).map((c) => c.code)).toContain("MTU_MISMATCH");
    expect(codes(capture("ibv_devinfo", "a100-roce")).map((c) => c.code)).toEqual([]);
  });

  test("`No IB devices found`: NO_RDMA_HCA", () => {
    expect(codes("root@n1:~# ibv_devinfo\nNo IB devices found\n").map((c) => c.code)).toEqual(["NO_RDMA_HCA"]);
  });

  test("ibdev2netdev with eth3 Down: PORT_DOWN on mlx5_3 naming eth3", () => {
    const entry = analyzeText("i2n.txt", capture("ibdev2netdev", "a100-roce-port-down-verbose"));
    expect(entry.findings.map((f) => [f.code, f.subject])).toEqual([["PORT_DOWN", "mlx5_3"]]);
    expect(entry.findings[0]?.fix).toMatch(/ip link set eth3 up/);
  });
});

describe("topology and GPU findings", () => {
  test("GPU7 with no NIC at PIX/PXB: GPU_NO_NEAR_NIC warning explaining NODE = PHB for NCCL", () => {
    const entry = analyzeText("topo.txt", capture("nvidia_smi_topo", "a100-roce-gpu-sys"));
    expect(entry.findings.map((f) => [f.code, f.severity, f.subject])).toEqual([
      ["GPU_NO_NEAR_NIC", "warning", "GPU7"],
    ]);
    expect(entry.findings[0]?.message).toMatch(/at PHB \(nvidia-smi: NODE\)/);
    expect(entry.summary).toBe("8 GPUs, 9 NICs; 7 of 8 GPUs have a NIC at PIX/PXB");
  });

  test("the seed's topology: every GPU has a NIC at PIX", () => {
    expect(codes(capture("nvidia_smi_topo", "a100-roce-nic-legend"))).toEqual([]);
  });

  test("ERR! cells and uncorrectable ECC errors name the GPU", () => {
    expect(codes(capture("nvidia_smi", "a100-470-err"))).toEqual([
      { code: "GPU_ECC_UNCORRECTABLE", severity: "error", subject: "GPU2" },
      { code: "GPU_ERR_STATE", severity: "error", subject: "GPU3" },
    ]);
  });

  test("7 GPUs when 8 are expected: GPU_COUNT error; none without --expect-gpus", () => {
    const text = capture("nvidia_smi", "h100-535-seven-gpus");
    expect(codes(text, { expectGpus: 8 })).toEqual([{ code: "GPU_COUNT", severity: "error", subject: "node" }]);
    expect(codes(text)).toEqual([]);
  });

  test("a GPU nvidia-smi cannot open is an error naming its bus id", () => {
    expect(codes(capture("nvidia_smi", "a100-470-lost-gpu"))).toEqual([
      { code: "GPU_ERR_STATE", severity: "error", subject: "GPU 0000:CF:00.0" },
    ]);
  });
});

describe("one fact, one code, one fix: analyze and verify agree", () => {
  test("uncorrectable ECC errors in a pasted nvidia-smi are GPU_ECC_UNCORRECTABLE, as verify says, not GPU_ROW_REMAP", async () => {
    const pasted = analyzeText("smi.txt", capture("nvidia_smi", "a100-470-err")).findings.find(
      (f) => f.subject === "GPU2",
    );
    expect(pasted?.code).toBe("GPU_ECC_UNCORRECTABLE");
    const verified = runChecks(await readInventory(await openReader({ example: "gpu-row-remap" }))).find(
      (f) => f.subject === "GPU2",
    );
    const xml = (await openReader({ example: "gpu-row-remap" })).run("nvidia-smi", ["-q", "-x"]);
    const fromXml = analyzeText("smi.xml", (await xml).stdout).findings.find((f) => f.subject === "GPU2");
    expect(fromXml).toEqual(verified);
  });

  test("GID_INDEX_DIFFERS has the same fix in analyze (pasted show_gids) and verify (the node itself)", async () => {
    const inventory = await readInventory(await openReader({ example: "gid-index-5" }));
    // With the node model, the paste leaves the management mlx5_0 out just as verify does.
    const pasted = analyzeText("gids.txt", capture("show_gids", "a100-roce-gid-index-5"), { inventory }).findings.find(
      (f) => f.code === "GID_INDEX_DIFFERS",
    );
    const verified = runChecks(inventory).find((f) => f.code === "GID_INDEX_DIFFERS");
    expect(pasted?.fix).toBe(verified?.fix);
    expect(pasted?.message).toBe(verified?.message);
  });
});

describe("ofed_info and nvidia-smi -q -x", () => {
  test("`ofed_info -s` after its prompt: MLNX_OFED 5.8-1.1.2.1, nothing wrong", () => {
    const entry = analyzeText("ofed.txt", "$ ofed_info -s\nMLNX_OFED_LINUX-5.8-1.1.2.1:\n");
    expect(entry.kind).toBe("ofed_info");
    expect(entry.data).toMatchObject({ flavor: "MLNX_OFED", version: "5.8-1.1.2.1" });
    expect(entry.summary).toBe("MLNX_OFED 5.8-1.1.2.1");
    expect(entry.findings).toEqual([]);
  });

  test("`ofed_info: command not found`: OFED_ABSENT (info), flavor and version null", () => {
    const entry = analyzeText("ofed.txt", "bash: ofed_info: command not found\n");
    expect(entry.kind).toBe("ofed_info");
    expect(entry.data).toMatchObject({ flavor: null, version: null });
    expect(entry.findings.map((f) => [f.code, f.severity])).toEqual([["OFED_ABSENT", "info"]]);
  });

  const seedGpus = (tweak: (g: XmlGpuSpec, i: number) => void = () => {}): string =>
    renderNvidiaSmiXml({
      driverVersion: "470.141.03",
      cudaVersion: "11.4",
      gpus: ["53", "59", "6E", "73", "8D", "92", "C9", "CF"].map((b, i) => {
        const g: XmlGpuSpec = {
          busId: `00000000:${b}:00.0`,
          name: "NVIDIA A100-SXM4-80GB",
          uuid: `GPU-0000000${i}-1111-2222-3333-444444444444`,
          memoryTotalMiB: 81251,
          minorNumber: i,
          pcieGen: { max: 4, current: 4 },
          pcieWidth: { max: 16, current: 16 },
        };
        tweak(g, i);
        return g;
      }),
    });

  test("the seed's GPUs as XML: recognised, summarised, no findings", () => {
    const entry = analyzeText("smi.xml", seedGpus());
    expect(entry.kind).toBe("nvidia_smi_xml");
    expect(entry.summary).toBe("8 × NVIDIA A100-SXM4-80GB (81251 MiB); driver 470.141.03, CUDA 11.4");
    expect(entry.findings).toEqual([]);
  });

  test("GPU2 with a pending row remap and GPU3 at x8 of x16: GPU_ROW_REMAP and GPU_PCIE_DEGRADED", () => {
    const text = seedGpus((g, i) => {
      if (i === 2) g.remapped = { corr: 0, unc: 1, pending: true, failure: false };
      if (i === 3) g.pcieWidth = { max: 16, current: 8 };
    });
    expect(codes(text)).toEqual([
      { code: "GPU_ROW_REMAP", severity: "error", subject: "GPU2" },
      { code: "GPU_PCIE_DEGRADED", severity: "error", subject: "GPU3" },
    ]);
  });

  test("an idle GPU at a lower PCIe generation is not degraded (power saving)", () => {
    expect(codes(seedGpus((g) => (g.pcieGen = { max: 4, current: 1 })))).toEqual([]);
  });
});

describe("lossless RoCE captures", () => {
  test("mlnx_qos with DSCP trust and PFC on 3: data, no finding, the summary names NCCL_IB_TC=106", () => {
    const e = analyzeText("qos.txt", capture("mlnx_qos", "a100-eth3-dscp-pfc3"));
    expect(e.kind).toBe("mlnx_qos");
    expect(e.data).toMatchObject({ trust: "dscp", pfcEnabled: [3] });
    expect(e.findings).toEqual([]);
  });

  test("mlnx_qos with PFC on no priority: PFC_NONE warning with the mlnx_qos --pfc fix", () => {
    expect(codes(capture("mlnx_qos", "a100-eth5-pcp-no-pfc"))).toEqual([
      { code: "PFC_NONE", severity: "warning", subject: "PFC" },
    ]);
  });

  test("ethtool -S: the pause counters per priority are the data's pause field", () => {
    const e = analyzeText("stats.txt", capture("ethtool_stats", "a100-eth3-mlx5"));
    expect(e.kind).toBe("ethtool_stats");
    expect((e.data as Record<string, number>).rx_prio3_pause).toBe(18432);
    expect(e.findings).toEqual([]);
  });

  // rx_discards_phy: drops for lack of port buffer, the adapter congested; rx_out_of_buffer: no receive buffer posted
  // (NVIDIA, "Understanding mlx5 ethtool Counters").
  test("ethtool -S with rx_discards_phy and no pause frame sent → RX_DISCARDS_PHY says PFC should have paused the sender", () => {
    const e = analyzeText("eth6.txt", capture("ethtool_stats", "h100-eth6-discards"));
    expect(e.findings.map((f) => [f.code, f.severity])).toEqual([
      ["RX_DISCARDS_PHY", "warning"],
      ["RX_OUT_OF_BUFFER", "warning"],
    ]);
    expect(e.findings[0]!.message).toMatch(/rx_discards_phy=58213: .*PFC should have paused the sender/);
    expect(e.findings[0]!.fix).toMatch(/mlnx_qos -i IF/);
  });
});

import { describe, expect, test } from "vitest";
import { pcieGenFromSpeed } from "./gpu-pcie.js";
import { runChecks } from "./index.js";
import { only, problemsOf, verdicts } from "./testing/expect.js";
import { gpuOf, seedInventory } from "./testing/seed-inventory.js";

describe("GPU count and model", () => {
  test("a node that lost a GPU off the bus: GPU_COUNT says 7 of 8 and points at lspci", () => {
    const inv = seedInventory();
    inv.gpus = inv.gpus.filter((g) => g.index !== 5);
    const [f] = only(runChecks(inv, { expectGpus: 8 }), "GPU_COUNT");
    expect(f).toMatchObject({ severity: "error", subject: "GPUs" });
    expect(f?.message).toMatch(/lists 7 GPU\(s\), expected 8/);
    expect(f?.fix).toMatch(/lspci -d 10de:/);
  });

  test("without --expect-gpus only an empty GPU list is reported", () => {
    const inv = seedInventory();
    inv.gpus = inv.gpus.slice(0, 4);
    expect(only(runChecks(inv), "GPU_COUNT")).toEqual([]);
    inv.gpus = [];
    expect(only(runChecks(inv), "GPU_COUNT")[0]?.message).toMatch(/lists no GPU/);
  });

  test("--expect-gpu-model matches case-insensitively and names each odd GPU", () => {
    const inv = seedInventory();
    gpuOf(inv, 6).name = "NVIDIA A100-SXM4-40GB";
    expect(only(runChecks(inv, { expectGpuModel: "a100-sxm4-80gb" }), "GPU_MODEL").map((f) => f.subject)).toEqual([
      "GPU6",
    ]);
    expect(only(runChecks(inv, { expectGpuModel: "A100" }), "GPU_MODEL")).toEqual([]);
  });
});

describe("GPU PCIe link", () => {
  test("GPU3 trained at x8 of x16 is GPU_PCIE_DEGRADED (error) with the lspci command", () => {
    const inv = seedInventory();
    gpuOf(inv, 3).pcieWidth.current = 8;
    const [f] = only(runChecks(inv), "GPU_PCIE_DEGRADED");
    expect(f).toMatchObject({ severity: "error", subject: "GPU3" });
    expect(f?.message).toMatch(/0000:73:00.0\) trained at PCIe x8 of x16/);
    expect(f?.fix).toMatch(/lspci -vv -s 0000:73:00.0/);
  });

  test("an idle GPU at Gen1 of Gen4 but full width is only info, explained", () => {
    const inv = seedInventory();
    gpuOf(inv, 1).pcieGen.current = 1;
    const findings = runChecks(inv);
    expect(problemsOf(findings)).toEqual([]);
    const [f] = only(findings, "GPU_PCIE_DEGRADED");
    expect(f).toMatchObject({ severity: "info", subject: "GPU1" });
    expect(f?.message).toMatch(/Gen1 of Gen4 at full width x16.*idle/);
  });

  test("a width drop is an error even when the generation dropped too", () => {
    const inv = seedInventory();
    Object.assign(gpuOf(inv, 2).pcieGen, { current: 1 });
    Object.assign(gpuOf(inv, 2).pcieWidth, { current: 4 });
    expect(verdicts(only(runChecks(inv), "GPU_PCIE_DEGRADED"))).toEqual([
      { code: "GPU_PCIE_DEGRADED", subject: "GPU2", severity: "error" },
    ]);
  });

  test("without nvidia-smi link data the sysfs link is judged", () => {
    const inv = seedInventory();
    const gpu = gpuOf(inv, 0);
    gpu.pcieWidth = { current: null, max: null };
    gpu.link = { currentSpeed: "8.0 GT/s PCIe", maxSpeed: "16.0 GT/s PCIe", currentWidth: 8, maxWidth: 16 };
    const [f] = only(runChecks(inv), "GPU_PCIE_DEGRADED");
    expect(f?.message).toMatch(/x8 of x16 \(Gen3 of Gen4, from sysfs\)/);
  });

  test("sysfs speed strings map to generations", () => {
    expect(
      ["2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s", "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe"].map(
        pcieGenFromSpeed,
      ),
    ).toEqual([1, 2, 3, 4, 5, 6]);
    expect(pcieGenFromSpeed("Unknown")).toBeNull();
    expect(pcieGenFromSpeed(null)).toBeNull();
  });
});

describe("GPU memory health", () => {
  test("GPU2 with a pending row remap: GPU_ROW_REMAP error, fix resets GPU 2", () => {
    const inv = seedInventory();
    gpuOf(inv, 2).remappedRows = { correctable: 0, uncorrectable: 1, pending: true, failure: false };
    gpuOf(inv, 2).eccVolatileUncorrected = 2;
    const findings = runChecks(inv);
    expect(verdicts(findings.filter((f) => f.subject === "GPU2"))).toEqual([
      { code: "GPU_ROW_REMAP", subject: "GPU2", severity: "error" },
    ]);
    expect(only(findings, "GPU_ROW_REMAP")[0]!.fix).toMatch(/nvidia-smi -r -i 2/);
  });

  test("a row-remapping failure asks for an RMA", () => {
    const inv = seedInventory();
    gpuOf(inv, 4).remappedRows = { correctable: 3, uncorrectable: 512, pending: false, failure: true };
    const [f] = only(runChecks(inv), "GPU_ROW_REMAP");
    expect(f?.message).toMatch(/ran out of spare memory rows/);
    expect(f?.fix).toMatch(/RMA/);
  });

  test("uncorrectable ECC since boot is an error; only in the lifetime count a warning", () => {
    const inv = seedInventory();
    gpuOf(inv, 0).eccVolatileUncorrected = 1;
    gpuOf(inv, 7).eccAggregateUncorrected = 4;
    expect(verdicts(only(runChecks(inv), "GPU_ECC_UNCORRECTABLE"))).toEqual([
      { code: "GPU_ECC_UNCORRECTABLE", subject: "GPU0", severity: "error" },
      { code: "GPU_ECC_UNCORRECTABLE", subject: "GPU7", severity: "warning" },
    ]);
  });

  test("retired pages pending (pre-Ampere GPUs) ask for a reset", () => {
    const inv = seedInventory();
    gpuOf(inv, 5).retiredPagesPending = true;
    const [f] = only(runChecks(inv), "GPU_RETIRED_PAGES_PENDING");
    expect(f).toMatchObject({ subject: "GPU5", severity: "error" });
    expect(f?.fix).toMatch(/nvidia-smi -r -i 5/);
  });
});

describe("GPUDirect", () => {
  test("no peermem on driver 470 (no DMA-BUF): NO_GPUDIRECT with modprobe nvidia-peermem", () => {
    const inv = seedInventory();
    inv.gpuDirect = {
      peermem: null,
      nvidiaLoaded: true,
      dmabufPossible: false,
      mechanism: null,
      reasons: ["driver 470.141.03 < 515: no DMA-BUF"],
    };
    const [f] = only(runChecks(inv), "NO_GPUDIRECT");
    expect(f).toMatchObject({ severity: "error", subject: "node" });
    expect(f?.message).toMatch(/driver 470.141.03/);
    expect(f?.fix).toMatch(/modprobe nvidia-peermem/);
    expect(f?.fix).toMatch(/515/);
  });

  test("DMA-BUF alone is a mechanism: no finding", () => {
    const inv = seedInventory();
    inv.gpuDirect = { ...inv.gpuDirect, peermem: null, dmabufPossible: true, mechanism: "dmabuf" };
    expect(only(runChecks(inv), "NO_GPUDIRECT")).toEqual([]);
  });

  test("GPU7 behind another root complex, SYS to every data NIC: GPU_NO_NEAR_NIC names the nearest", () => {
    const inv = seedInventory();
    inv.paths = inv.paths.map((p) => (p.gpu === 7 ? { ...p, distance: "SYS", nvsmi: "SYS" } : p));
    const [f, ...rest] = only(runChecks(inv), "GPU_NO_NEAR_NIC");
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ severity: "warning", subject: "GPU7" });
    expect(f?.message).toMatch(/nearest is mlx5_1 at SYS/);
    expect(f?.message).toMatch(/NCCL_NET_GDR_LEVEL=PXB/);
  });

  test("a PHB path reports nvidia-smi's NODE beside it", () => {
    const inv = seedInventory();
    inv.paths = inv.paths.map((p) =>
      p.gpu === 0 && p.distance === "PIX" ? { ...p, distance: "PHB", nvsmi: "NODE" } : p,
    );
    expect(only(runChecks(inv), "GPU_NO_NEAR_NIC")[0]?.message).toMatch(/at PHB \(nvidia-smi: NODE\)/);
  });

  test("the management NIC does not count as a near NIC", () => {
    const inv = seedInventory();
    inv.paths = inv.paths.map((p) =>
      p.gpu === 0
        ? { ...p, distance: p.hca === "mlx5_0" ? "PIX" : "SYS", nvsmi: p.hca === "mlx5_0" ? "PIX" : "SYS" }
        : p,
    );
    expect(only(runChecks(inv), "GPU_NO_NEAR_NIC").map((f) => f.subject)).toEqual(["GPU0"]);
  });
});

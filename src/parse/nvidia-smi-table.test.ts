import { describe, expect, test } from "vitest";
import { capture, captureVariants } from "../../test/support/captures.js";
import { assertParserTotal } from "../../test/support/property.js";
import { parseNvidiaSmiTable } from "./nvidia-smi-table.js";

const SEED_BUS = ["53", "59", "6E", "73", "8D", "92", "C9", "CF"].map((b) => `00000000:${b}:00.0`);

describe("nvidia-smi (default table)", () => {
  test("the seed's pasted table: driver 470.141.03, CUDA 11.4, 8 × A100 80 GB at the seed's bus ids", () => {
    const r = parseNvidiaSmiTable(capture("nvidia_smi", "a100-roce-sample"));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value).toMatchObject({ driverVersion: "470.141.03", cudaVersion: "11.4", processes: 0 });
    expect(r.value.gpus.map((g) => g.busId)).toEqual(SEED_BUS);
    expect(r.value.gpus[2]).toMatchObject({
      index: 2,
      name: "NVIDIA A100-SXM...",
      memoryTotalMiB: 81251,
      memoryUsedMiB: 0,
      persistence: "On",
      eccUncorrected: 0,
      fanPercent: null,
      temperatureC: 33,
      perf: "P0",
      powerW: 67,
      powerCapW: 400,
      utilPercent: 0,
      computeMode: "Default",
      migMode: "Disabled",
      errCells: [],
    });
    expect(r.problems).toEqual([]);
  });

  test("the same node in the real column layout gives the same GPUs", () => {
    const sample = parseNvidiaSmiTable(capture("nvidia_smi", "a100-roce-sample"));
    const real = parseNvidiaSmiTable(capture("nvidia_smi", "a100-470"));
    if (!sample.ok || !real.ok) throw new Error("expected ok");
    expect(real.value.gpus).toEqual(sample.value.gpus);
  });

  test.each([
    ["h100-535", "535.104.05", "12.2", 81559, 8],
    ["h100-550", "550.54.15", "12.4", 81559, 8],
    ["v100-418", "418.87.01", "10.1", 32480, 4],
  ])("layout %s: driver %s, CUDA %s, %i MiB per GPU", (name, driver, cuda, mib, count) => {
    const r = parseNvidiaSmiTable(capture("nvidia_smi", name));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value).toMatchObject({ driverVersion: driver, cudaVersion: cuda });
    expect(r.value.gpus).toHaveLength(count);
    expect(r.value.gpus.every((g) => g.memoryTotalMiB === mib)).toBe(true);
    expect(r.problems).toEqual([]);
  });

  test("the old two-line layout has no MIG column; the 535 layout reports a running process", () => {
    const old = parseNvidiaSmiTable(capture("nvidia_smi", "v100-418"));
    const h100 = parseNvidiaSmiTable(capture("nvidia_smi", "h100-535"));
    expect(old.ok && old.value.gpus[0]?.migMode).toBeNull();
    expect(h100.ok && h100.value.processes).toBe(1);
  });

  test("a driver from R610 on (`KMD Version: 610.43.02  CUDA UMD Version: 13.3`): driver and CUDA versions still read", () => {
    const r = parseNvidiaSmiTable(capture("nvidia_smi", "b200-610-kmd-umd-header"));
    expect(r.ok && { driver: r.value.driverVersion, cuda: r.value.cudaVersion, gpus: r.value.gpus.length }).toEqual({
      driver: "610.43.02",
      cuda: "13.3",
      gpus: 8,
    });
  });

  // A driver with no CUDA library loaded prints `CUDA Version: N/A` (shape seen at
  // https://github.com/shkhln/libc6-shim/issues/14); own driver and GPU.
  test("`CUDA Version: N/A` reads as no CUDA version, not as a word of it", () => {
    const header = [
      "+-----------------------------------------------------------------------------------------+",
      "| NVIDIA-SMI 570.86.16              Driver Version: 570.86.16      CUDA Version: N/A      |",
      "|-----------------------------------------+------------------------+----------------------+",
    ].join("\n");
    const r = parseNvidiaSmiTable(header);
    expect(r.ok && [r.value.driverVersion, r.value.cudaVersion]).toEqual(["570.86.16", null]);
  });

  test("ERR! cells are listed per GPU; a non-zero uncorrectable ECC count is kept", () => {
    const r = parseNvidiaSmiTable(capture("nvidia_smi", "a100-470-err"));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.gpus[3]?.errCells).toEqual(["name", "ecc", "fan", "temperature", "perf", "power"]);
    expect(r.value.gpus[3]?.temperatureC).toBeNull();
    expect(r.value.gpus[2]?.eccUncorrected).toBe(4);
    expect(r.value.gpus[0]?.errCells).toEqual([]);
  });

  test("a GPU nvidia-smi could not open is reported with its bus id", () => {
    const r = parseNvidiaSmiTable(capture("nvidia_smi", "a100-470-lost-gpu"));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.gpus).toHaveLength(7);
    expect(r.value.gpuErrors).toEqual([
      { busId: "0000:CF:00.0", message: "Unable to determine the device handle for GPU 0000:CF:00.0: Unknown Error" },
    ]);
  });

  for (const [name, text] of Object.entries(captureVariants(capture("nvidia_smi", "a100-470"), "nvidia-smi"))) {
    test(`a ${name} capture still reads`, () => {
      const r = parseNvidiaSmiTable(text);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      expect(r.value.driverVersion).toBe("470.141.03");
      expect(r.value.gpus).toHaveLength(8);
      expect(r.value.gpus[7]?.memoryTotalMiB).toBe(81251);
    });
  }

  test("a paste cut right after the header (driver 470) → the versions read, the GPU table not: no_gpus says no GPU was checked, not 'no GPU'", () => {
    const head = capture("nvidia_smi", "a100-470").split("\n").slice(0, 3).join("\n");
    const r = parseNvidiaSmiTable(head);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value).toMatchObject({ driverVersion: "470.141.03", cudaVersion: "11.4", gpus: [], gpuTableRead: false });
    const p = r.problems.find((x) => x.code === "nvidia_smi.no_gpus");
    expect(p?.message).toMatch(/header \(driver 470\.141\.03\) was read but no GPU row.*No GPU was checked/);
  });

  test("`No devices were found` is an answer, not a cut capture: read, with no GPU", () => {
    const r = parseNvidiaSmiTable("No devices were found\n");
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value).toMatchObject({ noDevices: true, gpus: [] });
  });

  test("property: random and mutated input never throws", () => {
    assertParserTotal(parseNvidiaSmiTable, capture("nvidia_smi", "a100-470-err"));
    assertParserTotal(parseNvidiaSmiTable, capture("nvidia_smi", "a100-roce-sample"));
  });
});

// A GPU whose name nvidia-smi left blank (shape seen in notes committed to a public repository, index-file 21618469006):
// the first cell's one word is the persistence mode, not the name.
test("a blank GPU name: the row is read, its name empty and its persistence Off", () => {
  const text = [
    "| NVIDIA-SMI 430.50       Driver Version: 430.50       CUDA Version: 10.1     |",
    "|-------------------------------+----------------------+----------------------+",
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
    "|===============================+======================+======================|",
    "|   0                      Off  | 00000000:02:00.0  On |                  N/A |",
    "| N/A   41C    P8     3W /  N/A |    318MiB /  5934MiB |      4%      Default |",
    "+-------------------------------+----------------------+----------------------+",
  ].join("\n");
  const r = parseNvidiaSmiTable(text);
  expect(r.ok).toBe(true);
  if (r.ok) expect(r.value.gpus.map((g) => [g.name, g.persistence, g.memoryTotalMiB])).toEqual([["", "Off", 5934]]);
});

// Shape seen in a GPU guide committed to a public repository (index-file 6331658148): the output shown as shell
// comments under the command, `# ` before every line of the box. The host's numbers here are our own.
test("a table shown as comments under its command (`# | …`): every GPU is read", () => {
  const commented = [
    "# Check GPU information",
    "nvidia-smi",
    "",
    "# Output:",
    "# +-----------------------------------------------------------------------------+",
    "# | NVIDIA-SMI 525.60.13    Driver Version: 525.60.13    CUDA Version: 12.0     |",
    "# |-------------------------------+----------------------+----------------------+",
    "# | GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    "# | Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
    "# |===============================+======================+======================|",
    "# |   0  NVIDIA A100-SXM...  Off  | 00000000:00:07.0 Off |                    0 |",
    "# | N/A   31C    P0    55W / 400W |      0MiB / 40960MiB |      0%      Default |",
    "# +-------------------------------+----------------------+----------------------+",
  ].join("\n");
  const r = parseNvidiaSmiTable(commented);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  expect(r.value.gpus.map((g) => [g.index, g.name, g.busId, g.memoryTotalMiB])).toEqual([
    [0, "NVIDIA A100-SXM...", "00000000:00:07.0", 40960],
  ]);
  expect([r.value.driverVersion, r.value.cudaVersion]).toEqual(["525.60.13", "12.0"]);
});

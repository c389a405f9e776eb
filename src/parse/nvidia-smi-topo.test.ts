import { describe, expect, test } from "vitest";
import { capture, captureVariants } from "../../test/support/captures.js";
import { assertParserTotal } from "../../test/support/property.js";
import { analyzeTranscript } from "../analyze/index.js";
import { parseNvidiaSmiTopo } from "./nvidia-smi-topo.js";

const NICS = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => `mlx5_${i}`);
const GPUS = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `GPU${i}`);

describe("nvidia-smi topo -m", () => {
  test("NICn columns are renamed through the NIC Legend; GPU0 sits at PIX to mlx5_1/mlx5_2", () => {
    const r = parseNvidiaSmiTopo(capture("nvidia_smi_topo", "a100-roce-nic-legend"));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.devices).toEqual([...GPUS, ...NICS]);
    expect(r.value.matrix.GPU0).toMatchObject({
      GPU0: "X",
      GPU1: "NV12",
      mlx5_0: "NODE",
      mlx5_1: "PIX",
      mlx5_8: "SYS",
    });
    expect(r.value.matrix.mlx5_3?.GPU2).toBe("PIX");
    expect(r.value.affinity.GPU4).toEqual({ cpus: "32-63,96-127", numa: "1", gpuNumaId: "N/A" });
    expect(r.problems).toEqual([]);
  });

  test("driver 470 layout (mlx5_n columns, no GPU NUMA ID) reads the same matrix", () => {
    const legend = parseNvidiaSmiTopo(capture("nvidia_smi_topo", "a100-roce-nic-legend"));
    const old = parseNvidiaSmiTopo(capture("nvidia_smi_topo", "a100-roce-470"));
    if (!legend.ok || !old.ok) throw new Error("expected ok");
    expect(old.value.matrix).toEqual(legend.value.matrix);
    expect(old.value.affinity.GPU0).toEqual({ cpus: "0-31,64-95", numa: "0", gpuNumaId: null });
  });

  test("NIC columns without the legend keep their NICn names and say so", () => {
    const text = capture("nvidia_smi_topo", "a100-roce-nic-legend").split("NIC Legend:")[0]!;
    const r = parseNvidiaSmiTopo(text);
    expect(r.ok && r.value.devices).toContain("NIC3");
    expect(r.problems.map((p) => p.code)).toEqual(["nvidia_smi_topo.no_nic_legend"]);
  });

  test("a page that elided columns (`. . .` in the header and every row) keeps each cell under its name, and says so", () => {
    // A guide's table with some GPUs and NICs left out and single spaces between cells, shape seen in
    // https://docs.nvidia.com/gpudirect-storage/benchmarking-guide/index.html (hosts and cells here our own).
    const text = [
      "dgx-a7> nvidia-smi topo -mp",
      "GPU0 GPU1 . . . mlx5_0 mlx5_1",
      "GPU0 X PIX . . . PXB SYS",
      "GPU1 PIX X . . . SYS PXB",
      "mlx5_0 PXB SYS . . . X SYS",
      "mlx5_1 SYS PXB . . . SYS X",
    ].join("\n");
    const r = parseNvidiaSmiTopo(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.devices).toEqual(["GPU0", "GPU1", "mlx5_0", "mlx5_1"]);
    expect(r.value.matrix.GPU1).toEqual({ GPU0: "PIX", GPU1: "X", mlx5_0: "SYS", mlx5_1: "PXB" });
    expect(r.problems.map((p) => p.code)).toEqual(["nvidia_smi_topo.columns_elided"]);
  });

  for (const [name, text] of Object.entries(
    captureVariants(capture("nvidia_smi_topo", "a100-roce-nic-legend"), "nvidia-smi topo -m"),
  )) {
    test(`a ${name} capture still reads`, () => {
      const r = parseNvidiaSmiTopo(text);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      expect(r.value.matrix.GPU7?.mlx5_8 ?? r.value.matrix.GPU7?.NIC8).toBe("PIX");
    });
  }

  test("a matrix cut mid-row reports the bad row and the rows missing", () => {
    const text = capture("nvidia_smi_topo", "a100-roce-470");
    const cut = text.slice(0, text.indexOf("\nmlx5_4") + 20);
    const r = parseNvidiaSmiTopo(cut);
    expect(r.problems.map((p) => p.code)).toEqual(["nvidia_smi_topo.bad_row", "nvidia_smi_topo.missing_rows"]);
  });

  // A bug report's environment dump that stops inside the first row, in the middle of a cell (`… SYS SY`; shape seen
  // at https://github.com/vllm-project/vllm/issues/33447): the whole cells before the cut are read.
  test("a paste cut inside the first row's last cell keeps that row's whole cells", () => {
    const text = capture("nvidia_smi_topo", "a100-roce-470");
    const gpu0 = text.split("\n").find((l) => l.startsWith("GPU0"))!;
    const cut = `${text.slice(0, text.indexOf(gpu0))}${gpu0.slice(0, gpu0.indexOf("SYS") + 2)}`;
    expect(cut.endsWith("SY")).toBe(true);
    const r = parseNvidiaSmiTopo(cut);
    expect(r.ok).toBe(true);
    const whole = parseNvidiaSmiTopo(text);
    const row = r.ok && whole.ok ? r.value.matrix.GPU0! : {};
    // Every cell read is the whole capture's cell, and the one cut in two is not read.
    for (const [dev, link] of Object.entries(row)) expect(whole.ok && whole.value.matrix.GPU0![dev]).toBe(link);
    expect(Object.values(row).filter((c) => c === "SYS")).toHaveLength(0);
    expect(r.ok && r.value.devices).toEqual(whole.ok && whole.value.devices);
  });

  // A matrix kept in a source file's template literal: the literal opens on the header's line (`"10.40.2.17":
  // \`        GPU0 …`; shape seen in a TypeScript sample committed to a public repository, index-file 54754140895).
  test("a header after what opened its block on the same line starts at its GPU0", () => {
    const text = capture("nvidia_smi_topo", "a100-roce-470");
    const opened = `    "10.40.2.17": \`${text}`;
    const [a, b] = [parseNvidiaSmiTopo(opened), parseNvidiaSmiTopo(text)];
    expect(a.ok && a.value.devices).toEqual(b.ok && b.value.devices);
  });

  test("a paste cut after the header row → not read (no_rows): no GPU↔NIC path was checked", () => {
    const header = capture("nvidia_smi_topo", "a100-roce-470").split("\n")[0]!;
    const r = parseNvidiaSmiTopo(`${header}\n`);
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => p.code)).toEqual(["nvidia_smi_topo.no_rows"]);
    expect(r.problems[0]?.message).toMatch(/17 devices.*No GPU↔NIC path was checked/);
  });

  test("property: random and mutated input never throws", () => {
    assertParserTotal(parseNvidiaSmiTopo, capture("nvidia_smi_topo", "a100-roce-nic-legend"));
  });

  // A name that fills its tab stop runs into the next where the tab was lost in a copy (shape seen in
  // https://github.com/vllm-project/vllm/issues/31594; this test's own matrix).
  test("two column names glued together (`NIC1NIC2`) are two columns, and two cells glued (`NODESYS`) two cells", () => {
    const text = [
      "\tGPU0\tNIC0\tNIC1NIC2\tCPU Affinity\tNUMA Affinity",
      "GPU0\t X \tPIX\tNODESYS\t0-47\t0",
      "NIC0\tPIX\t X \tNODE\tSYS",
      "NIC1\tNODE\tNODE\t X \tSYS",
      "NIC2\tSYS\tSYS\tSYS\t X ",
    ].join("\n");
    const r = parseNvidiaSmiTopo(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.devices).toEqual(["GPU0", "NIC0", "NIC1", "NIC2"]);
    expect(r.value.matrix.GPU0).toMatchObject({ NIC1: "NODE", NIC2: "SYS" });
  });

  // The last name runs into `CPU Affinity` the same way (shape seen in https://github.com/vllm-project/vllm/issues/20862;
  // this test's own matrix).
  test("the last column name glued to `CPU Affinity` (`NIC1CPU Affinity`) is a column, and the affinity still read", () => {
    const text = [
      "        GPU0    GPU1    NIC0    NIC1CPU Affinity     NUMA Affinity   GPU NUMA ID",
      "GPU0     X      NV18    PIX     SYS  0-31,128-159     0               N/A",
      "GPU1    NV18     X      SYS     PIX  32-63,160-191    1               N/A",
      "NIC0    PIX     SYS      X      SYS",
      "NIC1    SYS     PIX     SYS      X",
    ].join("\n");
    const r = parseNvidiaSmiTopo(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.devices).toEqual(["GPU0", "GPU1", "NIC0", "NIC1"]);
    expect(r.value.matrix.GPU1).toMatchObject({ NIC1: "PIX" });
    expect(r.value.affinity.GPU1).toMatchObject({ cpus: "32-63,160-191", numa: "1" });
  });
});

// A report's excerpt of the GPU rows alone, no header row and no legend (shape seen in a benchmark report committed
// to a public repository, index-file 55623350939; cells our own): each GPU row's X names its column, the cells after
// the GPUs' are unnamed and left unread.
describe("GPU rows with no header row", () => {
  const rows = [
    "GPU0\t X \tNV12\tNV12\tPXB\tSYS\t0-31\t0\t\tN/A",
    "GPU1\tNV12\t X \tNV12\tPXB\tSYS\t0-31\t0\t\tN/A",
    "GPU2\tNV12\tNV12\t X \tSYS\tPXB\t32-63\t1\t\tN/A",
  ];
  test("read by the diagonal: the GPU↔GPU cells, and a problem that says the NIC columns were not read", () => {
    const r = parseNvidiaSmiTopo(rows.join("\n"));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value).toMatchObject({
      devices: ["GPU0", "GPU1", "GPU2"],
      columnsFrom: "row_diagonal",
      unnamedColumns: 2,
    });
    expect(r.value.matrix.GPU2).toEqual({ GPU0: "NV12", GPU1: "NV12", GPU2: "X" });
    expect(r.problems.map((p) => p.code)).toEqual(["nvidia_smi_topo.no_header"]);
  });
  test("analyze warns that no GPU↔NIC path was checked (not a PASS), and reports no `no NIC` finding", () => {
    const [entry] = analyzeTranscript("report.md", `## Topology\n\n${rows.join("\n")}\n`);
    expect(entry?.kind).toBe("nvidia_smi_topo");
    expect(entry?.findings.map((f) => [f.code, f.severity])).toEqual([["TOPO_NICS_UNCHECKED", "warning"]]);
    expect(entry?.summary).toMatch(/NIC columns unnamed/);
  });
  test("rows whose X is not on the diagonal are not read so", () => {
    expect(parseNvidiaSmiTopo([rows[1]!, rows[0]!].join("\n")).ok).toBe(false);
  });
});

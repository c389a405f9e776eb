import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { analyzeText } from "../analyze/index.js";
import { parseNvidiaSmiQuery } from "./nvidia-smi-query.js";

// `nvidia-smi -q` text as pasted in issues: shapes seen at https://github.com/NVIDIA/k8s-device-plugin/issues/250
// (a vGPU, `nvidia-smi -a`) and https://github.com/NVIDIA/nvidia-docker/issues/1226 (a Hyper-V PCI domain, a narrower
// key column). Field names as nvidia-smi(1) documents them; host, values and ids here are our own.
const W = 40;
const kv = (indent: number, k: string, v: string) => `${" ".repeat(indent)}${k}`.padEnd(W) + `: ${v}`;
function queryText(cuda: string, gpus: { bus: string; name: string; total: number }[]): string {
  const lines = [
    "",
    "==============NVSMI LOG==============",
    "",
    kv(0, "Timestamp", "Thu Nov  5 10:11:12 2026"),
    kv(0, "Driver Version", "550.127.05"),
    kv(0, "CUDA Version", cuda),
    "",
    kv(0, "Attached GPUs", String(gpus.length)),
  ];
  for (const g of gpus) {
    lines.push(
      `GPU ${g.bus}`,
      kv(4, "Product Name", g.name),
      kv(4, "Persistence Mode", "Enabled"),
      "    PCI",
      kv(8, "Bus Id", g.bus),
      "    FB Memory Usage",
      kv(8, "Total", `${g.total} MiB`),
      kv(8, "Used", "4 MiB"),
      "    BAR1 Memory Usage",
      kv(8, "Total", "131072 MiB"),
      "",
    );
  }
  return `${lines.join("\n")}\n`;
}

describe("nvidia-smi -q text", () => {
  test("versions from their lines; GPUs in order, the frame-buffer total (not BAR1's) as memory", () => {
    const text = queryText("12.4", [
      { bus: "00000000:18:00.0", name: "NVIDIA L40S", total: 46068 },
      { bus: "00000000:AF:00.0", name: "NVIDIA L40S", total: 46068 },
    ]);
    const r = parseNvidiaSmiQuery(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect([r.value.driverVersion, r.value.cudaVersion]).toEqual(["550.127.05", "12.4"]);
    expect(r.value.gpus.map((g) => [g.index, g.name, g.busId, g.memoryTotalMiB, g.persistence])).toEqual([
      [0, "NVIDIA L40S", "00000000:18:00.0", 46068, "On"],
      [1, "NVIDIA L40S", "00000000:AF:00.0", 46068, "On"],
    ]);
  });

  test("`Not Found` for the CUDA version is no version (null), not the words", () => {
    const e = analyzeText(
      "q.txt",
      queryText("Not Found", [{ bus: "000052CE:00:00.0", name: "Tesla K80", total: 11441 }]),
    );
    expect(e.kind).toBe("nvidia_smi");
    expect(e.data).toMatchObject({ driverVersion: "550.127.05", cudaVersion: null });
    expect((e.data as { evidence: unknown }).evidence).toEqual({
      driverVersion: "query_driver_version",
      cudaVersion: "query_cuda_version",
      gpus: "query_gpu_blocks",
    });
  });

  test("indented as a quoted paste, the same facts", () => {
    const text = queryText("11.0", [{ bus: "00000000:00:05.0", name: "GRID V100D-8C", total: 8192 }]);
    const indented = text
      .split("\n")
      .map((l) => (l ? `  ${l}` : l))
      .join("\n");
    const a = parseNvidiaSmiQuery(text);
    const b = parseNvidiaSmiQuery(indented);
    expect(b).toEqual(a);
  });

  test("never throws; text without the banner or a GPU block is not claimed", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => {
        const r = parseNvidiaSmiQuery(s);
        if (!/NVSMI LOG|GPU [0-9A-Fa-f]{4,8}:/.test(s)) expect(r.ok).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

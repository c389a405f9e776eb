import { finding } from "../../checks/catalogue.js";
import { gpuMemoryFinding } from "../../checks/gpus.js";
import type { Finding } from "../../core/finding.js";
import { makeFinding } from "../../core/finding.js";
import { NVSMI_LOG, parseNvidiaSmiQuery } from "../../parse/nvidia-smi-query.js";
import { type NvidiaSmiTable, parseNvidiaSmiTable } from "../../parse/nvidia-smi-table.js";
import { ANALYZE_CATALOGUE as C } from "../catalogue.js";
import { tally } from "../context.js";
import type { AnalyzeContext, AnalyzerKind } from "../types.js";
import { anyLine, outcomeOf, withEvidence } from "./outcome.js";

function gpuFindings(table: NvidiaSmiTable): Finding[] {
  const out: Finding[] = [];
  for (const g of table.gpus) {
    const subject = `GPU${g.index}`;
    if (g.errCells.length > 0) {
      out.push(makeFinding(C, "GPU_ERR_STATE", subject, { busId: g.busId, columns: g.errCells, message: "" }));
    }
    // The table's "Volatile Uncorr. ECC" column: the same fact, code and words as verify's.
    const memory = gpuMemoryFinding(subject, {
      busId: g.busId,
      eccVolatileUncorrected: g.eccUncorrected,
      eccAggregateUncorrected: null,
      retiredPagesPending: null,
      remappedRows: null,
    });
    if (memory) out.push(memory);
  }
  for (const e of table.gpuErrors) {
    out.push(
      makeFinding(C, "GPU_ERR_STATE", e.busId ? `GPU ${e.busId}` : "GPU", {
        busId: e.busId,
        columns: [],
        message: e.message,
      }),
    );
  }
  return out;
}

function nodeFindings(table: NvidiaSmiTable, ctx: AnalyzeContext): Finding[] {
  // Only the header read: the GPU list is unread, so neither a count nor a model can be judged.
  if (table.gpuTableRead === false) return [];
  const out: Finding[] = [];
  if (table.noDevices && table.gpus.length === 0) out.push(makeFinding(C, "NO_GPU", "node", {}));
  return [...out, ...gpuSetFindings(table.gpus, ctx)];
}

/** GPU count against --expect-gpus and one model per node: shared by the table and the XML. */
export function gpuSetFindings(gpus: readonly { name: string }[], ctx: AnalyzeContext): Finding[] {
  const out: Finding[] = [];
  const found = gpus.length;
  if (ctx.expectGpus !== undefined && found !== ctx.expectGpus) {
    const severity = found < ctx.expectGpus ? "error" : "warning";
    out.push(finding("GPU_COUNT", "node", { found, expected: ctx.expectGpus }, severity));
  }
  const models = [...new Set(gpus.map((g) => g.name).filter((n) => n !== "ERR!"))];
  if (models.length > 1) out.push(makeFinding(C, "GPU_MODEL_MIXED", "node", { models }));
  return out;
}

/** `8 × NVIDIA A100-SXM... (81251 MiB); driver 470.141.03, CUDA 11.4` */
export function gpuSummary(
  gpus: readonly { name: string; memoryTotalMiB: number | null }[],
  driverVersion: string | null,
  cudaVersion: string | null,
): string {
  const models = tally(gpus.map((g) => `${g.name}${g.memoryTotalMiB ? ` (${g.memoryTotalMiB} MiB)` : ""}`))
    .map(([m, n]) => `${n} × ${m}`)
    .join(", ");
  const versions = [driverVersion ? `driver ${driverVersion}` : null, cudaVersion ? `CUDA ${cudaVersion}` : null]
    .filter(Boolean)
    .join(", ");
  return [models || "no GPU", versions].filter(Boolean).join("; ");
}

/** `nvidia-smi -q` text: the versions from their own `Key : Value` lines, the GPUs from their blocks. */
function analyzeQuery(text: string, ctx: AnalyzeContext) {
  const parsed = withEvidence(parseNvidiaSmiQuery(text), (v) => ({
    driverVersion: /^\s*(?:Driver|KMD) Version\s*:/m.test(text) ? "query_driver_version" : null,
    cudaVersion: /^\s*CUDA (?:UMD )?Version\s*:/m.test(text) ? "query_cuda_version" : null,
    gpus: v.gpus.length > 0 ? "query_gpu_blocks" : null,
  }));
  return outcomeOf(parsed, (value) => ({
    findings: [...gpuFindings(value), ...nodeFindings(value, ctx)],
    summary: gpuSummary(value.gpus, value.driverVersion, value.cudaVersion),
  }));
}

export const nvidiaSmiAnalyzer: AnalyzerKind = {
  kind: "nvidia_smi",
  detect(head) {
    if (/<\?xml|<nvidia_smi_log>/.test(head)) return 0;
    // `nvidia-smi -q` text: its banner line, then the versions and GPU blocks.
    if (NVSMI_LOG.test(head)) return 0.9;
    const header = /NVIDIA-SMI[ \t]+\d/.test(head);
    const driver = /(?:Driver|KMD) Version:/.test(head);
    if (header && driver) return 0.95;
    // `|   0  NVIDIA A100-SXM...  On   | 00000000:53:00.0 Off |`: the first cell, then the bus id cell.
    if (anyLine(head, /^[ \t]*\|[ \t]*\d+[ \t]+\S[^|]*\|[ \t]*[0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d/))
      return 0.75;
    return anyLine(head, /^[ \t]*No devices were found[ \t]*$/) ? 0.6 : 0;
  },
  analyze(text, ctx) {
    if (NVSMI_LOG.test(text)) return analyzeQuery(text, ctx);
    // The header line (`NVIDIA-SMI … Driver Version: … CUDA Version: …`) is the only reading of the versions; a header
    // without a CUDA field (drivers before 410) leaves the CUDA version unknown.
    const parsed = withEvidence(parseNvidiaSmiTable(text), (v) => ({
      driverVersion: v.driverVersion !== null ? "header_line" : null,
      cudaVersion: v.smiVersion !== null && /CUDA (?:UMD )?Version:/.test(text) ? "header_line" : null,
      gpus: v.gpus.length > 0 ? "gpu_rows" : v.noDevices ? "no_devices_line" : null,
    }));
    const out = outcomeOf(parsed, (value) => ({
      findings: [...gpuFindings(value), ...nodeFindings(value, ctx)],
      summary:
        value.gpuTableRead === false
          ? gpuSummary([], value.driverVersion, value.cudaVersion).replace(/^no GPU/, "GPU table not in the capture")
          : gpuSummary(value.gpus, value.driverVersion, value.cudaVersion),
    }));
    // A paste cut after the header: its versions are reported, its GPUs are not read (never a PASS on "no GPU").
    return parsed.ok && parsed.value.gpuTableRead === false ? { ...out, unread: ["gpus"] } : out;
  },
};

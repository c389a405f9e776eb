import { finding } from "../../checks/catalogue.js";
import type { Finding } from "../../core/finding.js";
import { makeFinding } from "../../core/finding.js";
import { naturalCompare } from "../../core/natural.js";
import { type NvidiaSmiTopo, parseNvidiaSmiTopo } from "../../parse/nvidia-smi-topo.js";
import { ANALYZE_CATALOGUE as C } from "../catalogue.js";
import { managementHcaOf, plural } from "../context.js";
import type { AnalyzeContext, AnalyzerKind } from "../types.js";
import { headLines, outcomeOf, withEvidence } from "./outcome.js";

/** Closeness for NCCL: NODE counts as PHB (NCCL's CPU node is per NUMA node). */
const RANK: Record<string, number> = { PIX: 1, PXB: 2, PHB: 3, NODE: 3.5, SYS: 4 };
const NEAR = new Set(["PIX", "PXB"]);

const isGpu = (d: string) => /^GPU\d+$/.test(d);

function judgeTopo(topo: NvidiaSmiTopo, ctx: AnalyzeContext): { findings: Finding[]; summary: string } {
  const management = managementHcaOf(ctx);
  const gpus = topo.devices.filter(isGpu);
  const nics = topo.devices.filter((d) => !isGpu(d) && d !== management);
  // Rows with no header: their NIC columns have no names, so no GPU↔NIC path is judged, and that is said.
  if (topo.columnsFrom === "row_diagonal" && (topo.unnamedColumns ?? 0) > 0)
    return {
      findings: [makeFinding(C, "TOPO_NICS_UNCHECKED", "node", { columns: topo.unnamedColumns ?? 0 })],
      summary: `${plural(gpus.length, "GPU")}; NIC columns unnamed (no header row), not checked`,
    };
  if (nics.length === 0) {
    return { findings: [makeFinding(C, "TOPO_NO_NIC", "node", {})], summary: `${plural(gpus.length, "GPU")}, no NIC` };
  }
  // A NIC near no GPU (the management NIC on its own root port) loses ties to one that serves some GPU.
  const servesSome = (nic: string) => gpus.some((g) => NEAR.has(topo.matrix[g]?.[nic] ?? ""));
  // A GPU's row read whole: every NIC's cell in it (a paste can end inside a row).
  const whole = (g: string) => topo.matrix[g] !== undefined && nics.every((n) => topo.matrix[g]![n] !== undefined);
  const findings: Finding[] = [];
  let near = 0;
  for (const gpu of gpus) {
    const row = topo.matrix[gpu];
    if (!row || !whole(gpu)) continue;
    const best = nics
      .filter((n) => row[n] !== undefined && RANK[row[n]!] !== undefined)
      .sort(
        (a, b) =>
          RANK[row[a]!]! - RANK[row[b]!]! || Number(servesSome(b)) - Number(servesSome(a)) || naturalCompare(a, b),
      )[0];
    if (best === undefined) continue;
    if (NEAR.has(row[best]!)) near++;
    else
      findings.push(
        finding("GPU_NO_NEAR_NIC", gpu, {
          busId: null,
          nearestHca: best,
          // nvidia-smi's NODE is a host bridge (PHB) for NCCL.
          distance: row[best] === "NODE" ? "PHB" : row[best]!,
          nvsmi: row[best]!,
          gpuNuma: null,
        }),
      );
  }
  // A cut capture lacks the last GPUs' rows, or ends inside one before its NIC cells: "every GPU" may only speak for
  // the rows read whole.
  const rows = gpus.filter(whole).length;
  const unread = gpus.filter((g) => !whole(g));
  const verdict =
    unread.length > 0
      ? `${near} of the ${rows} GPU rows read have a NIC at PIX/PXB; ${unread.join(", ")} not checked (row missing or cut)`
      : near === rows
        ? "every GPU has a NIC at PIX/PXB"
        : `${near} of ${rows} GPUs have a NIC at PIX/PXB`;
  return { findings, summary: `${plural(gpus.length, "GPU")}, ${plural(nics.length, "NIC")}; ${verdict}` };
}

export const nvidiaSmiTopoAnalyzer: AnalyzerKind = {
  kind: "nvidia_smi_topo",
  detect(head) {
    const lines = headLines(head);
    // The header row starts with blanks, but a wrapper that eats one separator (`[1,0]<stdout>:`) can leave it flush.
    const header = lines.find((l) => /^[ \t]*GPU0\b/.test(l) && !/^[ \t]*GPU0[ \t]+X\b/.test(l));
    if (header && /CPU[ \t]+Affinity|NUMA[ \t]+Affinity/.test(header)) return 0.95;
    const gpu0Row = lines.some((l) => /^[ \t]*GPU0[ \t]+X[ \t]/.test(l));
    if (gpu0Row && lines.some((l) => /^[ \t]*Legend:/.test(l))) return 0.85;
    if (header && gpu0Row) return 0.7;
    // The GPU rows alone (a report's excerpt without the header): GPU1's X second, after GPU0's first.
    return gpu0Row && lines.some((l) => /^[ \t]*GPU1[ \t]+\S+[ \t]+X[ \t]/.test(l)) ? 0.6 : 0;
  },
  analyze(text, ctx) {
    // Devices are the matrix's columns; a NIC's RDMA name comes from the NIC Legend, else it stays `NICn`.
    const parsed = withEvidence(parseNvidiaSmiTopo(text), (v) => ({
      devices: v.devices.length === 0 ? null : v.columnsFrom === "row_diagonal" ? "row_diagonal" : "column_header",
      nicNames: v.devices.some((d) => !/^(?:GPU|NIC)\d+$/.test(d))
        ? /NIC Legend/.test(text)
          ? "nic_legend"
          : "column_header"
        : null,
      matrix: Object.keys(v.matrix).length > 0 ? "matrix_rows" : null,
    }));
    return outcomeOf(parsed, (value) => judgeTopo(value, ctx));
  },
};

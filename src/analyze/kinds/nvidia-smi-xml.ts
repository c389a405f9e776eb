import { finding } from "../../checks/catalogue.js";
import { gpuMemoryFinding } from "../../checks/gpus.js";
import type { Finding } from "../../core/finding.js";
import { type NvidiaSmiXml, parseNvidiaSmiXml } from "../../parse/nvidia-smi-xml.js";
import type { AnalyzerKind } from "../types.js";
import { gpuSetFindings, gpuSummary } from "./nvidia-smi.js";
import { outcomeOf, withEvidence } from "./outcome.js";

function gpuHealthFindings(xml: NvidiaSmiXml): Finding[] {
  const out: Finding[] = [];
  for (const g of xml.gpus) {
    const subject = `GPU${g.index}`;
    const memory = gpuMemoryFinding(subject, g);
    if (memory) out.push(memory);
    // An idle GPU drops its PCIe generation to save power, so only the width says the link is degraded.
    const { current, max } = g.pcieWidth;
    if (current !== null && max !== null && current < max) {
      out.push(
        finding("GPU_PCIE_DEGRADED", subject, {
          busId: g.busId,
          source: "nvidia-smi",
          currentWidth: current,
          maxWidth: max,
          currentGen: g.pcieGen.current,
          maxGen: g.pcieGen.max,
          widthDegraded: true,
        }),
      );
    }
  }
  return out;
}

export const nvidiaSmiXmlAnalyzer: AnalyzerKind = {
  kind: "nvidia_smi_xml",
  detect(head) {
    if (/<nvidia_smi_log\b/.test(head)) return 0.98;
    return /<\?xml[^>]*\?>\s*<!DOCTYPE nvidia_smi_log/.test(head) ? 0.95 : 0;
  },
  analyze(text, ctx) {
    // Each version from its own element; `Not Found` there is evidence of none (null, with the element named).
    const parsed = withEvidence(parseNvidiaSmiXml(text), (v) => ({
      driverVersion: /<driver_version>/.test(text) ? "driver_version_element" : null,
      cudaVersion: /<cuda_version>/.test(text) ? "cuda_version_element" : null,
      gpus: v.gpus.length > 0 ? "gpu_elements" : null,
    }));
    return outcomeOf(parsed, (value) => ({
      findings: [...gpuHealthFindings(value), ...gpuSetFindings(value.gpus, ctx)],
      summary: gpuSummary(value.gpus, value.driverVersion, value.cudaVersion),
    }));
  },
};

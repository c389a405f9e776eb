/**
 * A data NIC's PCIe link trained below its capability. Unlike a GPU, a NIC does not narrow its link to save power: a
 * narrower link is a riser, slot or bifurcation fault — an error when the trained link carries less than the port's
 * line rate (a 200 Gb/s port behind PCIe Gen4 x8 ≈ 126 Gb/s), a warning otherwise. A lower generation at full width
 * may be the platform's (a Gen5 NIC in a Gen4 server): said only when it caps the port (an error then too).
 */
import type { Finding } from "../core/finding.js";
import type { Hca } from "../inventory/types.js";
import { parsePcieSpeed } from "../parse/sysfs.js";
import { finding } from "./catalogue.js";
import { pcieGenFromSpeed } from "./gpu-pcie.js";
import { dataHcas } from "./select.js";
import type { Check } from "./types.js";

const gtPerSecond = (speed: string | null): number | null => {
  const r = speed === null ? null : parsePcieSpeed(speed);
  return r?.ok ? r.value : null;
};

/** Usable Gb/s per lane after line encoding: 8b/10b up to 5 GT/s, 128b/130b to 32 GT/s, FLIT (242/256) at 64. */
export function laneGbps(gts: number): number {
  if (gts <= 5) return gts * 0.8;
  if (gts <= 32) return (gts * 128) / 130;
  return (gts * 242) / 256;
}

function pcieFinding(h: Hca): Finding | null {
  const link = h.link;
  if (!link || link.currentWidth === null || link.maxWidth === null) return null;
  const cur = gtPerSecond(link.currentSpeed);
  const max = gtPerSecond(link.maxSpeed);
  // A VF or an emulated bridge reports width 0 or an unknown speed: nothing trained to judge.
  if (cur === null || max === null || link.currentWidth < 1) return null;
  const widthDegraded = link.currentWidth < link.maxWidth;
  if (!widthDegraded && cur >= max) return null;
  const linkGbps = Math.round(link.currentWidth * laneGbps(cur));
  const portGbps = Math.max(0, ...h.ports.map((p) => p.rateGbps ?? 0));
  const capsPort = portGbps > 0 && linkGbps < portGbps;
  if (!widthDegraded && !capsPort) return null;
  const evidence = {
    busId: h.pciAddress ?? h.name,
    currentWidth: link.currentWidth,
    maxWidth: link.maxWidth,
    currentGen: pcieGenFromSpeed(link.currentSpeed),
    maxGen: pcieGenFromSpeed(link.maxSpeed),
    linkGbps,
    portGbps: portGbps || null,
    widthDegraded,
  };
  return finding("HCA_PCIE_DEGRADED", h.name, evidence, capsPort ? "error" : "warning");
}

export const hcaPcieCheck: Check = {
  name: "hca-pcie",
  codes: ["HCA_PCIE_DEGRADED"],
  run(inv) {
    return dataHcas(inv)
      .map(pcieFinding)
      .filter((f): f is Finding => f !== null);
  },
};

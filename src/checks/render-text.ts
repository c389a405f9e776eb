/** The `verify` text report: header, a short node summary, findings grouped by severity, a verdict line. */

import { ofedNotRunning } from "../inventory/build-ofed.js";
import type { NodeInventory } from "../inventory/types.js";
import { DEFAULT_TEXT_WIDTH, renderFindingSections, summaryLine } from "../report/findings-text.js";
import type { VerifyReport } from "./index.js";
import { compactNames, dataHcas, dataPorts, groupsByCount, isRoce, isUp } from "./select.js";

export function renderVerifyText(report: VerifyReport, width = DEFAULT_TEXT_WIDTH): string {
  const lines = [`kube-rdma verify: ${report.host} (${report.source})`, "", "Node", ...renderSummary(report.inventory)];
  lines.push(...renderFindingSections(report.findings, width));
  lines.push("", summaryLine(report.summary, `node ${report.host}`));
  return `${lines.join("\n")}\n`;
}

/** Label/value rows describing the node the way an operator checks it (the reference setup's three commands and more). */
export function summaryRows(inv: NodeInventory): [string, string][] {
  return [
    ["OFED", ofedText(inv)],
    [
      "NVIDIA",
      inv.driver.status === "ok"
        ? driverText(inv)
        : `nvidia-smi ${inv.driver.status}${inv.driver.driverVersion ? ` (driver ${inv.driver.driverVersion} loaded)` : ""}`,
    ],
    ["GPUs", gpusText(inv)],
    ["GPUDirect", gpuDirectText(inv)],
    ["Management", managementText(inv)],
    ["Data NICs", dataNicsText(inv)],
    ["GID index", gidIndexText(inv)],
  ];
}

function renderSummary(inv: NodeInventory): string[] {
  return summaryRows(inv).map(([label, value]) => `  ${label.padEnd(12)}${value}`);
}

function ofedText(inv: NodeInventory): string {
  const { ofed } = inv;
  const loaded = ofed.loadedDriver;
  const mlx5 = loaded?.version ? ` (mlx5_core ${loaded.version})` : "";
  if (ofed.status === "unavailable") return `unknown: ${ofed.error ?? "ofed_info could not be asked"}`;
  if (ofed.status === "absent") {
    return loaded?.from === "ofed"
      ? `OFED drivers loaded${mlx5}, ofed_info not here`
      : "not installed (inbox rdma-core)";
  }
  if (ofed.flavor && ofed.version) {
    const notRunning = ofedNotRunning(ofed);
    const running = !notRunning
      ? ""
      : notRunning.loaded === null
        ? ", but the kernel runs the inbox mlx5 driver"
        : `, but the kernel runs mlx5_core ${notRunning.loaded}`;
    return `${ofed.flavor} ${ofed.version}${running}`;
  }
  return `unrecognised${ofed.raw ? `: ${ofed.raw.trim().split("\n")[0]}` : ""}`;
}

function driverText(inv: NodeInventory): string {
  const { driverVersion, cudaVersion } = inv.driver;
  return `driver ${driverVersion ?? "?"}, CUDA ${cudaVersion ?? "?"}`;
}

function gpusText(inv: NodeInventory): string {
  if (inv.gpus.length === 0) return "none listed";
  return groupsByCount(
    inv.gpus,
    (g) => g.name,
    (a, b) => a.localeCompare(b),
  )
    .map(([name, list]) => {
      const mem = list[0]?.memoryTotalMiB;
      return `${list.length} × ${name}${mem ? ` (${mem} MiB)` : ""}`;
    })
    .join(", ");
}

function gpuDirectText(inv: NodeInventory): string {
  const { mechanism, peermem, kernelModule } = inv.gpuDirect;
  const flavour = kernelModule ? ` (${kernelModule} GPU kernel module)` : "";
  if (mechanism === "peermem") return peermem ?? "peer-memory module";
  if (mechanism === "dmabuf") return `DMA-BUF${flavour}`;
  return `none${flavour}`;
}

function managementText(inv: NodeInventory): string {
  const route = inv.roles.defaultRouteInterface;
  const hca = inv.hcas.find((h) => h.name === inv.roles.managementHca);
  if (!hca) return route ? `${route} (default route; not an RDMA NIC)` : "unknown (no default route)";
  const rate = hca.ports[0]?.rateGbps;
  const via = hca.netdevs.length ? ` on ${hca.netdevs.join(", ")}` : "";
  const routeText = !route ? "" : hca.netdevs.includes(route) ? " (default route)" : ` (default route via ${route})`;
  return `${hca.name}${via}${routeText}${rate ? `, ${rate} Gb/s` : ""}`;
}

function dataNicsText(inv: NodeInventory): string {
  const hcas = dataHcas(inv);
  if (hcas.length === 0) return "none";
  const ports = dataPorts(inv);
  const netdevs = hcas.flatMap((h) => h.netdevs);
  const layers = [...new Set(ports.map((p) => (isRoce(p.port) ? "RoCE" : p.port.linkLayer)))].join("+");
  const rated = ports.filter((p) => isUp(p.port) && p.port.rateGbps !== null);
  const rates = groupsByCount(
    rated,
    (p) => p.port.rateGbps!,
    (a, b) => b - a,
  );
  const rateText =
    rates.length === 1 ? `${rates[0]![0]} Gb/s` : rates.map(([r, l]) => `${r} Gb/s ×${l.length}`).join(", ");
  const down = ports.length - ports.filter((p) => isUp(p.port)).length;
  const head = `${hcas.length}: ${compactNames(hcas.map((h) => h.name))}${netdevs.length ? ` on ${compactNames(netdevs)}` : ""}`;
  return [head, layers, rateText, down ? `${down} port(s) not up` : ""].filter(Boolean).join(", ");
}

function gidIndexText(inv: NodeInventory): string {
  const roce = dataPorts(inv).filter((p) => isRoce(p.port));
  if (roce.length === 0) return dataPorts(inv).length ? "not used (InfiniBand: NCCL uses GID 0)" : "n/a";
  // An IPv6-only fabric (no data port has an IPv4 RoCE v2 GID, every one a global IPv6 one) is read by its IPv6 GIDs.
  const ipv6 = roce.every((p) => p.port.roceV2Ipv4Index === null && p.port.roceV2Ipv6Index !== null);
  const groups = groupsByCount(
    roce,
    (p) => (ipv6 ? p.port.roceV2Ipv6Index : p.port.roceV2Ipv4Index),
    (a, b) => (a ?? 1e9) - (b ?? 1e9),
  );
  if (groups.length === 1 && groups[0]![0] !== null) {
    return `RoCE v2 ${ipv6 ? "IPv6 (no IPv4 address)" : "IPv4"} at index ${groups[0]![0]} on every data HCA`;
  }
  const text = groups
    .map(([index, list]) => `${index === null ? "none" : index} on ${compactNames(list.map((p) => p.hca.name))}`)
    .join("; ");
  return ipv6 ? `RoCE v2 IPv6 (no IPv4 address): ${text}` : text;
}

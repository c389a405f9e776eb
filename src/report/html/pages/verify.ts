/** The `verify -o html` page: verdict, findings with fixes, the node summary, GID tables, GPU↔NIC distances. */
import type { VerifyReport } from "../../../checks/index.js";
import { summaryRows } from "../../../checks/render-text.js";
import { dataPorts, isRoce } from "../../../checks/select.js";
import type { NodeInventory } from "../../../inventory/types.js";
import { facts, findingsList, statusOf, table } from "../components.js";
import { type Html, h } from "../html.js";
import { type GidPort, gidTable, topologyChart } from "../node-parts.js";
import { page } from "../page.js";

/** Every RoCE data port's GIDs; the index NCCL uses is the port's RoCE v2 GID with an address. */
export function gidPorts(inv: NodeInventory): GidPort[] {
  const roce = dataPorts(inv).filter((p) => isRoce(p.port));
  const ipv6 = roce.length > 0 && roce.every((p) => p.port.roceV2Ipv4Index === null && p.port.roceV2Ipv6Index !== null);
  const chosen = roce.map((p) => (ipv6 ? p.port.roceV2Ipv6Index : p.port.roceV2Ipv4Index));
  const usual = majority(chosen.filter((c): c is number => c !== null));
  return roce.map(({ hca, port }, i) => ({
    device: hca.name,
    port: port.port,
    chosen: chosen[i] ?? null,
    odd: chosen[i] !== usual,
    rows: port.gids.map((g) => ({ ...g, device: hca.name, port: port.port })),
  }));
}

function majority(values: readonly number[]): number | null {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? null;
}

function hcaTable(inv: NodeInventory): Html {
  return table({
    columns: ["HCA", "role", "netdevs", "ports", "firmware", "PCI", { label: "NUMA node", num: true }],
    rows: inv.hcas.map((hca) => ({
      cells: [
        hca.name,
        hca.role,
        hca.netdevs.join(", "),
        hca.ports
          .map((p) => `${p.port}: ${p.state} ${p.linkLayer}${p.rateGbps !== null ? ` ${p.rateGbps} Gb/s` : ""}`)
          .join("; "),
        hca.fwVer ?? "unknown",
        hca.pciAddress ?? "",
        hca.numaNode ?? "",
      ],
    })),
  });
}

function gpuTable(inv: NodeInventory): Html {
  return table({
    columns: ["GPU", "model", "PCI", { label: "memory", num: true }, "PCIe link", { label: "NUMA node", num: true }],
    rows: inv.gpus.map((g) => ({
      cells: [
        `GPU${g.index}`,
        g.name,
        g.pciAddress,
        { html: g.memoryTotalMiB !== null ? `${g.memoryTotalMiB} MiB` : "unknown", num: true },
        g.link
          ? `${g.link.currentSpeed ?? "?"} x${g.link.currentWidth ?? "?"} (max ${g.link.maxSpeed ?? "?"} x${g.link.maxWidth ?? "?"})`
          : "unknown",
        g.numaNode ?? "",
      ],
    })),
  });
}

export function renderHtml(report: VerifyReport): string {
  const inv = report.inventory;
  const gpus = inv.gpus.map((g) => `GPU${g.index}`);
  const nics = [...inv.roles.dataHcas, ...inv.hcas.map((h) => h.name).filter((n) => !inv.roles.dataHcas.includes(n))];
  const distance = new Map(inv.paths.map((p) => [`GPU${p.gpu}\u0000${p.hca}`, p.nvsmi]));
  return page({
    title: `kube-rdma verify: ${report.host}`,
    subtitle: `Facts from ${report.source}.`,
    status: statusOf(report.summary),
    findings: report.findings,
    body: [
      h`<h2>Findings</h2>`,
      findingsList(report.findings, "No findings: every check passed."),
      h`<h2>Node</h2>`,
      facts(summaryRows(inv)),
      h`<h2>GID tables of the RoCE data ports</h2>`,
      gidTable(gidPorts(inv)),
      h`<h2>GPU ↔ NIC PCIe distances</h2>`,
      topologyChart({ gpus, nics, distance: (g, n) => distance.get(`${g}\u0000${n}`) }),
      h`<h2>HCAs</h2>`,
      hcaTable(inv),
      h`<h2>GPUs</h2>`,
      inv.gpus.length ? gpuTable(inv) : h`<p class="none">No GPUs listed.</p>`,
    ],
  });
}

/** Pictures of one node: its GID tables with the index NCCL uses highlighted, and its GPU↔NIC PCIe distances. */

import { type MatrixCell, matrixChart } from "./charts/matrix.js";
import { legend, table } from "./components.js";
import { type Html, h } from "./html.js";

export type GidTableRow = {
  device: string;
  port: number;
  index: number;
  gid: string;
  ipv4: string | null;
  version: string | null;
  netdev: string | null;
};

export type GidPort = {
  device: string;
  port: number;
  rows: readonly GidTableRow[];
  /** The index NCCL should use on this port (its RoCE v2 GID with an address), null when there is none. */
  chosen: number | null;
  /** This port's chosen index differs from the other data ports'. */
  odd: boolean;
};

/** One table for every port: the chosen index's row highlighted, an odd port's rows tinted. */
export function gidTable(ports: readonly GidPort[]): Html {
  if (ports.length === 0) return h`<p class="none">No GIDs.</p>`;
  const rows = ports.flatMap((p) =>
    p.rows.map((r) => ({
      className: r.index === p.chosen ? "chosen" : p.odd ? "odd" : "",
      cells: [
        r.device,
        r.port,
        r.index,
        h`<code>${r.gid}</code>`,
        r.ipv4 ?? "",
        r.version === null ? "" : r.version === "v2" ? "RoCE v2" : r.version === "v1" ? "RoCE v1" : r.version,
        r.netdev ?? "",
        r.index === p.chosen
          ? h`<span class="badge ok">NCCL uses this index</span>`
          : p.odd && p.chosen === null
            ? h`<span class="badge error">no RoCE v2 GID with an address</span>`
            : "",
      ],
    })),
  );
  return h`${table({
    className: "gids",
    columns: ["device", "port", { label: "index", num: true }, "GID", "IPv4", "type", "netdev", ""],
    rows,
  })}
${legend([
  { colour: "var(--ok-bg)", label: "the RoCE v2 GID with an address: the index NCCL_IB_GID_INDEX must name" },
  { colour: "var(--warning-bg)", label: "a port whose index differs from the other data ports'" },
])}`;
}

/** NCCL's distances, closest first, with what each means. */
const DISTANCES: { name: string; fill: string; label: string }[] = [
  { name: "PIX", fill: "var(--ok)", label: "PIX: same PCIe switch (GPUDirect RDMA on)" },
  { name: "PXB", fill: "var(--s5)", label: "PXB: across PCIe switches (GPUDirect RDMA on)" },
  {
    name: "PHB",
    fill: "var(--warning)",
    label: "PHB/NODE: through the CPU's host bridge (GPUDirect RDMA off by default)",
  },
  { name: "NODE", fill: "var(--warning)", label: "" },
  { name: "SYS", fill: "var(--error)", label: "SYS: across CPU sockets (GPUDirect RDMA off)" },
];
const RANK = new Map(DISTANCES.map((d, i) => [d.name, i]));

export type Topology = {
  gpus: readonly string[];
  nics: readonly string[];
  /** `PIX`, `PXB`, `PHB`, `NODE`, `SYS`, or undefined when unknown. */
  distance: (gpu: string, nic: string) => string | undefined;
};

/** GPU × NIC grid coloured by PCIe distance; each GPU's nearest NIC outlined. */
export function topologyChart(t: Topology): Html {
  if (t.gpus.length === 0 || t.nics.length === 0) return h`<p class="none">No GPU↔NIC paths known.</p>`;
  const cells: MatrixCell[] = [];
  t.gpus.forEach((gpu, row) => {
    const known = t.nics.map((nic) => ({ nic, d: t.distance(gpu, nic) })).filter((x) => x.d && RANK.has(x.d));
    const best = Math.min(...known.map((x) => RANK.get(x.d!)!));
    t.nics.forEach((nic, col) => {
      const d = t.distance(gpu, nic);
      const spec = DISTANCES.find((x) => x.name === d);
      cells.push({
        row,
        col,
        fill: spec?.fill ?? "var(--panel)",
        text: d ?? "?",
        title: `${gpu} ↔ ${nic}: ${d ?? "unknown"}`,
        marked: d !== undefined && RANK.get(d) === best,
        kind: `dist-${d ?? "unknown"}`,
      });
    });
  });
  return h`${matrixChart({
    rows: t.gpus.map((name) => ({ name })),
    cols: t.nics.map((name) => ({ name })),
    cells,
    cell: 40,
    className: "topology",
    title: "GPU ↔ NIC PCIe distance",
  })}
${legend([...DISTANCES.filter((d) => d.label).map((d) => ({ colour: d.fill, label: d.label })), { colour: "transparent", label: "outlined: the GPU's nearest NIC" }])}`;
}

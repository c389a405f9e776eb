import { finding } from "../checks/catalogue.js";
import { compactNames } from "../checks/select.js";
import type { Finding } from "../core/finding.js";
import { makeFinding } from "../core/finding.js";
import { naturalCompare } from "../core/natural.js";
import { classifyGid } from "../parse/gid-text.js";
import type { GidRow } from "../parse/show-gids.js";
import { ANALYZE_CATALOGUE as C } from "./catalogue.js";
import { managementHcaOf, mostCommon, plural } from "./context.js";
import type { AnalyzeContext } from "./types.js";

type PortGids = {
  device: string;
  port: number;
  rows: GidRow[];
  roce: boolean;
  netdev: string | null;
  v2Ipv4: GidRow | null;
  v2Ipv6: GidRow | null;
};

function groupPorts(rows: readonly GidRow[]): PortGids[] {
  const byPort = new Map<string, GidRow[]>();
  for (const r of rows) {
    const key = `${r.device}\u0000${r.port}`;
    const list = byPort.get(key);
    if (list) list.push(r);
    else byPort.set(key, [r]);
  }
  const ports: PortGids[] = [];
  for (const list of byPort.values()) {
    const first = list[0]!;
    const sorted = [...list].sort((a, b) => a.index - b.index);
    ports.push({
      device: first.device,
      port: first.port,
      rows: sorted,
      roce: sorted.some((r) => r.netdev !== null || r.version === "v2" || r.ipv4 !== null),
      netdev: sorted.find((r) => r.netdev)?.netdev ?? null,
      v2Ipv4: sorted.find((r) => r.version === "v2" && r.ipv4 !== null) ?? null,
      v2Ipv6: sorted.find((r) => r.version === "v2" && classifyGid(r.gid) === "ipv6_global") ?? null,
    });
  }
  return ports.sort((a, b) => naturalCompare(a.device, b.device) || a.port - b.port);
}

/** `mlx5_1` for a single-port device, `mlx5_1/2` when the device has several ports. */
function subjectNamer(ports: readonly PortGids[]): (p: PortGids) => string {
  const perDevice = new Map<string, number>();
  for (const p of ports) perDevice.set(p.device, (perDevice.get(p.device) ?? 0) + 1);
  return (p) => ((perDevice.get(p.device) ?? 0) > 1 || p.port !== 1 ? `${p.device}/${p.port}` : p.device);
}

/** The evidence verify's port findings carry, for a port of a pasted table (a GID table is a RoCE/IB port's). */
function portEvidenceOf(p: PortGids) {
  return {
    hca: p.device,
    port: `${p.device} port ${p.port}`,
    portNumber: p.port,
    netdev: p.netdev,
    linkLayer: p.roce ? "Ethernet" : "InfiniBand",
  };
}

/**
 * Empty slots below a port's RoCE v2 IPv4 GID (verify's GID_TABLE_SPARSE, per port): a fixed NCCL_IB_GID_INDEX may
 * point at one. Identical findings on many HCAs are printed once with all their names.
 */
function sparseFindings(ports: readonly PortGids[], subjectOf: (p: PortGids) => string): Finding[] {
  const withV4 = ports.filter((p) => p.v2Ipv4);
  const uniform = new Set(withV4.map((p) => p.v2Ipv4!.index)).size === 1;
  return withV4.flatMap((p) => {
    const index = p.v2Ipv4!.index;
    const used = new Set(p.rows.map((r) => r.index));
    const holes = Array.from({ length: index }, (_, i) => i).filter((i) => !used.has(i));
    if (holes.length === 0) return [];
    return [finding("GID_TABLE_SPARSE", subjectOf(p), { ...portEvidenceOf(p), index, holes, uniform })];
  });
}

function indexFindings(ports: readonly PortGids[], ctx: AnalyzeContext, subjectOf: (p: PortGids) => string): Finding[] {
  const management = managementHcaOf(ctx);
  const judged = ports.filter((p) => p.v2Ipv4 && p.device !== management);
  const usual = mostCommon(
    judged.map((p) => p.v2Ipv4!.index),
    (a, b) => Math.min(a, b),
  );
  if (usual === null) return [];
  const odd = judged.filter((p) => p.v2Ipv4!.index !== usual);
  if (odd.length === 0) {
    return [makeFinding(C, "GID_INDEX_UNIFORM", "node", { index: usual, devices: judged.length })];
  }
  const usualHcas = compactNames(judged.filter((p) => p.v2Ipv4!.index === usual).map((p) => p.device));
  // The words verify uses for the same fact (one code, one message, one fix).
  return odd.map((p) =>
    finding("GID_INDEX_DIFFERS", subjectOf(p), {
      index: p.v2Ipv4!.index,
      usual,
      usualHcas,
      atUsual: describeRow(p.rows.find((r) => r.index === usual)),
      netdev: p.netdev,
      port: `${p.device} port ${p.port}`,
    }),
  );
}

/** What a slot of a pasted table holds, in the words verify uses for a sysfs slot. */
function describeRow(r: GidRow | undefined): string {
  if (!r) return "no row in the capture";
  const ver = r.version ? `RoCE ${r.version} ` : "";
  if (r.ipv4) return `a ${ver}IPv4 GID (${r.ipv4})`;
  const kind = classifyGid(r.gid);
  if (kind === "ipv6_global") return `a ${ver}global IPv6 GID`;
  if (kind === "link_local") return `a ${ver}link-local GID`;
  return "an InfiniBand GID";
}

/**
 * A RoCE port without a RoCE v2 IPv4/IPv6 GID cannot carry NCCL traffic (error), except the management NIC named by
 * the node model, whose link-local-only table is expected (info) — the same verdicts `verify` gives.
 */
function missingV2Findings(
  ports: readonly PortGids[],
  ctx: AnalyzeContext,
  subjectOf: (p: PortGids) => string,
): Finding[] {
  const management = managementHcaOf(ctx);
  const linkLocalOnly = (p: PortGids) => p.rows.every((r) => classifyGid(r.gid) === "link_local");
  return ports
    .filter((p) => p.roce && !p.v2Ipv4 && !p.v2Ipv6)
    .map((p) =>
      p.device === management && linkLocalOnly(p)
        ? finding("GID_LINK_LOCAL_ONLY", subjectOf(p), { ...portEvidenceOf(p), role: "management" })
        : finding("NO_ROCEV2_GID", subjectOf(p), {
            ...portEvidenceOf(p),
            content: linkLocalOnly(p) ? "link_local_only" : "v1_only",
          }),
    );
}

function summaryOf(ports: readonly PortGids[], rows: number): string {
  const devices = new Set(ports.map((p) => p.device)).size;
  const head = `${plural(devices, "device")}, ${plural(rows, "GID")}`;
  const withV4 = ports.filter((p) => p.v2Ipv4);
  if (ports.length > 0 && ports.every((p) => !p.roce)) return `${head}; InfiniBand (no RoCE GIDs)`;
  if (withV4.length === 0) return `${head}; no RoCE v2 IPv4 GID`;
  const byIndex = new Map<number, string[]>();
  for (const p of withV4) {
    const list = byIndex.get(p.v2Ipv4!.index);
    if (list) list.push(p.device);
    else byIndex.set(p.v2Ipv4!.index, [p.device]);
  }
  if (byIndex.size === 1 && withV4.length === ports.length) {
    return `${head}; RoCE v2 IPv4 at index ${[...byIndex.keys()][0]} on all`;
  }
  const parts = [...byIndex].map(([i, devs]) =>
    devs.length <= 2 ? `${i} on ${devs.join(", ")}` : `${i} on ${devs.length}`,
  );
  return `${head}; RoCE v2 IPv4 at index ${parts.join(", ")}`;
}

/**
 * Judges a GID table (from show_gids or `ibv_devinfo -v`): every RoCE port needs a RoCE v2 IPv4/IPv6 GID, the
 * IPv4 one at the same index on every data HCA (else one NCCL_IB_GID_INDEX cannot work), and no holes.
 */
export function evaluateGids(rows: readonly GidRow[], ctx: AnalyzeContext): { findings: Finding[]; summary: string } {
  const ports = groupPorts(rows);
  const subjectOf = subjectNamer(ports);
  const findings = [
    ...missingV2Findings(ports, ctx, subjectOf),
    ...indexFindings(ports, ctx, subjectOf),
    ...sparseFindings(ports, subjectOf),
  ];
  return { findings, summary: summaryOf(ports, rows.length) };
}

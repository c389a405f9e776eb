import type { Finding } from "../core/finding.js";
import { makeFinding } from "../core/finding.js";
import { naturalCompare } from "../core/natural.js";
import type { Hca, NodeInventory, Port } from "../inventory/types.js";
import { cidrHolds } from "../parse/ipv4.js";
import { NCCL_ENV_FINDINGS as F } from "./catalogue.js";

/** One HCA port NCCL should use, with its `NCCL_IB_HCA` token (`mlx5_1`, or `mlx5_0:2` on multi-port HCAs). */
export type DataPort = {
  hca: Hca;
  port: Port;
  token: string;
  ipv4: string | null;
  /** The RoCE v2 global IPv6 GID, kept only for ports without an IPv4 one (IPv6-only fabrics). */
  ipv6Gid: string | null;
  /** The connected subnet (of its netdev, from /proc/net/route) that holds `ipv4`, e.g. `25.11.128.0/27`. */
  ipv4Subnet: string | null;
};

export type PortSelection = { ports: DataPort[]; findings: Finding[]; skipped: string[] };

function isActive(p: Port): boolean {
  return (
    (p.state === "ACTIVE" || p.state === "ACTIVE_DEFER") && (p.physState === "LinkUp" || p.physState === "UNKNOWN")
  );
}

function ipv6GidOf(p: Port): string | null {
  if (p.roceV2Ipv6Index === null) return null;
  return p.gids.find((g) => g.index === p.roceV2Ipv6Index)?.gid ?? null;
}

function ipv4Of(p: Port): string | null {
  if (p.roceV2Ipv4Index === null) return null;
  return p.gids.find((g) => g.index === p.roceV2Ipv4Index)?.ipv4 ?? null;
}

/** The connected subnet of the port's RoCE netdev that holds its address (narrowest first), else null. */
function subnetHolding(inv: NodeInventory, port: Port, ipv4: string): string | null {
  const netdev = port.gids.find((g) => g.index === port.roceV2Ipv4Index)?.netdev ?? port.netdevs[0];
  const subnets = inv.netdevs.find((n) => n.name === netdev)?.ipv4Subnets ?? [];
  const holding = subnets.filter((c) => cidrHolds(c, ipv4));
  holding.sort((a, b) => Number(b.split("/")[1]) - Number(a.split("/")[1]));
  return holding[0] ?? null;
}

/** Why an HCA is not a data HCA, or null when it is. */
function exclusionReason(inv: NodeInventory, hca: Hca, requested: boolean): { why: string; fix: string } | null {
  const mgmt = hca.role === "management" || inv.roles.managementHca === hca.name;
  if (mgmt) {
    const bond = hca.isBond ? "a bond that is not the data path, " : "";
    return {
      why: `${bond}it is the management NIC (${hca.roleReason || "carries the default route"}); NCCL's bootstrap goes over a TCP socket instead (NCCL_SOCKET_IFNAME with hostNetwork, the pod's own interface on the pod network)`,
      fix: requested ? "Do not request the management NIC for NCCL." : "Nothing to do.",
    };
  }
  if (!requested && hca.role !== "data") {
    return { why: `not a data HCA (${hca.roleReason || hca.role})`, fix: "Nothing to do." };
  }
  return null;
}

/**
 * The ports NCCL should use: data HCAs (or the requested ones) with an active port, never the management NIC, never
 * a down port, never a RoCE port without a RoCE v2 IPv4 GID. Every HCA left out is said with its reason.
 */
export function selectDataPorts(inv: NodeInventory, requested?: readonly string[]): PortSelection {
  const findings: Finding[] = [];
  const skipped: string[] = [];
  const byName = new Map(inv.hcas.map((h) => [h.name, h]));
  const wanted = requested ? new Set(requested) : null;
  for (const name of requested ?? []) {
    if (!byName.has(name)) findings.push(makeFinding(F, "NCCL_HCA_UNKNOWN", name, {} as Record<string, never>));
  }
  const ports: DataPort[] = [];
  const hcas = [...inv.hcas].sort((a, b) => naturalCompare(a.name, b.name));
  for (const hca of hcas) {
    if (wanted && !wanted.has(hca.name)) continue;
    const excluded = exclusionReason(inv, hca, wanted !== null);
    if (excluded) {
      skipped.push(hca.name);
      findings.push(makeFinding(F, "NCCL_HCA_SKIPPED", hca.name, excluded, wanted ? "warning" : "info"));
      continue;
    }
    const active = hca.ports.filter(isActive);
    if (active.length === 0) {
      skipped.push(hca.name);
      const states = hca.ports.map((p) => `port ${p.port} is ${p.state}/${p.physState}`).join(", ") || "no ports";
      findings.push(
        makeFinding(
          F,
          "NCCL_HCA_SKIPPED",
          hca.name,
          {
            why: `no active port (${states}); NCCL skips inactive ports anyway, and naming it would hide the loss of a rail`,
            fix: `Bring ${hca.name} up (cable, switch port, \`ip link set <netdev> up\`), then re-run nccl-env.`,
          },
          "warning",
        ),
      );
      continue;
    }
    const multi = hca.ports.length > 1;
    for (const port of active) {
      const token = multi ? `${hca.name}:${port.port}` : hca.name;
      const ipv4 = ipv4Of(port);
      ports.push({
        hca,
        port,
        token,
        ipv4,
        ipv6Gid: ipv4 === null ? ipv6GidOf(port) : null,
        ipv4Subnet: ipv4 === null ? null : subnetHolding(inv, port, ipv4),
      });
    }
  }
  // RoCE ports need a routable RoCE v2 GID. IPv4 is NCCL's default family; a fabric where no data port has one but
  // every port has a global IPv6 GID runs on IPv6 (gid-select emits AF_INET6). Otherwise ports without IPv4 go.
  const roceAll = ports.filter((p) => p.port.linkLayer === "Ethernet");
  const ipv6Fabric = roceAll.length > 0 && roceAll.every((p) => p.ipv4 === null && p.ipv6Gid !== null);
  for (const p of [...ports]) {
    if (p.port.linkLayer !== "Ethernet" || p.ipv4 !== null || (ipv6Fabric && p.ipv6Gid !== null)) continue;
    ports.splice(ports.indexOf(p), 1);
    skipped.push(p.token);
    findings.push(makeFinding(F, "NCCL_NO_ROCEV2_IPV4_GID", p.token, { port: p.port.port }));
  }
  const ib = ports.filter((p) => p.port.linkLayer === "InfiniBand").map((p) => p.token);
  const roce = ports.filter((p) => p.port.linkLayer === "Ethernet").map((p) => p.token);
  if (ib.length > 0 && roce.length > 0) findings.push(makeFinding(F, "NCCL_MIXED_LINK_LAYERS", "node", { ib, roce }));
  return { ports, findings, skipped };
}

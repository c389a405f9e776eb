/**
 * Which HCA is the management (bootstrap) NIC and which are data NICs. The management HCA carries the default
 * route (the A100 RoCE example node: mlx5_0 on eth0); it goes to NCCL_SOCKET_IFNAME, never into NCCL_IB_HCA. Data HCAs are the others
 * with a port that can carry RDMA. Pure; sets `role`/`roleReason` on each HCA.
 */
import { naturalCompare } from "../core/natural.js";
import type { GpuNicPath, Hca, Netdev, NodeInventory } from "./types.js";

function carriesRoute(h: Hca, netdevs: Netdev[], defaultIf: string): string | null {
  if (h.netdevs.includes(defaultIf)) return defaultIf;
  // The route may leave through a bond whose slaves are this HCA's netdevs (RoCE LAG without a bond ibdev).
  const bond = netdevs.find((n) => n.name === defaultIf && n.bondSlaves.length > 0);
  const slave = bond?.bondSlaves.find((s) => h.netdevs.includes(s));
  return slave ? `${defaultIf} (slave ${slave})` : null;
}

function whyNotData(h: Hca): string | null {
  if (h.ports.length === 0) return "no readable ports";
  const usable = h.ports.filter((p) => p.linkLayer !== "Unknown");
  if (usable.length === 0) return "link layer Unknown on every port";
  if (usable.every((p) => p.linkLayer === "Ethernet" && p.netdevs.length === 0)) {
    return "RoCE port without a netdev (no GID names one)";
  }
  return null;
}

function dataReason(h: Hca, defaultIf: string | null): string {
  const p = h.ports.find((x) => x.linkLayer !== "Unknown")!;
  const on = p.linkLayer === "Ethernet" ? `RoCE port ${p.port} on ${p.netdevs.join(",")}` : `InfiniBand port ${p.port}`;
  return defaultIf ? `${on}; does not carry the default route (${defaultIf})` : `${on}; no default route found`;
}

export function assignRoles(hcas: Hca[], netdevs: Netdev[], defaultIf: string | null): NodeInventory["roles"] {
  let managementHca: string | null = null;
  for (const h of hcas) {
    const via = defaultIf ? carriesRoute(h, netdevs, defaultIf) : null;
    if (via && managementHca === null) {
      managementHca = h.name;
      h.role = "management";
      h.roleReason = `carries the default route via ${via}`;
      continue;
    }
    const not = whyNotData(h);
    if (not) {
      h.role = "excluded";
      h.roleReason = not;
    } else {
      h.role = "data";
      h.roleReason = dataReason(h, defaultIf);
    }
    if (h.isBond) h.roleReason += "; RoCE LAG bond device";
  }
  const mgmt = hcas.find((h) => h.name === managementHca);
  if (mgmt?.isBond) mgmt.roleReason += "; RoCE LAG bond device";
  return {
    defaultRouteInterface: defaultIf,
    managementHca,
    dataHcas: hcas
      .filter((h) => h.role === "data")
      .map((h) => h.name)
      .sort(naturalCompare),
  };
}

/** NCCL's GPUDirect default reach (NCCL_NET_GDR_LEVEL=PXB): a NIC a GPU reaches through PCIe switches only. */
const NEAR = new Set(["PIX", "PXB"]);

/**
 * A data NIC is the RDMA port nearest a GPU: NCCL gives each GPU its closest NIC (src/graph/search.cc,
 * ncclTopoGetLocalNet), one per rail. An RDMA NIC that no GPU reaches through a PCIe switch (every GPU at PHB/SYS),
 * on a node where other NICs are that near their GPUs, is a storage or front-end NIC, not a rail: it leaves the data
 * set (NCCL_IB_HCA, the device plugin's HCAs, the rails). Without GPU↔NIC paths, or where no NIC is near any GPU,
 * nothing is proven and the roles stay. Mutates the HCAs' role/reason; returns the data HCAs left.
 */
export function dataHcasByGpuLocality(
  hcas: Hca[],
  paths: readonly GpuNicPath[],
  dataHcas: readonly string[],
): string[] {
  if (paths.length === 0) return [...dataHcas];
  const near = new Set(paths.filter((p) => NEAR.has(p.distance)).map((p) => p.hca));
  const nearData = dataHcas.filter((h) => near.has(h));
  if (nearData.length === 0) return [...dataHcas];
  const withPaths = new Set(paths.map((p) => p.hca));
  const kept: string[] = [];
  for (const name of dataHcas) {
    const h = hcas.find((x) => x.name === name);
    if (!h || near.has(name) || !withPaths.has(name)) {
      kept.push(name);
      continue;
    }
    const best = paths
      .filter((p) => p.hca === name)
      .map((p) => p.distance)
      .sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b))[0];
    h.role = "excluded";
    h.roleReason =
      `no GPU within a PCIe switch of it (nearest GPU at ${best}) while ${nearData.length} other RDMA NIC(s) are: ` +
      "a storage or front-end NIC, not a GPU rail";
  }
  return kept;
}

const ORDER = ["PIX", "PXB", "PHB", "SYS"];

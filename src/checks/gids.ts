/**
 * GID tables of RoCE data ports: a routable RoCE v2 GID on every port, at the same index on every HCA (one
 * NCCL_IB_GID_INDEX for the node), and no holes that break the folklore index 3.
 */
import type { Finding } from "../core/finding.js";
import type { GidEntry, Port } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import {
  compactNames,
  type DataPort,
  dataPorts,
  groupsByCount,
  isRoce,
  isUp,
  portEvidence,
  portLabel,
  portSubject,
} from "./select.js";
import type { Check } from "./types.js";

const hasRoutableV2 = (p: Port) => p.roceV2Ipv4Index !== null || p.roceV2Ipv6Index !== null;

export const gidPresenceCheck: Check = {
  name: "gid-presence",
  codes: ["NO_ROCEV2_GID", "GID_TABLE_EMPTY", "GID_LINK_LOCAL_ONLY"],
  run(inv) {
    const out: Finding[] = [];
    // A port that is down is reported as PORT_DOWN; its GID table is a consequence, not a second problem.
    for (const dp of dataPorts(inv).filter((d) => isUp(d.port))) {
      const subject = portSubject(dp.hca, dp.port);
      const ev = portEvidence(inv, dp);
      if (dp.port.gids.length === 0) {
        out.push(finding("GID_TABLE_EMPTY", subject, { ...ev, tableLength: dp.port.gidTableLength }));
      } else if (isRoce(dp.port) && !hasRoutableV2(dp.port)) {
        const linkLocalOnly = dp.port.gids.every((g) => g.kind === "link_local");
        out.push(finding("NO_ROCEV2_GID", subject, { ...ev, content: linkLocalOnly ? "link_local_only" : "v1_only" }));
      }
    }
    for (const hca of inv.hcas.filter((h) => h.role !== "data")) {
      for (const port of hca.ports.filter((p) => isRoce(p) && isUp(p) && p.gids.length > 0)) {
        if (!port.gids.every((g) => g.kind === "link_local")) continue;
        const ev = portEvidence(inv, { hca, port });
        out.push(finding("GID_LINK_LOCAL_ONLY", portSubject(hca, port), { ...ev, role: hca.role }));
      }
    }
    return out;
  },
};

/** RoCE data ports that have a RoCE v2 IPv4 GID, grouped by its index, the usual index first. */
function ipv4IndexGroups(ports: readonly DataPort[]): [number, DataPort[]][] {
  const withIndex = ports.filter((dp) => isRoce(dp.port) && dp.port.roceV2Ipv4Index !== null);
  // On a tie the lower index is taken as the usual one.
  return groupsByCount(
    withIndex,
    (dp) => dp.port.roceV2Ipv4Index!,
    (a, b) => a - b,
  );
}

function describeSlot(port: Port, index: number): string {
  const g: GidEntry | undefined = port.gids.find((x) => x.index === index);
  if (!g) return index < port.gidTableLength ? "an empty slot" : "no slot (the table is shorter)";
  const ver = g.version ? `RoCE ${g.version} ` : "";
  if (g.kind === "ipv4") return `a ${ver}IPv4 GID (${g.ipv4})`;
  if (g.kind === "ipv6_global") return `a ${ver}global IPv6 GID`;
  if (g.kind === "link_local") return `a ${ver}link-local GID`;
  return "an InfiniBand GID";
}

export const gidIndexCheck: Check = {
  name: "gid-index",
  codes: ["GID_INDEX_DIFFERS"],
  run(inv) {
    const [usual, ...odd] = ipv4IndexGroups(dataPorts(inv));
    if (!usual || odd.length === 0) return [];
    const usualHcas = compactNames(usual[1].map((dp) => dp.hca.name));
    return odd.flatMap(([index, list]) =>
      list.map((dp) =>
        finding("GID_INDEX_DIFFERS", portSubject(dp.hca, dp.port), {
          index,
          usual: usual[0],
          usualHcas,
          atUsual: describeSlot(dp.port, usual[0]),
          netdev: portEvidence(inv, dp).netdev,
          port: portLabel(dp.hca, dp.port),
        }),
      ),
    );
  },
};

/** Slots below `index` that hold no configured GID. */
export function holesBefore(port: Port, index: number): number[] {
  const used = new Set(port.gids.map((g) => g.index));
  const holes: number[] = [];
  for (let i = 0; i < index; i++) if (!used.has(i)) holes.push(i);
  return holes;
}

export const gidSparseCheck: Check = {
  name: "gid-sparse",
  codes: ["GID_TABLE_SPARSE"],
  run(inv) {
    const ports = dataPorts(inv);
    const uniform = ipv4IndexGroups(ports).length <= 1;
    return ports
      .filter((dp) => isRoce(dp.port) && dp.port.roceV2Ipv4Index !== null)
      .flatMap((dp) => {
        const index = dp.port.roceV2Ipv4Index!;
        const holes = holesBefore(dp.port, index);
        if (holes.length === 0) return [];
        const ev = { ...portEvidence(inv, dp), index, holes, uniform };
        return [finding("GID_TABLE_SPARSE", portSubject(dp.hca, dp.port), ev)];
      });
  },
};

/**
 * The `show_gids` table read straight from sysfs: every configured GID of every port, in natural device order,
 * numeric port and index order. Reads only /sys/class/infiniband (no commands), so `gids` stays fast.
 */
import { implausibleName, isPlausibleDeviceName } from "../core/device-name.js";
import { naturalCompare, numericNames } from "../core/natural.js";
import { type Problem, problem } from "../core/result.js";
import type { HostReader } from "../host/types.js";
import type { GidRow } from "../parse/show-gids.js";
import { parseGid, showGidsIpv4 } from "../parse/sysfs.js";
import type { GidFact } from "./facts.js";
import { readPortGids } from "./read-gids.js";

export type { GidRow };

const IB = "/sys/class/infiniband";

/** show_gids' `grep -o "[Vv].*"` on `gid_attrs/types/N`. */
function versionOf(type: string | null): "v1" | "v2" | null {
  const m = type ? /[Vv].*/.exec(type) : null;
  if (!m) return null;
  const v = m[0].toLowerCase();
  return v === "v1" || v === "v2" ? v : null;
}

/** Devices to show: the ones named (kept in natural order), else every device under /sys/class/infiniband. */
export function readGidTable(
  reader: HostReader,
  devices: readonly string[] = [],
): { rows: GidRow[]; problems: Problem[]; missing: string[]; available: string[] } {
  const problems: Problem[] = [];
  const list = reader.list(IB);
  if (!list.ok && list.error.code !== "ENOENT") {
    problems.push(problem("host.read_failed", list.error.message, { path: IB }));
  }
  const listed = list.ok ? [...list.value].sort(naturalCompare) : [];
  const available = listed.filter(isPlausibleDeviceName);
  for (const name of listed.filter((n) => !isPlausibleDeviceName(n)))
    problems.push(implausibleName("RDMA device", name, IB));
  const missing = devices.filter((d) => !available.includes(d));
  const chosen = devices.length
    ? [...new Set(devices)].filter((d) => available.includes(d)).sort(naturalCompare)
    : available;
  const rows = chosen.flatMap((d) => readDevice(reader, d, problems));
  return { rows, problems, missing, available };
}

function readDevice(reader: HostReader, device: string, problems: Problem[]): GidRow[] {
  const ports = reader.list(`${IB}/${device}/ports`);
  if (!ports.ok) {
    problems.push(problem("host.read_failed", ports.error.message, { path: `${IB}/${device}/ports` }));
    return [];
  }
  const numbers = numericNames(ports.value);
  const rows: GidRow[] = [];
  for (const port of numbers) {
    const dir = `${IB}/${device}/ports/${port}`;
    const { gidSlots, gids } = readPortGids(reader, dir);
    if (!gidSlots.ok) problems.push(problem("host.read_failed", gidSlots.error.message, { path: `${dir}/gids` }));
    for (const g of gids) {
      if (!g.gid.ok) {
        // An empty slot's attributes error with EINVAL; anything else (a file too large, a FIFO, a link loop) is a
        // slot the table cannot show, and the user is told.
        if (g.gid.error.code !== "EINVAL" && g.gid.error.code !== "ENOENT") {
          problems.push(problem("host.read_failed", g.gid.error.message, { path: `${dir}/gids/${g.index}` }));
        }
        continue;
      }
      const parsed = parseGid(g.gid.value);
      if (!parsed.ok || !parsed.value.configured) continue;
      const gid = parsed.value.gid;
      rows.push({
        device,
        port,
        index: g.index,
        gid,
        ipv4: showGidsIpv4(gid),
        version: versionOf(g.type?.ok ? g.type.value.trim() : null),
        netdev: netdevOf(g.ndev, `${dir}/gid_attrs/ndevs/${g.index}`, problems),
      });
    }
  }
  return rows;
}

function netdevOf(fact: GidFact["ndev"], path: string, problems: Problem[]): string | null {
  const name = fact?.ok ? fact.value.trim() || null : null;
  if (name === null || isPlausibleDeviceName(name)) return name;
  problems.push(implausibleName("network interface", name, path));
  return null;
}

/** show_gids' header, with its exact tabs. */
export const SHOW_GIDS_HEADER =
  "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n";

/** Renders rows exactly as show_gids prints them, with the `n_gids_found=N` footer. */
export function renderShowGids(rows: readonly GidRow[]): string {
  const lines = rows.map((r) => {
    const head = `${r.device}\t${r.port}\t${r.index}\t${r.gid}`;
    const tail = `${r.version ?? ""}\t${r.netdev ?? ""}`;
    return r.ipv4 !== null ? `${head}\t${r.ipv4}  \t${tail}` : `${head}\t\t\t${tail}`;
  });
  return `${SHOW_GIDS_HEADER}${lines.map((l) => `${l}\n`).join("")}n_gids_found=${rows.length}\n`;
}

import { finding } from "../../checks/catalogue.js";
import { ipv4OfGid } from "../../parse/gid-text.js";
import type { IbDeviceReport } from "../../parse/ib-ports.js";
import { parseIbvDevinfo } from "../../parse/ibv-devinfo.js";
import type { GidRow } from "../../parse/show-gids.js";
import { evaluateGids } from "../gids.js";
import { decidePorts } from "../host-evidence.js";
import { evaluatePorts } from "../ports.js";
import type { AnalyzerKind } from "../types.js";
import { anyLine, outcomeOf, portsUnread } from "./outcome.js";

/** `ibv_devinfo -v` GIDs of RoCE ports as show_gids rows (netdevs are not printed there). */
export function gidRowsOf(devices: readonly IbDeviceReport[]): GidRow[] {
  return devices.flatMap((d) =>
    d.ports
      .filter((p) => p.linkLayer === "Ethernet")
      .flatMap((p) =>
        (p.gids ?? []).map((g) => ({
          device: d.name,
          port: p.port,
          index: g.index,
          gid: g.gid,
          ipv4: ipv4OfGid(g.gid),
          version: g.version,
          netdev: null,
        })),
      ),
  );
}

export const ibvDevinfoAnalyzer: AnalyzerKind = {
  kind: "ibv_devinfo",
  detect(head) {
    if (anyLine(head, /^[ \t]*hca_id:[ \t]*\S/)) {
      return anyLine(head, /^[ \t]*(transport|fw_ver|phys_port_cnt):/) ? 0.95 : 0.8;
    }
    if (anyLine(head, /^[ \t]*No IB devices found[ \t]*$/)) return 0.7;
    // `ibv_devinfo -l`: `4 HCAs found:` and a tab before each name on the next line (rdma-core's devinfo.c).
    return /^[ \t]*\d+ HCAs? found:[ \t]*\r?\n[ \t]*[A-Za-z][\w.-]*[ \t]*$/m.test(head) ? 0.7 : 0;
  },
  analyze(text, ctx) {
    const parsed = parseIbvDevinfo(text);
    const decided = parsed.ok ? { ...parsed, value: decidePorts(parsed.value, "hca_id_lines") } : parsed;
    const out = outcomeOf(decided, (value) => {
      if (value.devices.length === 0) {
        return { findings: [finding("NO_RDMA_HCA", "node", { hcas: [] })], summary: "no RDMA device" };
      }
      // `ibv_devinfo -l` names the devices and nothing more: no port was read, so none is judged.
      if (value.listOnly) {
        const n = value.devices.length;
        return { findings: [], summary: `${n} RDMA device${n === 1 ? "" : "s"} named, no port read` };
      }
      const ports = evaluatePorts(value.devices, ctx);
      const rows = gidRowsOf(value.devices);
      if (rows.length === 0) return ports;
      const gids = evaluateGids(rows, ctx);
      const gidPart = gids.summary.split("; ").slice(1).join("; ");
      return {
        findings: [...ports.findings, ...gids.findings],
        summary: gidPart ? `${ports.summary}; ${gidPart}` : ports.summary,
      };
    });
    // A paste cut before its first port names its devices: read in part, never a PASS (`-l` only lists, by design).
    return portsUnread(parsed) ? { ...out, unread: ["ports"] } : out;
  },
};

import { finding } from "../../checks/catalogue.js";
import { stateText } from "../../checks/select.js";
import type { Finding } from "../../core/finding.js";
import type { PortState } from "../../inventory/types.js";
import { parseIbdev2netdev, RDMA_LINK } from "../../parse/ibdev2netdev.js";
import { plural } from "../context.js";
import type { AnalyzerKind } from "../types.js";
import { lineShare, outcomeOf, withEvidence } from "./outcome.js";

// A trailing shell comment after the state (`(Up)   # note`) is allowed, as the parser allows it.
const LINE = /\bport\s+\d+(?:\s+\([A-Za-z_]+\))?\s*==>\s*\S+\s+\([^)]*\)\s*(?:#.*)?$/;

export const ibdev2netdevAnalyzer: AnalyzerKind = {
  kind: "ibdev2netdev",
  detect(head) {
    const share = Math.max(lineShare(head, LINE), lineShare(head, RDMA_LINK));
    return share > 0 ? Math.min(0.95, 0.6 + share) : 0;
  },
  analyze(text) {
    const parsed = withEvidence(parseIbdev2netdev(text), (value) => mappingEvidence(value.mappings, text));
    return outcomeOf(parsed, (value) => {
      const findings: Finding[] = [];
      const portsPerDevice = new Map<string, number>();
      for (const m of value.mappings) portsPerDevice.set(m.device, (portsPerDevice.get(m.device) ?? 0) + 1);
      for (const m of value.mappings) {
        const portDown = m.portState !== undefined && m.portState !== "ACTIVE";
        if (!m.up || portDown) {
          const multi = (portsPerDevice.get(m.device) ?? 0) > 1;
          findings.push(
            finding("PORT_DOWN", multi || m.port !== 1 ? `${m.device}/${m.port}` : m.device, {
              hca: m.device,
              port: `${m.device} port ${m.port}`,
              portNumber: m.port,
              netdev: m.netdev,
              linkLayer: "Ethernet",
              state: stateWords(m.portState ?? (m.up ? "ACTIVE" : "DOWN")),
              physState: null,
              operstate: m.up ? "up" : "down",
            }),
          );
        }
      }
      const up = value.mappings.filter((m) => m.up).length;
      const down = value.mappings.length - up;
      const summary = `${plural(value.mappings.length, "RDMA port")} mapped to netdevs; ${up} Up${down ? `, ${down} Down` : ""}`;
      return { findings, summary };
    });
  },
};

/**
 * Which lines decided the mappings: `mapping_lines` (`mlx5_0 port 1 ==> ens1f0 (Up)`) or `rdma_link_lines` (`rdma link
 * show`); `up` by the netdev's own state (`(Up)`) or, for `rdma link`, by the port state; `portState` by the RDMA port
 * state words (`(ACTIVE)` of `ibdev2netdev -v`, `state ACTIVE` of `rdma link`). Null where no line said it.
 */
function mappingEvidence(mappings: readonly { portState?: string }[], text: string) {
  const arrows = text.includes("==>");
  const links = !arrows && mappings.length > 0;
  return {
    devices: mappings.length === 0 ? null : arrows ? "mapping_lines" : "rdma_link_lines",
    up: mappings.length === 0 ? null : links ? "port_state" : "netdev_state",
    portState: mappings.some((m) => m.portState !== undefined) ? "port_state_words" : null,
  };
}

const KNOWN_STATES = new Set(["NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"]);

/** `1: DOWN`, the sysfs spelling verify prints, for a state word ibdev2netdev -v shows. */
function stateWords(word: string): string {
  return KNOWN_STATES.has(word) ? stateText(word as PortState) : word;
}

/** `mlnx_qos -i IF` and `ethtool -S IF` captures: the lossless-RoCE settings and the PFC pause counters. */

import { finding } from "../../checks/catalogue.js";
import type { Finding } from "../../core/finding.js";
import { makeFinding } from "../../core/finding.js";
import { stripPrompt } from "../../core/text.js";
import { type PauseCounters, parseEthtoolStats, parseMlnxQos, pauseCountersOf } from "../../parse/roce-qos.js";
import { ANALYZE_CATALOGUE as C } from "../catalogue.js";
import type { AnalyzerKind } from "../types.js";
import { anyLine, headLines, lineShare, outcomeOf } from "./outcome.js";

export const mlnxQosAnalyzer: AnalyzerKind = {
  kind: "mlnx_qos",
  detect(head) {
    const trust = anyLine(head, /^\s*Priority trust (?:state|mode):\s*\w+\s*$/);
    const pfc = anyLine(head, /^\s*PFC configuration:\s*$/);
    return trust && pfc ? 0.95 : trust || pfc ? 0.7 : 0;
  },
  analyze(text) {
    return outcomeOf(parseMlnxQos(text), (value) => {
      const findings: Finding[] = [];
      const pfc = value.pfcEnabled;
      if (pfc !== null && pfc.length === 0) findings.push(makeFinding(C, "PFC_NONE", "PFC", {}));
      // RoCE v2's usual DSCP 26 (AF31): the priority it lands in, and the NCCL_IB_TC that selects it.
      const dscp26 = value.trust === "dscp" ? (value.dscpToPriority[26] ?? 3) : null;
      const summary =
        `trust ${value.trust ?? "unknown"}; PFC on ${pfc === null ? "unknown" : pfc.length ? `priority ${pfc.join(", ")}` : "no priority"}` +
        (dscp26 !== null
          ? `; DSCP 26 → priority ${dscp26}${pfc?.includes(dscp26) ? " (lossless): NCCL_IB_TC=106 selects it" : ""}`
          : "");
      return { findings, summary };
    });
  },
};

/**
 * One `ethtool -S` counter line: `name: integer` (trailing blanks allowed). The driver indents it, but a capture
 * indented as a whole loses that indentation to the normaliser (which keeps only nesting), so it is not required:
 * the counters' own names are the evidence below.
 */
const STAT_LINE = /^\s*([A-Za-z0-9_.[\]-]+):\s+\d+\s*$/;

/** A counter named by its direction (`rx_…`/`tx_…`), optionally behind a queue prefix (`rxq0: `, `[0]: `). */
const DIRECTIONAL = /^\s*(?:[A-Za-z0-9_[\]]+:\s+)?((?:rx|tx)_[A-Za-z0-9_.[\]-]+):\s+\d+\s*$/;

/**
 * What names the counters below it: `NIC statistics:`, or the command typed at a prompt or bare (`$ ethtool -S eth2`,
 * `# ethtool -S eth1`, `ethtool -S ens1f0 | grep -E "…"`, https://man7.org/linux/man-pages/man8/ethtool.8.html).
 */
const STATS_HEAD = /^(?:NIC statistics:|(?:sudo\s+)?(?:\S*\/)?ethtool\s+(?:-S|--statistics)\s+\S+(?:\s*\|.*)?)\s*$/;

/**
 * Whether a `NIC statistics:` line or an `ethtool -S IF` command line anywhere in the head has at least two counter
 * lines right under it: a session that printed `ethtool -i` (or prose) first still holds the counters.
 */
export function namedStatsBlock(lines: readonly string[]): boolean {
  for (let i = 0; i < lines.length; i++) {
    if (!STATS_HEAD.test(stripPrompt(lines[i]!).trim())) continue;
    if (lines.slice(i + 1, i + 3).filter((l) => STAT_LINE.test(l)).length === 2) return true;
  }
  return false;
}

export const ethtoolStatsAnalyzer: AnalyzerKind = {
  kind: "ethtool_stats",
  detect(head) {
    if (namedStatsBlock(headLines(head, 200))) return 0.9;
    const lines = headLines(head, 10);
    const share = lineShare(head, STAT_LINE);
    if (lines.some((l) => /^\s*NIC statistics:\s*$/.test(l))) return Math.min(0.95, 0.6 + share);
    // Pasted without its `NIC statistics:` header: most lines are `name: integer` counters, and both
    // directions of the netdev's own totals (`rx_packets`/`tx_packets` or `rx_bytes`/`tx_bytes`, the names every
    // driver prints, https://docs.kernel.org/networking/statistics.html) are among them.
    const names = new Set(lines.map((l) => STAT_LINE.exec(l)?.[1]).filter(Boolean));
    const totals = ["packets", "bytes"].some((x) => names.has(`rx_${x}`) && names.has(`tx_${x}`));
    // Or reduced by grep, or cut above its totals: three counters named by direction (`rx_pause_frames`,
    // `tx_pause_frames`, `rx_crc_errors`, also behind a queue prefix such as `rxq0: `), the way every driver names
    // them (https://docs.kernel.org/networking/statistics.html), make up most of the lines.
    const directional = new Set(lines.map((l) => DIRECTIONAL.exec(l)?.[1]).filter(Boolean));
    return (totals || directional.size >= 3) && share >= 0.5 ? 0.5 + 0.3 * share : 0;
  },
  analyze(text) {
    return outcomeOf(parseEthtoolStats(text), (stats) => {
      const pause = pauseCountersOf(stats);
      const moving = pause
        ? [0, 1, 2, 3, 4, 5, 6, 7].filter((p) => (pause.rx[p] ?? 0) > 0 || (pause.tx[p] ?? 0) > 0)
        : [];
      const summary = pause
        ? moving.length
          ? `PFC pause frames on priority ${moving.map((p) => `${p} (rx ${pause.rx[p] ?? 0}, tx ${pause.tx[p] ?? 0})`).join(", ")}`
          : "no PFC pause frames on any priority"
        : `${Object.keys(stats).length} counters, none per-priority pause`;
      return { findings: dropFindings(stats, pause), summary };
    });
  },
};

/** Receive-side drops among `ethtool -S` statistics: port buffer overflow and no posted receive buffer. */
function dropFindings(stats: Record<string, number>, pause: PauseCounters | null): Finding[] {
  const out: Finding[] = [];
  const discards = stats.rx_discards_phy ?? 0;
  if (discards > 0) {
    // tx_prioN_pause counts the pause frames this port sent to slow its link partner down.
    const pauseSent = pause !== null && Object.values(pause.tx).some((v) => v > 0);
    out.push(makeFinding(C, "RX_DISCARDS_PHY", "rx_discards_phy", { discards, pauseSent: pauseSent }));
  }
  const drops = stats.rx_out_of_buffer ?? 0;
  if (drops > 0) out.push(finding("RX_OUT_OF_BUFFER", "rx_out_of_buffer", { drops, counter: "rx_out_of_buffer" }));
  return out;
}
